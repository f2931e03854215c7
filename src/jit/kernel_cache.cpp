// src/jit/kernel_cache.cpp
#include "kernel_cache.hpp"

#include <unistd.h>

#include <atomic>
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

// A header's hash, computed again only when the file's size or modification time changed: every
// kernel of a process shares most of its headers, and a lookup must stay in the milliseconds.
// (The time only decides whether to hash again; the content decides whether an entry is valid.)
std::optional<std::string> memoized_file_hash(fs::path const& path) {
  struct Memo {
    std::uintmax_t size = 0;
    fs::file_time_type time{};
    std::optional<std::string> hash;
  };
  static std::mutex mutex;
  static std::unordered_map<std::string, Memo> memos;
  std::error_code ec;
  std::uintmax_t const size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  fs::file_time_type const time = fs::last_write_time(path, ec);
  if (ec) return std::nullopt;
  std::lock_guard lock(mutex);
  auto [it, inserted] = memos.try_emplace(path.string());
  if (inserted || it->second.size != size || it->second.time != time)
    it->second = {size, time, file_hash(path)};
  return it->second.hash;
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
      if (memoized_file_hash(d.at("path").get<std::string>()) != d.at("hash").get<std::string>())
        return std::nullopt;
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
    if (!h) fail("cannot read " + d.string() + ", which the kernel was compiled from");
    manifest["dependencies"].push_back({{"path", d.string()}, {"hash", *h}});
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

fs::path KernelCache::scratch_dir() const {
  fs::path const d = dir_ / "tmp" / unique_suffix();
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) fail("cannot create " + d.string(), ec);
  return d;
}

}  // namespace warploom::jit
