// src/gemm/sm90_instances.cpp — the launcher of a configuration: prebuilt, or compiled when first
// needed (JIT) and kept in memory and in the on-disk kernel cache.
#include "sm90_instances.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "jit/kernel_cache.hpp"
#include "jit/loaded_library.hpp"
#include "jit/nvcc.hpp"
#include "jit/nvrtc.hpp"
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

// What a JIT library links: libwarploom_gemm where this process loaded it from (the proofs of the
// schedules live there), named in cache keys by its build, not its folder (the instance finds the
// loaded one by its soname wherever it lies): a rebuilt libwarploom_gemm is a new key, the same one
// installed elsewhere is not.
std::vector<std::string> link_flags(jit::SourceLanguage language = jit::SourceLanguage::Cuda) {
  std::string const dir = this_library_dir().string();
  if (language == jit::SourceLanguage::Cxx)  // the host compiler itself
    return {"-L" + dir, "-lwarploom_gemm", "-Wl,-rpath," + dir};
  return {"-L" + dir, "-lwarploom_gemm", "-Xlinker", "-rpath," + dir};
}
std::vector<std::string> const& link_identity() {
  static std::vector<std::string> const identity{
      "-lwarploom_gemm",
      jit::loaded_library_identity(reinterpret_cast<void const*>(&instance_for))};
  return identity;
}

// The launcher of `c` in `launcher` (compiled by the host compiler) with its kernel from the cubin
// file `kernel` (read at the first launch, ts::LoadedKernel); none when the launcher does not load.
Launchers load_nvrtc(fs::path const& launcher, fs::path const& kernel) {
  void* handle = dlopen(launcher.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return {};
  std::string const entry(jit_entry_of(false));
  void* const get_launch = dlsym(handle, entry.c_str());
  void* const set_kernel = dlsym(handle, std::string(kJitSetKernel).c_str());
  if (get_launch == nullptr || set_kernel == nullptr) return {};
  reinterpret_cast<void (*)(char const*)>(set_kernel)(kernel.c_str());
  return {.launch = reinterpret_cast<LaunchFn (*)()>(get_launch)()};
}

// Throws unless NVRTC laid out `c`'s Params as the launcher's compiler did: the layout the NVRTC
// source exports in the cubin against the one the launcher library reports.
void check_params_layout(KernelConfig const& c, fs::path const& launcher, jit::Cubin const& cubin) {
  void* const handle = dlopen(launcher.c_str(), RTLD_NOW | RTLD_LOCAL);
  void* const layout_fn =
      handle != nullptr ? dlsym(handle, std::string(kJitParamsLayout).c_str()) : nullptr;
  if (layout_fn == nullptr)
    throw std::runtime_error("gemm: JIT: cannot load " + launcher.string() + ": " + dlerror());
  std::vector<std::size_t> host(64);
  auto const read = reinterpret_cast<std::size_t (*)(std::size_t*, std::size_t)>(layout_fn);
  host.resize(std::min(host.size(), read(host.data(), host.size())));
  dlclose(handle);
  std::optional<std::string> const device =
      jit::cubin_symbol(cubin.image, std::string(kParamsLayoutSymbol));
  if (!device || device->size() != host.size() * sizeof(std::size_t) ||
      std::memcmp(device->data(), host.data(), device->size()) != 0)
    throw std::runtime_error("gemm: JIT: NVRTC laid out " + name_of(c) +
                             "'s Params otherwise than the launcher's compiler "
                             "(params_layout, kernels/gemm/sm90/config.cuh)");
}

// NVRTC's path (the default for plain configurations, jit_compiler_for): the launcher compiled by
// the host compiler while NVRTC compiles the kernel, whose layout of Params (held by the cubin)
// must be the launcher's (docs/design/nvrtc_jit.md §6). One cache entry of both files, keyed by the
// launcher's source and compiler and NVRTC's identity, with the headers of both: the launcher's as
// the host compiler lists them, the kernel's as nvcc -M does (NVRTC lists none), plus
// src/jit/nvrtc_std, the first of NVRTC's include directories. A lookup neither loads libnvrtc
// (its identity is its file's build ID, nvrtc.hpp) nor checks a header twice.
Launchers jit_compile_nvrtc(KernelConfig const& c) {
  jit::Toolchain const& toolchain = jit::Toolchain::of_build();
  jit::Toolchain const& host = jit::Toolchain::host_of_build();
  jit::NvrtcToolchain const& nvrtc = jit::NvrtcToolchain::of_build();
  std::string const launcher_source = nvrtc_launcher_source(c);
  std::vector<std::string> identity = link_identity();  // and NVRTC's: the entry holds its cubin
  identity.push_back(nvrtc.identity);
  std::string const key =
      jit::cache_key("gemm_sm90_nvrtc_" + name_of(c), launcher_source, host, identity);
  jit::KernelCache const cache(jit::KernelCache::default_dir(), toolchain.roots);
  auto const cached = [&]() -> Launchers {
    auto const files = cache.find_files(key);
    return files && files->size() == 2 ? load_nvrtc((*files)[0], (*files)[1]) : Launchers{};
  };
  if (Launchers const l = cached(); loaded(l)) return l;
  auto const lock = cache.lock(key);
  if (Launchers const l = cached(); loaded(l)) return l;
  fs::path const scratch = cache.scratch_dir();
  // The launcher (host compiler), the kernel (NVRTC) and the kernel's headers (nvcc -M) at once.
  NvrtcKernelSource const kernel = nvrtc_kernel_source(c, {});
  fs::path const launcher = scratch / "launcher.so";
  auto launcher_built = std::async(std::launch::async, [&] {
    return jit::compile_shared_object(host, launcher_source, launcher,
                                      link_flags(jit::SourceLanguage::Cxx),
                                      jit::SourceLanguage::Cxx);
  });
  auto includes = std::async(std::launch::async,
                             [&] { return jit::list_includes(toolchain, kernel.source, scratch); });
  jit::Cubin const cubin =
      jit::nvrtc_compile(nvrtc, kernel.source, name_of(c) + ".cu", {kernel.kernel});
  std::vector<fs::path> deps = launcher_built.get();
  check_params_layout(c, launcher, cubin);
  std::vector<fs::path> const kernel_deps = includes.get();
  deps.insert(deps.end(), kernel_deps.begin(), kernel_deps.end());
  for (auto const& e : fs::directory_iterator(nvrtc.roots.front()))  // src/jit/nvrtc_std
    if (e.is_regular_file()) deps.push_back(e.path());
  fs::path const cubin_file = scratch / "kernel.cubin";
  jit::write_cubin(cubin_file, cubin);
  std::vector<fs::path> const published = cache.publish(key, {launcher, cubin_file}, deps);
  std::error_code ignored;
  fs::remove_all(scratch, ignored);
  if (Launchers const l = load_nvrtc(published[0], published[1]); loaded(l)) return l;
  throw std::runtime_error("gemm: JIT: cannot load " + published[0].string() + " with " +
                           published[1].string());
}

}  // namespace

// NVRTC's path is the default (docs/design/nvrtc_jit.md §6: the same kernel, bit for bit, compiled
// in about two thirds of nvcc's time); nvcc compiles what NVRTC's path does not (grouped kernels,
// tiles from a queue), where libnvrtc does not load, where the user asks for it, and where NVRTC's
// path fails (with a note on stderr).
JitCompiler jit_compiler_for(KernelConfig const& c) {
  char const* const v = std::getenv("WARPLOOM_JIT_COMPILER");
  std::string const asked = v != nullptr ? v : "";
  if (!asked.empty() && asked != "nvrtc" && asked != "nvcc")
    throw std::invalid_argument("gemm: WARPLOOM_JIT_COMPILER=" + asked +
                                ": the JIT's compiler is nvrtc (the default) or nvcc");
  bool const nvrtc = asked != "nvcc" && !c.grouped && !c.dynamic_tiles && jit::nvrtc_available();
  return nvrtc ? JitCompiler::Nvrtc : JitCompiler::Nvcc;
}

namespace {

// Compiles `c` unless the kernel cache has it, and loads it.
Launchers jit_compile(KernelConfig const& c) {
  if (char const* v = std::getenv("WARPLOOM_JIT"); v != nullptr && std::string(v) == "0")
    throw std::runtime_error("gemm: the tensor-core configuration " + name_of(c) +
                             " is not prebuilt in this build and WARPLOOM_JIT=0 forbids "
                             "compiling it");
  if (jit_compiler_for(c) == JitCompiler::Nvrtc) {
    try {
      return jit_compile_nvrtc(c);
    } catch (std::exception const& e) {
      std::fprintf(stderr, "warploom: NVRTC could not compile %s, nvcc will: %s\n",
                   name_of(c).c_str(), e.what());
    }
  }
  jit::Toolchain const& toolchain = jit::Toolchain::of_build();
  KernelConfig const configs[] = {c};
  std::string const source = instance_source(configs, /*jit_entry=*/true);
  std::string const key =
      jit::cache_key("gemm_sm90_" + name_of(c), source, toolchain, link_identity());

  jit::KernelCache const cache(jit::KernelCache::default_dir(), toolchain.roots);
  if (auto const hit = cache.find(key))
    if (Launchers const l = load(*hit, c); loaded(l)) return l;
  auto const lock = cache.lock(key);  // another process compiling this key: wait, then reuse it
  if (auto const hit = cache.find(key))
    if (Launchers const l = load(*hit, c); loaded(l)) return l;
  fs::path const scratch = cache.scratch_dir();
  fs::path const built = scratch / "instance.so";
  std::vector<fs::path> const deps =
      jit::compile_shared_object(toolchain, source, built, link_flags());
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

PrebuiltInstance const* prebuilt(KernelConfig const& c) {
  auto const all = prebuilt_instances();
  auto const it = std::find_if(all.begin(), all.end(),
                               [&](PrebuiltInstance const& i) { return i.config == c; });
  return it != all.end() ? &*it : nullptr;
}

// The launchers of `c`: prebuilt, or compiled (or loaded from the kernel cache) once per process.
Launchers launchers_for(KernelConfig const& c) {
  // A prebuilt instance fits shared memory and runs a verified schedule, or the build would have
  // failed (its schedule unit's proof links it): gemm() calls this on every launch, so the checks
  // below run only for configurations on their way to the JIT, once each.
  if (PrebuiltInstance const* p = prebuilt(c)) return p->launchers;
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

std::string source_of(KernelConfig const& c) {
  KernelConfig const configs[] = {c};
  if (prebuilt(c) != nullptr) return instance_source(configs);
  if (jit_compiler_for(c) == JitCompiler::Nvcc)  // as jit_compile writes it
    return instance_source(configs, /*jit_entry=*/true);
  return fmt::format(
      "// {0}: compiled by the JIT in two parts (docs/design/nvrtc_jit.md).\n"
      "// ---- The kernel: NVRTC compiles it (device code only) ----\n{1}\n"
      "// ---- The launcher: the host compiler compiles it (it loads the kernel's cubin) ----\n{2}",
      name_of(c), nvrtc_kernel_source(c, {}).source, nvrtc_launcher_source(c));
}

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
