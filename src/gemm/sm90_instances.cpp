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

// The launcher of configuration `c` in JIT-compiled `library`; none (both null) when it does not
// load.
Launchers load(fs::path const& library, KernelConfig const& c) {
  // RTLD_LOCAL: each instance's symbols stay its own; RTLD_NOW: a broken library fails here.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return {};
  std::string const entry(jit_entry_of(c.grouped));
  void* const symbol = dlsym(handle, entry.c_str());
  if (symbol == nullptr) return {};
  if (c.grouped) return {.launch_grouped = reinterpret_cast<GroupedLaunchFn (*)()>(symbol)()};
  return {.launch = reinterpret_cast<LaunchFn (*)()>(symbol)()};
}

bool loaded(Launchers const& l) {
  return l.launch != nullptr || l.launch_grouped != nullptr;
}

// Compiles `c` unless the kernel cache has it, and loads it.
Launchers jit_compile(KernelConfig const& c) {
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
    if (Launchers const l = load(*hit, c); loaded(l)) return l;
  auto const lock = cache.lock(key);  // another process compiling this key: wait, then reuse it
  if (auto const hit = cache.find(key))
    if (Launchers const l = load(*hit, c); loaded(l)) return l;
  fs::path const scratch = cache.scratch_dir();
  fs::path const built = scratch / "instance.so";
  std::vector<fs::path> const deps =
      jit::compile_shared_object(toolchain, source, built, link_flags);
  fs::path const published = cache.publish(key, built, deps);
  std::error_code ignored;
  fs::remove_all(scratch, ignored);
  if (Launchers const l = load(published, c); loaded(l)) return l;
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
      "gemm: tuning.stages = {}, tuning.staging_buffers = {}, tiles {} wide and a {}x{} cluster "
      "make the {} schedule `{}`, which this build has not verified (every instance runs a "
      "schedule verified when warploom was built; verified GEMM schedules:{})",
      c.stages, c.staging_buffers, tile_n_of(c), c.cluster_m, c.cluster_n, to_string(c.design),
      name, verified));
}

namespace {

// The launchers of `c`: prebuilt, or compiled (or loaded from the kernel cache) once per process.
Launchers launchers_for(KernelConfig const& c) {
  // A prebuilt instance fits shared memory and runs a verified schedule, or the build would have
  // failed (its schedule unit's proof links it): gemm() calls this on every launch, so the checks
  // below run only for configurations on their way to the JIT, once each.
  auto const all = prebuilt_instances();
  auto const it = std::find_if(all.begin(), all.end(),
                               [&](PrebuiltInstance const& i) { return i.config == c; });
  if (it != all.end()) return it->launchers;
  // Compiled or loaded once per process; later calls find it here. Different configurations
  // compile at the same time (`warploom precompile --jobs`); callers of one wait for its compile.
  static std::mutex mutex;
  static std::map<std::string, std::shared_future<Launchers>> in_memory;
  std::string const name = name_of(c);
  std::shared_future<Launchers> known;
  {
    std::lock_guard lock(mutex);
    if (auto const hit = in_memory.find(name); hit != in_memory.end()) known = hit->second;
  }
  if (known.valid()) return known.get();  // loaded, or being compiled: its checks passed
  check_fits(c);
  check_schedule(c);
  std::promise<Launchers> compiled;
  std::shared_future<Launchers> launch;
  bool compiles_here = false;
  {
    std::lock_guard lock(mutex);
    auto const [slot, inserted] = in_memory.try_emplace(name);
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
    in_memory.erase(name);  // a later call tries again (the compiler may have been fixed)
  }
  return launch.get();
}

}  // namespace

LaunchFn instance_for(KernelConfig const& c) {
  if (c.grouped) throw std::logic_error("gemm: instance_for: " + name_of(c) + " is grouped");
  return launchers_for(c).launch;
}

GroupedLaunchFn grouped_instance_for(KernelConfig const& c) {
  if (!c.grouped)
    throw std::logic_error("gemm: grouped_instance_for: " + name_of(c) + " is not grouped");
  return launchers_for(c).launch_grouped;
}

}  // namespace warploom::gemm::sm90
