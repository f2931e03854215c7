// kernels/registry.cpp
#include "registry.hpp"

#include "gemm/gemm.hpp"
#include "tutorial/grid_stride_copy.hpp"
#include "tutorial/tma_copy.hpp"

namespace warploom {

std::vector<BundledKernel> const& bundled_kernels() {
  using tutorial::GridStrideVariant;
  using tutorial::TmaCopyVariant;
  static std::vector<BundledKernel> const kernels{
      {"grid_stride_copy", "tutorial 01: 1-D int16 copy, one item per iteration (the seed's)",
       [] { return tutorial::grid_stride_copy_model(GridStrideVariant::Scalar); }},
      {"grid_stride_copy_vector", "tutorial 01: 1-D int16 copy, 16-byte items",
       [] { return tutorial::grid_stride_copy_model(GridStrideVariant::Vector); }},
      {"tma_copy", "tutorial 02: 2-D fp16 TMA copy, 1 stage of 128x1 tiles (the seed's)",
       [] { return tutorial::tma_copy_model(TmaCopyVariant::Seed); }},
      {"tma_copy_multistage", "tutorial 02: 2-D fp16 TMA copy, 4 stages of 128x64 tiles",
       [] { return tutorial::tma_copy_model(TmaCopyVariant::MultiStage); }},
      {"sm90_ts_gemm",
       "GEMM: persistent, TMA load warp -> 4-stage smem -> two wgmma warpgroups, lagged release",
       [] { return gemm::gemm_model(); }},
      {"sm90_ts_gemm_pingpong",
       "GEMM: persistent, TMA load warp -> one 6-stage smem ring -> two wgmma warpgroups taking "
       "turns, one storing its tile while the other computes",
       [] { return gemm::gemm_pingpong_model(); }},
      {"simt_gemm",
       "GEMM without tensor cores: persistent, 4 load warps -> 3-stage smem (threads -> threads) "
       "-> 8 FMA warps",
       [] { return gemm::simt_gemm_model(); }},
  };
  return kernels;
}

}  // namespace warploom
