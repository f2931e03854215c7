// src/jit/kernel_cache.hpp
//
// The on-disk cache of JIT-compiled kernels: an entry per key — a shared object, or the files one
// compilation made together (NVRTC's path: a launcher library and its kernel's cubin) — with a
// manifest that records their checksums and the content hash of every header they came from.
//
//   <dir>/<key>.<unique>.<i>.so  the entry's i-th file (a name of its own per publication; the
//                             extension is the published file's: .cubin for a kernel NVRTC
//                             compiled)
//   <dir>/<key>.manifest      lines of text: the format line, one `file <hash> <name>` per file,
//                             one `dep <hash> <size> <mtime_ns> <path>` per header, `end`; a
//                             header under one of the cache's roots (the toolchain's include
//                             directories) as `@<root index>/<path below it>`, read against the
//                             roots of the process that looks it up
//
// The manifest is text a lookup parses in microseconds: a JSON manifest of a GEMM instance's
// ~1000 headers took 2.4 ms to parse, half of a load from the cache (target: 5 ms).
// The key is the caller's hash of what it compiles (generated source, toolchain identity, flags,
// architecture; never paths or times). Without paths in the key, two checkouts of one version
// share entries; the headers recorded relative to the roots are then checked in the checkout that
// looks the entry up, not in the one that compiled it. An entry is used only if every file's
// checksum matches (a truncated or corrupted file is a miss, and is rebuilt) and every recorded
// header still has the content it was compiled from (an edited header, or a changed CUTLASS, is a
// miss too): the headers are part of the key in effect, the way ccache's manifests make them part
// of its own.
//
// Publication is write-to-temporary + rename, the files first and the manifest last, so a reader
// never sees a partial entry, and processes that compile the same key at once all succeed and
// leave one valid entry.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warploom::jit {

class KernelCache {
 public:
  // `roots`: the directories whose headers the manifests record relative to them (in order;
  // Toolchain::roots), none by default.
  explicit KernelCache(std::filesystem::path dir, std::vector<std::filesystem::path> roots = {});

  // $WARPLOOM_CACHE_DIR, else $XDG_CACHE_HOME/warploom, else ~/.cache/warploom.
  static std::filesystem::path default_dir();

  std::filesystem::path const& dir() const { return dir_; }
  // Where the manifest of `key` is (tests write torn and foreign ones there).
  std::filesystem::path manifest(std::string const& key) const {
    return dir_ / (key + ".manifest");
  }

  // The files stored under `key`, in the order published, or nullopt when there is no entry or it
  // is stale or corrupt (any of its files, any of its headers).
  std::optional<std::vector<std::filesystem::path>> find_files(std::string const& key) const;
  // The library of an entry of one file.
  std::optional<std::filesystem::path> find(std::string const& key) const;

  // Moves `files` (which the caller wrote, e.g. in scratch_dir()) into the cache under `key`, one
  // entry, with the headers they were compiled from (each recorded once); returns their paths in
  // the cache, in order.
  std::vector<std::filesystem::path> publish(
      std::string const& key, std::vector<std::filesystem::path> const& files,
      std::vector<std::filesystem::path> const& dependencies) const;
  // An entry of one file, `library`.
  std::filesystem::path publish(std::string const& key, std::filesystem::path const& library,
                                std::vector<std::filesystem::path> const& dependencies) const;

  // Held while this process compiles `key`: another process that wants the same key waits for it
  // (flock on <key>.lock) and then finds the entry, instead of compiling it a second time. The
  // cache stays correct without it (publication is atomic); it only saves the duplicate work.
  class CompileLock {
   public:
    explicit CompileLock(std::filesystem::path const& file);
    ~CompileLock();
    CompileLock(CompileLock const&) = delete;
    CompileLock& operator=(CompileLock const&) = delete;

   private:
    int fd_ = -1;
  };
  CompileLock lock(std::string const& key) const { return CompileLock(dir_ / (key + ".lock")); }

  // A fresh directory on the cache's file system for one compilation (rename stays atomic).
  std::filesystem::path scratch_dir() const;

 private:
  std::filesystem::path dir_;
  std::vector<std::filesystem::path> roots_;
};

}  // namespace warploom::jit
