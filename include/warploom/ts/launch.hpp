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

namespace detail {

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

template <class Manager, class... Params>
void allow_dynamic_smem(void (*kernel)(Params...)) {
  kernel_facts(reinterpret_cast<void const*>(kernel), [&](KernelFacts& f) {
    if (f.smem_allowed) return;
    WL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(Manager::smem_bytes)));
    f.smem_allowed = true;
  });
}

}  // namespace detail

namespace detail {

// Launches `kernel` on `grid` CTAs of Manager::num_threads threads with Manager::smem_bytes of
// dynamic shared memory, in clusters of Manager::cluster_size CTAs along x.
template <class Manager, class... Params, class... Args>
void launch_checked(std::string_view name, StreamOrder order, void (*kernel)(Params...), dim3 grid,
                    cudaStream_t stream, Args&&... args) {
  allow_dynamic_smem<Manager>(kernel);
  if constexpr (Manager::cluster_size > 1) {
    if (grid.x % Manager::cluster_size != 0)
      throw std::invalid_argument(std::string(name) + ": grid.x = " + std::to_string(grid.x) +
                                  " is not a multiple of the cluster size " +
                                  std::to_string(Manager::cluster_size));
  }
  if (Manager::cluster_size == 1 && order == StreamOrder::Serial) {
    kernel<<<grid, Manager::num_threads, Manager::smem_bytes, stream>>>(
        std::forward<Args>(args)...);
  } else {
    std::array<cudaLaunchAttribute, 2> attrs;
    cudaLaunchConfig_t const config = launch_config<Manager>(grid, stream, order, attrs);
    WL_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
  }
  WL_CUDA_CHECK(cudaGetLastError());
}

}  // namespace detail

// Verifies `Manager` once per process (verify_once), then launches `kernel` on `grid` CTAs of
// Manager::num_threads threads with Manager::smem_bytes of dynamic shared memory, in clusters of
// Manager::cluster_size CTAs along x (grid.x must be a multiple of it).
template <class Manager, class... Params, class... Args>
void launch(std::string_view name, void (*kernel)(Params...), dim3 grid, cudaStream_t stream,
            Args&&... args) {
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
template <class Manager, class Schedule, class... Params, class... Args>
void launch(Verified<Schedule> proof, StreamOrder order, void (*kernel)(Params...), dim3 grid,
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
template <class Manager, class Schedule, class... Params, class... Args>
void launch(Verified<Schedule> proof, void (*kernel)(Params...), dim3 grid, cudaStream_t stream,
            Args&&... args) {
  launch<Manager>(proof, StreamOrder::Serial, kernel, grid, stream, std::forward<Args>(args)...);
}

// How many clusters of Manager::cluster_size CTAs can be resident at once (the persistent grid of
// a cluster kernel: not every SM count divides into clusters, GPCs bound them).
template <class Manager, class... Params>
int max_active_clusters(void (*kernel)(Params...)) {
  detail::allow_dynamic_smem<Manager>(kernel);
  auto const ask = [&](detail::KernelFacts& f) {
    if (f.max_active_clusters >= 0) return;
    std::array<cudaLaunchAttribute, 2> attrs;
    cudaLaunchConfig_t const config = detail::launch_config<Manager>(
        dim3(static_cast<unsigned>(Manager::cluster_size)), nullptr, StreamOrder::Serial, attrs);
    int clusters = 0;
    WL_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    f.max_active_clusters = clusters;
  };
  return detail::kernel_facts(reinterpret_cast<void const*>(kernel), ask).max_active_clusters;
}

}  // namespace warploom::ts
