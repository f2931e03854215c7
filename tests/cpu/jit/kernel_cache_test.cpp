// tests/cpu/jit/kernel_cache_test.cpp — the on-disk kernel cache (src/jit/kernel_cache.hpp) and
// the cache key (src/jit/nvcc.hpp): hits and misses, torn and corrupted entries, changed headers,
// concurrent publishers, and keys that change with the toolchain.
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jit/content_hash.hpp"
#include "jit/kernel_cache.hpp"
#include "jit/loaded_library.hpp"
#include "jit/nvcc.hpp"

namespace {

namespace fs = std::filesystem;
using warploom::jit::KernelCache;

void write(fs::path const& p, std::string const& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}
std::string read(fs::path const& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("warploom_cache_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // A "compiled library" with `content`, written where a compilation would write it.
  fs::path built(KernelCache const& cache, std::string const& content) {
    fs::path const p = cache.scratch_dir() / "instance.so";
    write(p, content);
    return p;
  }

  fs::path root_;
};

TEST_F(KernelCacheTest, PublishedEntryIsFoundWithItsContent) {
  KernelCache const cache(root_ / "cache");
  fs::path const header = root_ / "kernel.cuh";
  write(header, "header v1");
  EXPECT_FALSE(cache.find("k1").has_value());
  fs::path const stored = cache.publish("k1", built(cache, "library bytes"), {header});
  auto const hit = cache.find("k1");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit, stored);
  EXPECT_EQ(read(*hit), "library bytes");
  EXPECT_FALSE(cache.find("k2").has_value());
}

TEST_F(KernelCacheTest, TruncatedOrCorruptedLibraryIsAMissAndIsReplaced) {
  KernelCache const cache(root_ / "cache");
  fs::path const stored = cache.publish("k", built(cache, "0123456789"), {});
  write(stored, "01234");  // torn write
  EXPECT_FALSE(cache.find("k").has_value());
  write(stored, "0123456780");  // same size, other bytes
  EXPECT_FALSE(cache.find("k").has_value());
  cache.publish("k", built(cache, "0123456789"), {});
  ASSERT_TRUE(cache.find("k").has_value());
  EXPECT_EQ(read(*cache.find("k")), "0123456789");
}

// An entry of several files (NVRTC's: a launcher library and its kernel's cubin): found whole, in
// the order published, with each header recorded once; any one file corrupted misses it all.
TEST_F(KernelCacheTest, EntryOfSeveralFilesIsFoundWholeOrNotAtAll) {
  KernelCache const cache(root_ / "cache");
  fs::path const header = root_ / "shared.cuh";
  write(header, "v1");
  fs::path const cubin = cache.scratch_dir() / "kernel.cubin";
  write(cubin, "cubin bytes");
  std::vector<fs::path> const stored = cache.publish(
      "k", std::vector<fs::path>{built(cache, "launcher bytes"), cubin}, {header, header});
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[1].extension(), ".cubin");
  auto const hit = cache.find_files("k");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit, stored);
  EXPECT_EQ(read((*hit)[0]), "launcher bytes");
  EXPECT_EQ(read((*hit)[1]), "cubin bytes");
  EXPECT_FALSE(cache.find("k").has_value()) << "find() is for an entry of one file";
  std::string const manifest = read(cache.manifest("k"));
  EXPECT_EQ(manifest.find("shared.cuh"), manifest.rfind("shared.cuh")) << manifest;
  write(stored[1], "cubin bytez");
  EXPECT_FALSE(cache.find_files("k").has_value());
  write(stored[1], "cubin bytes");
  EXPECT_TRUE(cache.find_files("k").has_value());
  write(header, "v2");
  EXPECT_FALSE(cache.find_files("k").has_value());
  EXPECT_THROW(cache.publish("e", std::vector<fs::path>{}, {}), std::runtime_error);
}

TEST_F(KernelCacheTest, TornOrForeignManifestIsAMiss) {
  KernelCache const cache(root_ / "cache");
  cache.publish("k", built(cache, "bytes"), {});
  std::string const whole = read(cache.manifest("k"));
  write(cache.manifest("k"), whole.substr(0, whole.size() - 4));  // torn: no `end` line
  EXPECT_FALSE(cache.find("k").has_value());
  write(cache.manifest("k"), "{\"library\": \"k.so\"}");  // foreign (format 1 was JSON)
  EXPECT_FALSE(cache.find("k").has_value());
  std::string const escaping = "warploom kernel cache manifest 4\nfile 0 ../k.so\nend\n";
  write(cache.manifest("k"), escaping);  // a file outside the cache folder
  EXPECT_FALSE(cache.find("k").has_value());
  write(cache.manifest("k"), whole);
  EXPECT_TRUE(cache.find("k").has_value());
}

TEST_F(KernelCacheTest, ChangedOrMissingHeaderIsAMiss) {
  KernelCache const cache(root_ / "cache");
  fs::path const header = root_ / "epilogue.cuh";
  write(header, "v1");
  cache.publish("k", built(cache, "bytes"), {header});
  ASSERT_TRUE(cache.find("k").has_value());
  write(header, "v2, longer");
  EXPECT_FALSE(cache.find("k").has_value());
  write(header, "v1");
  EXPECT_TRUE(cache.find("k").has_value());
  fs::remove(header);
  EXPECT_FALSE(cache.find("k").has_value());
}

// A header path is the rest of its manifest line: spaces in it are kept.
TEST_F(KernelCacheTest, HeaderPathsWithSpaces) {
  KernelCache const cache(root_ / "cache");
  fs::create_directories(root_ / "a dir");
  fs::path const header = root_ / "a dir" / "epi logue.cuh";
  write(header, "v1");
  cache.publish("k", built(cache, "bytes"), {header});
  EXPECT_TRUE(cache.find("k").has_value());
  write(header, "v2");
  EXPECT_FALSE(cache.find("k").has_value());
}

// Many processes publishing one key at once (as many processes compiling the same configuration
// would): all succeed and one valid entry remains.
TEST_F(KernelCacheTest, ConcurrentPublishersLeaveOneValidEntry) {
  KernelCache const cache(root_ / "cache");
  constexpr int kProcesses = 16;
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    pid_t const pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        for (int round = 0; round < 20; ++round)
          cache.publish("shared", built(cache, std::string(4096 + i, 'a' + i % 26)), {});
      } catch (...) {
        status = 1;
      }
      std::_Exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto const hit = cache.find("shared");
  ASSERT_TRUE(hit.has_value());
  std::string const bytes = read(*hit);
  ASSERT_GE(bytes.size(), 4096u);
  EXPECT_EQ(bytes, std::string(bytes.size(), bytes[0]));  // one publisher's whole library
}

// A toolkit without a version.json (one assembled from pip wheels) is named by what its nvcc
// --version prints, spawned once and then remembered in the cache folder; one with a version.json,
// by that file.
TEST_F(KernelCacheTest, ToolkitVersionIsVersionJsonElseNvccsOwnWordRemembered) {
  fs::path const toolkit = root_ / "toolkit";
  fs::create_directories(toolkit / "bin");
  fs::path const nvcc = toolkit / "bin" / "nvcc";
  write(nvcc, "#!/bin/sh\necho run >> '" + (root_ / "runs").string() +
                  "'\necho 'Cuda compilation tools, release 99.9, V99.9.1'\n");
  fs::permissions(nvcc, fs::perms::owner_all);
  ::setenv("WARPLOOM_CACHE_DIR", (root_ / "cache").c_str(), 1);
  std::string const spoken = warploom::jit::toolkit_version(nvcc.string());
  EXPECT_NE(spoken.find("V99.9.1"), std::string::npos) << spoken;
  EXPECT_EQ(warploom::jit::toolkit_version(nvcc.string()), spoken);
  EXPECT_EQ(read(root_ / "runs"), "run\n");  // spawned once
  write(toolkit / "version.json", R"({"cuda": {"version": "99.9.2"}})");
  EXPECT_EQ(warploom::jit::toolkit_version(nvcc.string()), R"({"cuda": {"version": "99.9.2"}})");
  EXPECT_NE(warploom::jit::toolkit_version((root_ / "no_nvcc").string()), spoken);
  ::unsetenv("WARPLOOM_CACHE_DIR");
}

// A launcher links the runtime of the toolkit that runs (its lib64, targets/<arch>/lib or lib,
// where libcudart is), whatever folder the build recorded; where the runtime was found is not part
// of a toolchain's identity.
TEST_F(KernelCacheTest, TheHostLinkFindsTheRuntimeBesideTheNvccThatRuns) {
  fs::path const toolkit = root_ / "toolkit";
  fs::create_directories(toolkit / "bin");
  fs::create_directories(toolkit / "lib64");
  fs::create_directories(toolkit / "targets" / "x86_64-linux" / "lib");
  fs::create_directories(toolkit / "lib");  // no runtime here: not named
  write(toolkit / "bin" / "nvcc", "");
  write(toolkit / "lib64" / "libcudart.so", "");
  write(toolkit / "targets" / "x86_64-linux" / "lib" / "libcudart.so", "");
  fs::path const real = fs::canonical(toolkit);
  EXPECT_EQ(
      warploom::jit::toolkit_library_flags((toolkit / "bin" / "nvcc").string()),
      (std::vector<std::string>{"-L" + (real / "lib64").string(),
                                "-L" + (real / "targets" / "x86_64-linux" / "lib").string()}));
  EXPECT_TRUE(warploom::jit::toolkit_library_flags((root_ / "no_nvcc").string()).empty());
  std::vector<fs::path> roots;
  EXPECT_EQ(warploom::jit::flags_identity({"-O3", "-L/usr/local/cuda/lib64", "-lcudart"}, roots),
            warploom::jit::flags_identity({"-O3", "-L/elsewhere/lib", "-lcudart"}, roots));
}

TEST(CacheKey, ChangesWithSourceToolchainAndFlagsOnly) {
  warploom::jit::Toolchain a{.nvcc = "/opt/cuda-13.0/bin/nvcc",
                             .flags = {"-O3", "-gencode", "arch=compute_90a,code=sm_90a"},
                             .identity = "nvcc 13.0.48\ng++ 12.2\n-O3\n",
                             .roots = {},
                             .toolkit_version = "13.0.48"};
  warploom::jit::Toolchain b = a;
  b.identity = "nvcc 13.1.0\ng++ 12.2\n-O3\n";  // the same path, another toolkit
  std::vector<std::string> const link{"-lwarploom_gemm"};
  std::string const k = warploom::jit::cache_key("gemm", "source", a, link);
  EXPECT_EQ(k, warploom::jit::cache_key("gemm", "source", a, link));
  EXPECT_EQ(k.rfind("gemm_", 0), 0u);
  EXPECT_NE(k, warploom::jit::cache_key("gemm", "source", b, link));
  EXPECT_NE(k, warploom::jit::cache_key("gemm", "source ", a, link));
  EXPECT_NE(k, warploom::jit::cache_key("gemm", "source", a, {"-lother"}));
}

// The build's folder is no part of the key: include directories become `<root N>`, a compiler
// given by path its file name; what the flags say still counts.
TEST(CacheKey, HoldsNoPath) {
  auto const toolchain = [](std::string const& at, std::string const& opt) {
    return warploom::jit::make_toolchain(
        at + "/cuda/bin/nvcc",
        {opt, "-I" + at + "/include", "-isystem=" + at + "/deps/cutlass", "-isystem",
         at + "/deps/fmt", "-ccbin", "/usr/bin/g++-12"},
        R"({"cuda": {"version": "13.0.48"}})", "GNU 12.2.0 g++-12");
  };
  auto const a = toolchain("/home/a/warploom", "-O3");
  auto const b = toolchain("/srv/b/checkout", "-O3");
  EXPECT_EQ(a.identity, b.identity);
  EXPECT_EQ(a.identity.find('/'), std::string::npos) << a.identity;
  EXPECT_NE(a.identity.find("-I<root 0>"), std::string::npos) << a.identity;
  EXPECT_NE(a.identity.find("g++-12"), std::string::npos) << a.identity;
  ASSERT_EQ(b.roots.size(), 3u);
  EXPECT_EQ(b.roots[2], fs::path("/srv/b/checkout/deps/fmt"));
  std::vector<std::string> const link{"-lwarploom_gemm", "build-id 01ab"};
  EXPECT_EQ(warploom::jit::cache_key("gemm", "s", a, link),
            warploom::jit::cache_key("gemm", "s", b, link));
  EXPECT_NE(warploom::jit::cache_key("gemm", "s", a, link),
            warploom::jit::cache_key("gemm", "s", toolchain("/home/a/warploom", "-O2"), link));
  EXPECT_NE(warploom::jit::cache_key("gemm", "s", a, link),
            warploom::jit::cache_key("gemm", "s", a, {"-lwarploom_gemm", "build-id 01ac"}));
}

// An entry one checkout compiled serves another checkout of the same headers (the key holds no
// path), and its headers are checked where the one looking it up has them: an edit there is a miss
// there, not in the checkout that compiled it; a process without the root misses.
TEST_F(KernelCacheTest, HeadersUnderARootAreCheckedInTheReadersRoot) {
  fs::path const one = root_ / "one" / "include", two = root_ / "two" / "include";
  fs::create_directories(one / "gemm");
  fs::create_directories(two / "gemm");
  write(one / "gemm" / "kernel.cuh", "header v1");
  write(two / "gemm" / "kernel.cuh", "header v1");
  fs::path const outside = root_ / "cuda_runtime.h";
  write(outside, "toolkit header");
  KernelCache const compiled_in_one(root_ / "cache", {one});
  compiled_in_one.publish("k", built(compiled_in_one, "library"),
                          {one / "gemm" / "kernel.cuh", outside});
  std::string const manifest = read(compiled_in_one.manifest("k"));
  EXPECT_NE(manifest.find(" @0/gemm/kernel.cuh\n"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find(" " + outside.string() + "\n"), std::string::npos) << manifest;

  KernelCache const reader_in_two(root_ / "cache", {two});
  EXPECT_TRUE(reader_in_two.find("k").has_value());
  write(two / "gemm" / "kernel.cuh", "header v2");
  EXPECT_FALSE(reader_in_two.find("k").has_value());
  EXPECT_TRUE(compiled_in_one.find("k").has_value());
  EXPECT_FALSE(KernelCache(root_ / "cache").find("k").has_value());  // no root 0 here
}

// The identity of a loaded object: its build ID (or content hash), the same for any address in it.
TEST(LoadedLibrary, IsNamedByItsBuildNotItsPath) {
  std::string const here =
      warploom::jit::loaded_library_identity(reinterpret_cast<void const*>(&read));
  EXPECT_TRUE(here.starts_with("build-id ") || here.starts_with("content ")) << here;
  EXPECT_EQ(here, warploom::jit::loaded_library_identity(reinterpret_cast<void const*>(&write)));
  EXPECT_NE(here, warploom::jit::loaded_library_identity(reinterpret_cast<void const*>(&::getpid)));
  EXPECT_THROW((void)warploom::jit::loaded_library_identity(reinterpret_cast<void const*>(16)),
               std::runtime_error);
}

// A file's build ID read from the file (how the JIT names its NVRTC without loading it) is the one
// the loader's image of it holds.
TEST(LoadedLibrary, AFilesBuildIdIsTheLoadedImages) {
  std::string const loaded =
      warploom::jit::loaded_library_identity(reinterpret_cast<void const*>(&read));
  if (!loaded.starts_with("build-id ")) GTEST_SKIP() << "linked without a build ID: " << loaded;
  std::optional<std::string> const file = warploom::jit::file_build_id("/proc/self/exe");
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ("build-id " + *file, loaded);
  EXPECT_FALSE(warploom::jit::file_build_id("/proc/self/status").has_value());  // not ELF
  EXPECT_FALSE(warploom::jit::file_build_id("/nonexistent/warploom").has_value());
}

TEST(ContentHash, IsStableAndTellsContentsApart) {
  EXPECT_EQ(warploom::jit::content_hash("abc").size(), 32u);
  EXPECT_EQ(warploom::jit::content_hash("abc"), warploom::jit::content_hash("abc"));
  EXPECT_NE(warploom::jit::content_hash("abc"), warploom::jit::content_hash("abd"));
  EXPECT_FALSE(warploom::jit::file_hash("/nonexistent/warploom").has_value());
}

// A file is hashed in 64 KiB reads: the result is the hash of its whole content, across reads.
TEST_F(KernelCacheTest, FileHashIsTheContentHashOfTheWholeFile) {
  std::string bytes(200'003, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 % 251);
  fs::path const file = root_ / "big.bin";
  write(file, bytes);
  EXPECT_EQ(warploom::jit::file_hash(file), warploom::jit::content_hash(bytes));
  write(file, "");
  EXPECT_EQ(warploom::jit::file_hash(file), warploom::jit::content_hash(""));
}

}  // namespace
