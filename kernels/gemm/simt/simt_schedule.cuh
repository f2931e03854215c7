// kernels/gemm/simt/simt_schedule.cuh
//
// The SIMT GEMM's schedule as its schedule unit registers it (the fp32 configuration: the others
// differ in stage sizes only).
#pragma once

#include <string_view>

#include "gemm/simt/simt_gemm.cuh"

namespace warploom::gemm::simt {

struct SimtSchedule {
  using Manager = SimtGemm<float, float, 32, 3>::Manager;
  static constexpr std::string_view kName = "simt_gemm";
  static constexpr std::string_view kDescription =
      "GEMM without tensor cores: persistent, 4 load warps -> 3-stage smem (threads -> threads) "
      "-> 8 FMA warps";
};

}  // namespace warploom::gemm::simt
