// src/gemm/sm90_instances.cpp — configuration names and the lookup of compiled instances.
#include "sm90_instances.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gemm/sm90/shape.hpp"
#include "warploom/ts/model.hpp"

namespace warploom::gemm::sm90 {
namespace {

struct DesignDefaults {
  int tile_m, tile_n, stages, staging_buffers, slots;
};

// The designs' tiles and defaults (cooperative.hpp, pingpong.hpp).
DesignDefaults defaults_of(ConsumerDesign d) {
  if (d == ConsumerDesign::PingPong) return {128, 128, 6, 1, 2};
  return {128, 256, 4, 2, 1};
}

}  // namespace

std::string name_of(KernelConfig const& c) {
  std::string const layouts = std::string(c.a_k_major ? "t" : "n") + (c.b_k_major ? "n" : "t");
  return std::string(to_string(c.in)) + "_" + std::string(to_string(c.out)) + "_" + layouts + "_" +
         std::string(to_string(c.design)) + "_s" + std::to_string(c.stages) + "_b" +
         std::to_string(c.staging_buffers) + "_" + std::to_string(c.cluster_m) + "x" +
         std::to_string(c.cluster_n);
}

KernelConfig config_of(GemmArguments const& r, GemmTuning const& tuning) {
  DesignDefaults const d = defaults_of(tuning.design);
  return {
      .in = r.a.type,
      .out = r.d_type,
      .a_k_major = r.a.layout == MatrixLayout::RowMajor,
      .b_k_major = r.b.layout == MatrixLayout::ColMajor,
      .design = tuning.design,
      .stages = tuning.stages != 0 ? tuning.stages : d.stages,
      .staging_buffers = tuning.staging_buffers != 0 ? tuning.staging_buffers : d.staging_buffers,
      .cluster_m = tuning.cluster_m,
      .cluster_n = tuning.cluster_n};
}

LaunchFn instance_for(KernelConfig const& c) {
  DesignDefaults const d = defaults_of(c.design);
  long long const bytes =
      smem_payload_bytes(d.tile_m, d.tile_n, c.stages, c.staging_buffers, d.slots);
  if (bytes > ts::kSmemCapacityBytes)
    throw std::invalid_argument(
        "gemm: tuning.stages = " + std::to_string(c.stages) +
        " and tuning.staging_buffers = " + std::to_string(c.staging_buffers) +
        " do not fit shared memory with the " + std::string(to_string(c.design)) +
        " design: " + std::to_string(bytes) + " bytes of stages and staging needed, " +
        std::to_string(ts::kSmemCapacityBytes) + " available per block");
  auto const all = prebuilt_instances();
  auto const it = std::find_if(all.begin(), all.end(),
                               [&](PrebuiltInstance const& i) { return i.config == c; });
  if (it != all.end()) return it->launch;
  throw std::runtime_error("gemm: the tensor-core configuration " + name_of(c) +
                           " is not compiled into this build (" + std::to_string(all.size()) +
                           " are; configure with -DWARPLOOM_GEMM_INSTANCES=all for every one)");
}

}  // namespace warploom::gemm::sm90
