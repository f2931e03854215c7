// bench/bench_common.hpp
//
// What every benchmark here shares: the device facts each result file records (timing and
// statistics: warploom/harness/runner.hpp, statistics.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "warploom/device_info.hpp"

namespace warploom::bench {

inline nlohmann::json device_json(DeviceInfo const& d) {
  return {{"name", d.name},
          {"sm_count", d.sm_count},
          {"l2_bytes", d.l2_bytes},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version}};
}

}  // namespace warploom::bench
