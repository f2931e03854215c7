// warploom/harness/device_json.hpp
//
// The device facts every result file records, as JSON (gemm_bench, copy_bench, warploom bench).
#pragma once

#include <nlohmann/json.hpp>

#include "warploom/device_info.hpp"

namespace warploom::harness {

inline nlohmann::json device_json(DeviceInfo const& d) {
  return {{"name", d.name},
          {"sm_count", d.sm_count},
          {"l2_bytes", d.l2_bytes},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version}};
}

}  // namespace warploom::harness
