// warploom/ts/launch.hpp
//
// Host side of a TS kernel launch: opts into the dynamic shared memory the allocator computed and
// launches with the TaskManager's block size — after verifying the TaskManager once per process
// (a violation throws before anything runs, with the schedule table and every finding), or, for a
// kernel whose schedule was verified when it was built, with that proof and no check at all:
//
//   ts::launch<Manager>("name", kernel, grid, stream, params...);        // verified at first
//   launch ts::launch<Manager>(ts::verified<Schedule>(), kernel, grid, stream, params...);  // at
//   build
//
// `kernel` is a __global__ function, or a ts::KernelHandle: a kernel loaded at run time (a cubin
// NVRTC compiled, src/jit/nvrtc.hpp), launched by handle from code that a host compiler alone
// compiles (no <<<>>>, no kernel symbol).
#pragma once

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>  // std::pair, std::forward

#include <cuda_runtime_api.h>

#include "warploom/cuda_check.hpp"
#include "warploom/ts/manager_traits.hpp"
#include "warploom/ts/print.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/stream_order.hpp"
#include "warploom/ts/verifier.hpp"

namespace warploom::ts {

class VerificationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Verifies `Manager` once per process; throws ts::VerificationError with the findings. With the
// environment variable WARPLOOM_PRINT_SCHEDULES set, prints the schedule table to stderr.
template <class Manager>
void verify_once(std::string_view name) {
  static bool const verified = [&] {
    ManagerModel m = Manager::model(name);
    Report r = verify_model(m);
    if (!r.ok())
      throw VerificationError("TaskManager `" + std::string(name) + "` failed verification\n" +
                              schedule_table(m, &r));
    if (std::getenv("WARPLOOM_PRINT_SCHEDULES"))
      std::fprintf(stderr, "%s\n", schedule_table(m, &r).c_str());
    return true;
  }();
  (void)verified;
}

// A __global__ function loaded at run time (cudaLibraryGetKernel), with the parameter types its
// source declares: the caller's word, which nothing here can check (the GEMM's NVRTC source
// asserts its Params' layout). The runtime takes a cudaKernel_t wherever it takes a kernel's
// address.
template <class... Params>
struct KernelHandle {
  cudaKernel_t kernel = nullptr;
};

namespace detail {

template <class... Params>
void const* kernel_address(void (*kernel)(Params...)) {
  return reinterpret_cast<void const*>(kernel);
}
template <class... Params>
void const* kernel_address(KernelHandle<Params...> kernel) {
  return reinterpret_cast<void const*>(kernel.kernel);
}
inline void const* kernel_address(void const* kernel) {
  return kernel;
}

// Launches by address with the runtime's C entry point: the arguments converted to the kernel's
// parameter types, one pointer to each.
template <class... Params, class... Args>
cudaError_t launch_by_address(cudaLaunchConfig_t const& config, void const* kernel,
                              Args&&... args) {
  std::tuple<std::remove_cvref_t<Params>...> values{std::forward<Args>(args)...};
  return std::apply(
      [&](auto&... v) {
        void* pointers[] = {static_cast<void*>(&v)..., nullptr};
        return cudaLaunchKernelExC(&config, kernel, pointers);
      },
      values);
}

// A launch of Manager's block and shared memory on `grid`, in clusters of Manager::cluster_size
// CTAs along x, after the stream's previous kernel as `order` says (`attrs` holds the attributes
// the config points to).
template <class Manager>
cudaLaunchConfig_t launch_config(dim3 grid, cudaStream_t stream, StreamOrder order,
                                 std::array<cudaLaunchAttribute, 2>& attrs) {
  attrs = {};
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim = {static_cast<unsigned>(Manager::cluster_size), 1, 1};
  attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(Manager::num_threads);
  config.dynamicSmemBytes = static_cast<std::size_t>(Manager::smem_bytes);
  config.stream = stream;
  config.attrs = attrs.data();
  config.numAttrs = order == StreamOrder::Programmatic ? 2 : 1;
  return config;
}

// What a launch asks of the runtime about one kernel on the current device, asked once: the
// attribute call and the occupancy query cost a launch about as much as the launch itself (a
// per-call budget of a few microseconds, issue 13). Keyed by the kernel's address and the device
// (an attribute is per device); kernels stay loaded for the process (JIT libraries are never
// unloaded), so an address names one kernel. A failed query is not remembered.
struct KernelFacts {
  bool smem_allowed = false;
  int max_active_clusters = -1;  // -1: not asked yet
};
struct KernelFactsTable {
  std::mutex mutex;
  std::map<std::pair<void const*, int>, KernelFacts> facts;
};
inline KernelFactsTable& kernel_facts_table() {
  static KernelFactsTable table;
  return table;
}
// `update` completes kernel's facts on the current device (under the table's lock); returns them.
template <class Update>
KernelFacts kernel_facts(void const* kernel, Update&& update) {
  int device = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  KernelFactsTable& table = kernel_facts_table();
  std::lock_guard const lock(table.mutex);
  KernelFacts& f = table.facts[{kernel, device}];
  update(f);
  return f;
}

template <class Manager, class Kernel>
void allow_dynamic_smem(Kernel kernel) {
  void const* const address = kernel_address(kernel);
  kernel_facts(address, [&](KernelFacts& f) {
    if (f.smem_allowed) return;
    WL_CUDA_CHECK(cudaFuncSetAttribute(address, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(Manager::smem_bytes)));
    f.smem_allowed = true;
  });
}

}  // namespace detail

namespace detail {

template <class Manager>
void check_cluster_grid(std::string_view name, dim3 grid) {
  if constexpr (Manager::cluster_size > 1) {
    if (grid.x % Manager::cluster_size != 0)
      throw std::invalid_argument(std::string(name) + ": grid.x = " + std::to_string(grid.x) +
                                  " is not a multiple of the cluster size " +
                                  std::to_string(Manager::cluster_size));
  }
}

// Launches the kernel at `kernel` (its address, or a cudaKernel_t) taking Params on `grid` CTAs of
// Manager::num_threads threads with Manager::smem_bytes of dynamic shared memory, in clusters of
// Manager::cluster_size CTAs along x; a non-cluster serial launch carries no attribute, as
// <<<>>> would.
template <class Manager, class... Params, class... Args>
void launch_at(std::string_view name, StreamOrder order, void const* kernel, dim3 grid,
               cudaStream_t stream, Args&&... args) {
  allow_dynamic_smem<Manager>(kernel);
  check_cluster_grid<Manager>(name, grid);
  std::array<cudaLaunchAttribute, 2> attrs;
  cudaLaunchConfig_t config = launch_config<Manager>(grid, stream, order, attrs);
  if (Manager::cluster_size == 1 && order == StreamOrder::Serial) config.numAttrs = 0;
  WL_CUDA_CHECK(launch_by_address<Params...>(config, kernel, std::forward<Args>(args)...));
  WL_CUDA_CHECK(cudaGetLastError());
}

// The same for a __global__ function: with <<<>>> where nvcc compiles the launch.
template <class Manager, class... Params, class... Args>
void launch_checked(std::string_view name, StreamOrder order, void (*kernel)(Params...), dim3 grid,
                    cudaStream_t stream, Args&&... args) {
#if defined(__CUDACC__)
  allow_dynamic_smem<Manager>(kernel);
  check_cluster_grid<Manager>(name, grid);
  if (Manager::cluster_size == 1 && order == StreamOrder::Serial) {
    kernel<<<grid, Manager::num_threads, Manager::smem_bytes, stream>>>(
        std::forward<Args>(args)...);
  } else {
    std::array<cudaLaunchAttribute, 2> attrs;
    cudaLaunchConfig_t const config = launch_config<Manager>(grid, stream, order, attrs);
    WL_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
  }
  WL_CUDA_CHECK(cudaGetLastError());
#else
  launch_at<Manager, Params...>(name, order, kernel_address(kernel), grid, stream,
                                std::forward<Args>(args)...);
#endif
}
// And for a kernel loaded at run time.
template <class Manager, class... Params, class... Args>
void launch_checked(std::string_view name, StreamOrder order, KernelHandle<Params...> kernel,
                    dim3 grid, cudaStream_t stream, Args&&... args) {
  launch_at<Manager, Params...>(name, order, kernel_address(kernel), grid, stream,
                                std::forward<Args>(args)...);
}

}  // namespace detail

// Verifies `Manager` once per process (verify_once), then launches `kernel` on `grid` CTAs of
// Manager::num_threads threads with Manager::smem_bytes of dynamic shared memory, in clusters of
// Manager::cluster_size CTAs along x (grid.x must be a multiple of it).
template <class Manager, class Kernel, class... Args>
void launch(std::string_view name, Kernel kernel, dim3 grid, cudaStream_t stream, Args&&... args) {
  static_assert(Manager::options.verified_in != VerifiedIn::ScheduleUnit,
                "ts::launch: this TaskManager is verified in its schedule unit; launch it with "
                "ts::launch<Manager>(ts::verified<Schedule>(), ...)");
  verify_once<Manager>(name);
  detail::launch_checked<Manager>(name, StreamOrder::Serial, kernel, grid, stream,
                                  std::forward<Args>(args)...);
}

// Launches an instance of `Schedule` (the same tasks, pipelines and shared memory, other work
// bodies) with the proof that its schedule unit verified it: no check at run time. `order`:
// StreamOrder::Programmatic lets its CTAs start while the stream's previous kernel still runs
// (see StreamOrder).
template <class Manager, class Schedule, class Kernel, class... Args>
void launch(Verified<Schedule> proof, StreamOrder order, Kernel kernel, dim3 grid,
            cudaStream_t stream, Args&&... args) {
  using Verified = typename Schedule::Manager;
  static_assert(Manager::num_threads == Verified::num_threads &&
                    Manager::smem_bytes == Verified::smem_bytes &&
                    Manager::cluster_size == Verified::cluster_size,
                "ts::launch: the kernel's TaskManager is not an instance of the verified schedule "
                "(its block, shared memory or cluster differ)");
  detail::launch_checked<Manager>(proof.name, order, kernel, grid, stream,
                                  std::forward<Args>(args)...);
}
template <class Manager, class Schedule, class Kernel, class... Args>
void launch(Verified<Schedule> proof, Kernel kernel, dim3 grid, cudaStream_t stream,
            Args&&... args) {
  launch<Manager>(proof, StreamOrder::Serial, kernel, grid, stream, std::forward<Args>(args)...);
}

// How many clusters of Manager::cluster_size CTAs can be resident at once (the persistent grid of
// a cluster kernel: not every SM count divides into clusters, GPCs bound them).
template <class Manager, class Kernel>
int max_active_clusters(Kernel kernel) {
  detail::allow_dynamic_smem<Manager>(kernel);
  auto const ask = [&](detail::KernelFacts& f) {
    if (f.max_active_clusters >= 0) return;
    std::array<cudaLaunchAttribute, 2> attrs;
    cudaLaunchConfig_t const config = detail::launch_config<Manager>(
        dim3(static_cast<unsigned>(Manager::cluster_size)), nullptr, StreamOrder::Serial, attrs);
    int clusters = 0;
    WL_CUDA_CHECK(
        cudaOccupancyMaxActiveClusters(&clusters, detail::kernel_address(kernel), &config));
    f.max_active_clusters = clusters;
  };
  return detail::kernel_facts(detail::kernel_address(kernel), ask).max_active_clusters;
}

}  // namespace warploom::ts
