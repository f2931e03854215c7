// src/jit/kernel_cache.cpp
#include "kernel_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include "content_hash.hpp"

namespace warploom::jit {
namespace {

namespace fs = std::filesystem;

// A file's size and modification time (nanoseconds), or nullopt when it cannot be read.
struct Stamp {
  std::uintmax_t size = 0;
  long long mtime_ns = 0;
  friend bool operator==(Stamp const&, Stamp const&) = default;
};
std::optional<Stamp> stamp_of(fs::path const& path) {
  struct stat st {};  // one stat call (std::filesystem would make two)
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return Stamp{static_cast<std::uintmax_t>(st.st_size),
               static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000LL + st.st_mtim.tv_nsec};
}

// A header's content hash, computed again only when its stamp changed: every kernel of a process
// shares most of its headers (about a thousand files, 18 MB, for a GEMM instance).
std::optional<std::string> memoized_file_hash(fs::path const& path) {
  struct Memo {
    Stamp stamp;
    std::optional<std::string> hash;
  };
  static std::mutex mutex;
  static std::unordered_map<std::string, Memo> memos;
  std::optional<Stamp> const stamp = stamp_of(path);
  if (!stamp) return std::nullopt;
  std::lock_guard lock(mutex);
  auto [it, inserted] = memos.try_emplace(path.string());
  if (inserted || it->second.stamp != *stamp) it->second = {*stamp, file_hash(path)};
  return it->second.hash;
}

// A header a library was compiled from, as its manifest records it.
struct Dependency {
  std::string hash;
  Stamp stamp;
  std::string path;
};

// Whether dependency `d` still has the content it was compiled from. The stamp recorded beside the
// hash is a shortcut, not the criterion: an unchanged size and nanosecond modification time skip
// reading the file (a lookup must stay in milliseconds, ~1000 headers); any change is decided by
// the content hash, so a touched but unchanged header still hits.
bool dependency_unchanged(Dependency const& d) {
  if (std::optional<Stamp> const now = stamp_of(d.path); now && *now == d.stamp) return true;
  return memoized_file_hash(d.path) == d.hash;
}

// Whether every dependency is unchanged. A GEMM instance has ~1000 headers, one stat each (~1 us):
// four threads share them, so that a load from the cache stays well inside its 5 ms.
bool all_unchanged(std::vector<Dependency> const& deps) {
  constexpr std::size_t kPerThread = 256;
  std::size_t const threads = std::min<std::size_t>(4, (deps.size() + kPerThread - 1) / kPerThread);
  std::atomic<bool> unchanged{true};
  auto const check = [&](std::size_t first) {
    for (std::size_t i = first; i < deps.size() && unchanged.load(std::memory_order_relaxed);
         i += std::max<std::size_t>(threads, 1))
      if (!dependency_unchanged(deps[i])) unchanged = false;
  };
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(check, t);
  check(0);
  for (std::thread& h : helpers) h.join();
  return unchanged;
}

constexpr std::string_view kFormatLine = "warploom kernel cache manifest 4";

// Splits off the text before the next space of `rest` (nullopt when there is none).
std::optional<std::string_view> next_field(std::string_view& rest) {
  std::size_t const space = rest.find(' ');
  if (space == std::string_view::npos || space == 0) return std::nullopt;
  std::string_view const field = rest.substr(0, space);
  rest.remove_prefix(space + 1);
  return field;
}

template <class T>
bool parse_number(std::string_view text, T& out) {
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc{} && end == text.data() + text.size();
}

// "<hash> <size> <mtime_ns> <path>": the path is the rest of the line, spaces and all.
std::optional<Dependency> parse_dependency(std::string_view rest) {
  Dependency d;
  std::optional<std::string_view> const hash = next_field(rest);
  std::optional<std::string_view> const size = next_field(rest);
  std::optional<std::string_view> const mtime = next_field(rest);
  if (!hash || !size || !mtime || rest.empty() || !parse_number(*size, d.stamp.size) ||
      !parse_number(*mtime, d.stamp.mtime_ns))
    return std::nullopt;
  d.hash = *hash;
  d.path = rest;
  return d;
}

// A file of an entry, as its manifest records it.
struct StoredFile {
  std::string checksum, name;
};

// A manifest as publish() writes it; nullopt for a torn (no `end` line) or foreign one.
struct Manifest {
  std::vector<StoredFile> files;
  std::vector<Dependency> dependencies;
};
std::optional<Manifest> parse_manifest(std::istream& in) {
  std::string line;
  if (!std::getline(in, line) || line != kFormatLine) return std::nullopt;
  Manifest m;
  while (std::getline(in, line)) {
    std::string_view const l = line;
    if (l == "end") return m.files.empty() ? std::nullopt : std::optional(m);
    if (l.starts_with("file ")) {
      std::string_view rest = l.substr(5);
      std::optional<std::string_view> const checksum = next_field(rest);
      // A name is the entry's own file in the cache folder, never a path.
      if (!checksum || rest.empty() || rest.find('/') != std::string_view::npos)
        return std::nullopt;
      m.files.push_back({std::string(*checksum), std::string(rest)});
    } else if (l.starts_with("dep ")) {
      std::optional<Dependency> d = parse_dependency(l.substr(4));
      if (!d) return std::nullopt;
      m.dependencies.push_back(std::move(*d));
    } else {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// Unique across processes and threads: pid, a per-process counter and a random draw.
std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  static unsigned const seed = std::random_device{}();
  return std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + std::to_string(seed);
}

[[noreturn]] void fail(std::string const& what, std::error_code ec = {}) {
  throw std::runtime_error("kernel cache: " + what + (ec ? ": " + ec.message() : ""));
}

// A header's path as a manifest records it: `@<k>/<below>` under roots[k] (the first that holds
// it), else as it is.
std::string recorded_path(fs::path const& header, std::vector<fs::path> const& roots) {
  fs::path const normal = header.lexically_normal();
  for (std::size_t k = 0; k < roots.size(); ++k) {
    fs::path const below = normal.lexically_relative(roots[k]);
    if (!below.empty() && *below.begin() != ".." && below.is_relative())
      return "@" + std::to_string(k) + "/" + below.string();
  }
  return normal.string();
}

// The file a recorded path names here: `@<k>/...` under this process's roots[k]; nullopt for a
// root this process does not have.
std::optional<fs::path> resolved_path(std::string const& recorded,
                                      std::vector<fs::path> const& roots) {
  if (!recorded.starts_with('@')) return fs::path(recorded);
  std::size_t const slash = recorded.find('/');
  std::size_t k = 0;
  if (slash == std::string::npos ||
      !parse_number(std::string_view(recorded).substr(1, slash - 1), k) || k >= roots.size())
    return std::nullopt;
  return roots[k] / recorded.substr(slash + 1);
}

}  // namespace

KernelCache::KernelCache(fs::path dir, std::vector<fs::path> roots)
    : dir_(std::move(dir)), roots_(std::move(roots)) {
  std::error_code ec;
  fs::create_directories(dir_ / "tmp", ec);
  if (ec) fail("cannot create " + dir_.string() + " (set WARPLOOM_CACHE_DIR)", ec);
}

fs::path KernelCache::default_dir() {
  if (char const* d = std::getenv("WARPLOOM_CACHE_DIR"); d != nullptr && *d != '\0') return d;
  if (char const* d = std::getenv("XDG_CACHE_HOME"); d != nullptr && *d != '\0')
    return fs::path(d) / "warploom";
  if (char const* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return fs::path(home) / ".cache" / "warploom";
  return fs::temp_directory_path() / "warploom-cache";
}

std::optional<std::vector<fs::path>> KernelCache::find_files(std::string const& key) const {
  std::ifstream in(manifest(key));
  if (!in) return std::nullopt;
  std::optional<Manifest> m = parse_manifest(in);
  // A torn or foreign manifest is a miss, replaced by the next publish; so is a file whose bytes
  // are not the ones published (truncated, corrupted) or a header that changed.
  if (!m) return std::nullopt;
  std::vector<fs::path> files;
  for (StoredFile const& f : m->files) {
    files.push_back(dir_ / f.name);
    if (file_hash(files.back()) != f.checksum) return std::nullopt;
  }
  for (Dependency& d : m->dependencies) {  // recorded paths -> this process's files
    std::optional<fs::path> const file = resolved_path(d.path, roots_);
    if (!file) return std::nullopt;
    d.path = file->string();
  }
  if (!all_unchanged(m->dependencies)) return std::nullopt;
  return files;
}

std::optional<fs::path> KernelCache::find(std::string const& key) const {
  std::optional<std::vector<fs::path>> const files = find_files(key);
  return files && files->size() == 1 ? std::optional(files->front()) : std::nullopt;
}

std::vector<fs::path> KernelCache::publish(std::string const& key,
                                           std::vector<fs::path> const& files,
                                           std::vector<fs::path> const& dependencies) const {
  if (files.empty()) fail("an entry of no file: " + key);
  std::string text = std::string(kFormatLine) + "\n";
  // Each header once, though the files of an entry were compiled from overlapping sets.
  std::set<std::string> recorded;
  for (fs::path const& d : dependencies) {
    std::string const path = recorded_path(d, roots_);
    if (!recorded.insert(path).second) continue;
    std::optional<std::string> const h = memoized_file_hash(d);
    std::optional<Stamp> const stamp = stamp_of(d);
    if (!h || !stamp) fail("cannot read " + d.string() + ", which the kernel was compiled from");
    if (d.string().find('\n') != std::string::npos)
      fail("a header path holds a newline: " + d.string());
    text += "dep " + *h + " " + std::to_string(stamp->size) + " " +
            std::to_string(stamp->mtime_ns) + " " + path + "\n";
  }
  // Each file gets a name of its own: the manifest's rename is the one commit point, so whichever
  // publisher renames last leaves a manifest that names its own, complete files.
  std::string const suffix = unique_suffix();
  std::vector<fs::path> stored;
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::optional<std::string> const checksum = file_hash(files[i]);
    if (!checksum) fail("cannot read the compiled file " + files[i].string());
    std::string const name =
        key + "." + suffix + "." + std::to_string(i) + files[i].extension().string();
    text += "file " + *checksum + " " + name + "\n";
    std::error_code ec;
    fs::rename(files[i], dir_ / name, ec);
    if (ec) fail("cannot move " + files[i].string() + " into " + dir_.string(), ec);
    stored.push_back(dir_ / name);
  }
  text += "end\n";
  fs::path const staged = dir_ / "tmp" / (key + "." + suffix + ".manifest");
  {
    std::ofstream out(staged);
    out << text;
    if (!out.flush()) fail("cannot write " + staged.string());
  }
  std::error_code ec;
  fs::rename(staged, manifest(key), ec);
  if (ec) fail("cannot publish " + key, ec);
  return stored;
}

fs::path KernelCache::publish(std::string const& key, fs::path const& library,
                              std::vector<fs::path> const& dependencies) const {
  return publish(key, std::vector<fs::path>{library}, dependencies).front();
}

KernelCache::CompileLock::CompileLock(fs::path const& file) {
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  // Without a lock (a file system that refuses it) compiling twice is only slower.
  if (fd_ >= 0)
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
}

KernelCache::CompileLock::~CompileLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

fs::path KernelCache::scratch_dir() const {
  fs::path const d = dir_ / "tmp" / unique_suffix();
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) fail("cannot create " + d.string(), ec);
  return d;
}

}  // namespace warploom::jit
