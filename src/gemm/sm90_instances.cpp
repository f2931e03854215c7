// src/gemm/sm90_instances.cpp — the launcher of a configuration: prebuilt, or compiled when first
// needed (JIT) and kept in memory and in the on-disk kernel cache.
#include "sm90_instances.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "jit/kernel_cache.hpp"
#include "jit/loaded_library.hpp"
#include "jit/nvcc.hpp"
#include "sm90_source.hpp"
#include "warploom/ts/schedule_unit.hpp"

namespace warploom::gemm::sm90 {
namespace {

namespace fs = std::filesystem;

// The directory of the shared library this code is part of: JIT instances link against it (the
// proofs of their schedules live here) wherever the process loaded it from.
fs::path this_library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&instance_for), &info) == 0 || info.dli_fname == nullptr)
    throw std::runtime_error("gemm: JIT: cannot locate libwarploom_gemm");
  return fs::canonical(info.dli_fname).parent_path();
}

LaunchFn load(fs::path const& library) {
  // RTLD_LOCAL: each instance's symbols stay its own; RTLD_NOW: a broken library fails here.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  auto* entry = reinterpret_cast<LaunchFn (*)()>(dlsym(handle, "warploom_jit_entry"));
  return entry != nullptr ? entry() : nullptr;
}

// Compiles `c` unless the kernel cache has it, and loads it.
LaunchFn jit_compile(KernelConfig const& c) {
  if (char const* v = std::getenv("WARPLOOM_JIT"); v != nullptr && std::string(v) == "0")
    throw std::runtime_error("gemm: the tensor-core configuration " + name_of(c) +
                             " is not prebuilt in this build and WARPLOOM_JIT=0 forbids "
                             "compiling it");
  jit::Toolchain const& toolchain = jit::Toolchain::of_build();
  fs::path const lib_dir = this_library_dir();
  std::vector<std::string> const link_flags{"-L" + lib_dir.string(), "-lwarploom_gemm", "-Xlinker",
                                            "-rpath," + lib_dir.string()};
  KernelConfig const configs[] = {c};
  std::string const source = instance_source(configs, /*jit_entry=*/true);
  // The key names the library an instance links by its build, not its folder (the instance finds
  // the loaded one by its soname wherever it lies): a rebuilt libwarploom_gemm is a new key, the
  // same one installed elsewhere is not.
  static std::string const library =
      jit::loaded_library_identity(reinterpret_cast<void const*>(&instance_for));
  std::string const key =
      jit::cache_key("gemm_sm90_" + name_of(c), source, toolchain, {"-lwarploom_gemm", library});

  jit::KernelCache const cache(jit::KernelCache::default_dir(), toolchain.roots);
  if (auto const hit = cache.find(key))
    if (LaunchFn fn = load(*hit)) return fn;
  auto const lock = cache.lock(key);  // another process compiling this key: wait, then reuse it
  if (auto const hit = cache.find(key))
    if (LaunchFn fn = load(*hit)) return fn;
  fs::path const scratch = cache.scratch_dir();
  fs::path const built = scratch / "instance.so";
  std::vector<fs::path> const deps =
      jit::compile_shared_object(toolchain, source, built, link_flags);
  fs::path const published = cache.publish(key, built, deps);
  std::error_code ignored;
  fs::remove_all(scratch, ignored);
  if (LaunchFn fn = load(published)) return fn;
  throw std::runtime_error("gemm: JIT: cannot load " + published.string() + ": " + dlerror());
}

}  // namespace

bool schedule_verified(KernelConfig const& c) {
  std::string const name = schedule_of(c);
  for (ts::RegisteredSchedule const& s : ts::registered_schedules())
    if (s.name == name) return true;
  return false;
}

void check_schedule(KernelConfig const& c) {
  std::string const name = schedule_of(c);
  std::string verified;
  for (ts::RegisteredSchedule const& s : ts::registered_schedules()) {
    if (s.name == name) return;
    if (s.name.rfind("sm90_ts_gemm", 0) == 0) verified += fmt::format(" {}", s.name);
  }
  throw std::invalid_argument(fmt::format(
      "gemm: tuning.stages = {}, tuning.staging_buffers = {} and a {}x{} cluster make the {} "
      "schedule `{}`, which this build has not verified (every instance runs a schedule verified "
      "when warploom was built; verified GEMM schedules:{})",
      c.stages, c.staging_buffers, c.cluster_m, c.cluster_n, to_string(c.design), name, verified));
}

LaunchFn instance_for(KernelConfig const& c) {
  // A prebuilt instance fits shared memory and runs a verified schedule, or the build would have
  // failed (its schedule unit's proof links it): gemm() calls this on every launch, so the checks
  // below run only for configurations on their way to the JIT, once each.
  auto const all = prebuilt_instances();
  auto const it = std::find_if(all.begin(), all.end(),
                               [&](PrebuiltInstance const& i) { return i.config == c; });
  if (it != all.end()) return it->launch;
  // Compiled or loaded once per process; later calls find it here. Different configurations
  // compile at the same time (`warploom precompile --jobs`); callers of one wait for its compile.
  static std::mutex mutex;
  static std::map<std::string, std::shared_future<LaunchFn>> loaded;
  std::string const name = name_of(c);
  std::shared_future<LaunchFn> known;
  {
    std::lock_guard lock(mutex);
    if (auto const hit = loaded.find(name); hit != loaded.end()) known = hit->second;
  }
  if (known.valid()) return known.get();  // loaded, or being compiled: its checks passed
  check_fits(c);
  check_schedule(c);
  std::promise<LaunchFn> compiled;
  std::shared_future<LaunchFn> launch;
  bool compiles_here = false;
  {
    std::lock_guard lock(mutex);
    auto const [slot, inserted] = loaded.try_emplace(name);
    if (inserted) slot->second = compiled.get_future().share();
    launch = slot->second;
    compiles_here = inserted;
  }
  if (!compiles_here) return launch.get();  // waits outside the lock
  try {
    compiled.set_value(jit_compile(c));
  } catch (...) {
    compiled.set_exception(std::current_exception());
    std::lock_guard lock(mutex);
    loaded.erase(name);  // a later call tries again (the compiler may have been fixed)
  }
  return launch.get();
}

}  // namespace warploom::gemm::sm90
