// bench/bench_common.hpp
//
// What every benchmark here shares: a CUDA-event timer for one launch and the device facts each
// result file records (statistics: warploom/harness/statistics.hpp).
#pragma once

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "warploom/cuda_check.hpp"
#include "warploom/device_info.hpp"

namespace warploom::bench {

// Times one launch (whatever `run` enqueues on the default stream) with CUDA events.
class EventTimer {
 public:
  EventTimer() {
    WL_CUDA_CHECK(cudaEventCreate(&start_));
    WL_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(EventTimer const&) = delete;
  EventTimer& operator=(EventTimer const&) = delete;

  template <class Run>
  float milliseconds(Run&& run) {
    WL_CUDA_CHECK(cudaEventRecord(start_));
    run();
    WL_CUDA_CHECK(cudaEventRecord(stop_));
    WL_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    WL_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

inline nlohmann::json device_json(DeviceInfo const& d) {
  return {{"name", d.name},
          {"sm_count", d.sm_count},
          {"l2_bytes", d.l2_bytes},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version}};
}

}  // namespace warploom::bench
