// src/jit/kernel_cache.cpp
#include "kernel_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <stdexcept>
#include <system_error>
#include <unordered_map>

#include <nlohmann/json.hpp>

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

// Whether dependency `d` of a manifest still has the content it was compiled from. The stamp
// recorded beside the hash is a shortcut, not the criterion: an unchanged size and nanosecond
// modification time skip reading the file (a lookup must stay in milliseconds, ~1000 headers);
// any change is decided by the content hash, so a touched but unchanged header still hits.
bool dependency_unchanged(nlohmann::json const& d) {
  fs::path const path = d.at("path").get<std::string>();
  if (d.contains("size") && d.contains("mtime_ns")) {
    std::optional<Stamp> const now = stamp_of(path);
    if (now && *now == Stamp{d.at("size").get<std::uintmax_t>(), d.at("mtime_ns").get<long long>()})
      return true;
  }
  return memoized_file_hash(path) == d.at("hash").get<std::string>();
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

}  // namespace

KernelCache::KernelCache(fs::path dir) : dir_(std::move(dir)) {
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

std::optional<fs::path> KernelCache::find(std::string const& key) const {
  std::ifstream in(dir_ / (key + ".json"));
  if (!in) return std::nullopt;
  try {
    nlohmann::json const manifest = nlohmann::json::parse(in);
    fs::path const library = dir_ / manifest.at("library").get<std::string>();
    if (file_hash(library) != manifest.at("checksum").get<std::string>()) return std::nullopt;
    for (auto const& d : manifest.at("dependencies"))
      if (!dependency_unchanged(d)) return std::nullopt;
    return library;
  } catch (nlohmann::json::exception const&) {
    return std::nullopt;  // a torn or foreign manifest: a miss, replaced by the next publish
  }
}

fs::path KernelCache::publish(std::string const& key, fs::path const& library,
                              std::vector<fs::path> const& dependencies) const {
  std::optional<std::string> const checksum = file_hash(library);
  if (!checksum) fail("cannot read the compiled library " + library.string());
  nlohmann::json manifest;
  manifest["format"] = 1;
  manifest["checksum"] = *checksum;
  manifest["dependencies"] = nlohmann::json::array();
  for (fs::path const& d : dependencies) {
    std::optional<std::string> const h = memoized_file_hash(d);
    std::optional<Stamp> const stamp = stamp_of(d);
    if (!h || !stamp) fail("cannot read " + d.string() + ", which the kernel was compiled from");
    manifest["dependencies"].push_back(
        {{"path", d.string()}, {"hash", *h}, {"size", stamp->size}, {"mtime_ns", stamp->mtime_ns}});
  }
  // The library gets a name of its own: the manifest's rename is the one commit point, so
  // whichever publisher renames last leaves a manifest that names its own, complete library.
  std::string const suffix = unique_suffix();
  std::string const name = key + "." + suffix + ".so";
  manifest["library"] = name;
  std::error_code ec;
  fs::rename(library, dir_ / name, ec);
  if (ec) fail("cannot move " + library.string() + " into " + dir_.string(), ec);
  fs::path const staged = dir_ / "tmp" / (key + "." + suffix + ".json");
  {
    std::ofstream out(staged);
    out << manifest.dump(1) << '\n';
    if (!out.flush()) fail("cannot write " + staged.string());
  }
  fs::rename(staged, dir_ / (key + ".json"), ec);
  if (ec) fail("cannot publish " + key, ec);
  return dir_ / name;
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
