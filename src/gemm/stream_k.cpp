// src/gemm/stream_k.cpp — stream-K's checks and launch (stream_k.hpp).
#include "stream_k.hpp"

#include <optional>

#include "gemm/stream_k_decomposition.hpp"  // the kernel's decomposition (kernels/gemm)
#include "sm90_instances.hpp"
#include "split_k.hpp"
#include "workspace.hpp"

namespace warploom::gemm {

std::string stream_k_violation(GemmTuning const& tuning) {
  if (tuning.kernel == GemmKernel::Simt)
    return "runs on the tensor-core GEMM (tuning.kernel = simt asks for the SIMT GEMM)";
  if (tuning.design == ConsumerDesign::PingPong)
    return "runs on the cooperative design, whose two warpgroups hold the whole tile that a "
           "piece adds (tuning.design = pingpong; leave it auto or ask for cooperative)";
  if (tuning.cluster_m != 1 || tuning.cluster_n != 1)
    return "runs 1x1 clusters (tuning.cluster_m x cluster_n = " + std::to_string(tuning.cluster_m) +
           "x" + std::to_string(tuning.cluster_n) + ")";
  if (tuning.split_k > 1)
    return "and split-K (tuning.split_k = " + std::to_string(tuning.split_k) +
           ") are two ways to cut K: ask for one";
  return {};
}

std::size_t stream_k_workspace_bytes(GemmTuning const& tuning, int sms) {
  int const ctas = stream_k_grid(sms, tuning.max_ctas);
  // The widest tile: a narrower one (tile_n, chosen later) takes less of the same workspace.
  sm90::DesignShape const shape = sm90::design_shape(ConsumerDesign::Cooperative);
  return static_cast<std::size_t>(gemm::stream_k_workspace_bytes(ctas, shape.tile_m, shape.tile_n));
}

void run_stream_k(GemmArguments const& r, GemmTuning tuning, cudaStream_t stream) {
  tuning.design = ConsumerDesign::Cooperative;
  GemmArguments a = r;
  std::optional<StreamWorkspace> pooled;
  if (a.workspace == nullptr) {
    a.workspace_bytes = stream_k_workspace_bytes(tuning, current_sm_count());
    a.workspace = pooled.emplace(a.workspace_bytes, stream).get();
  }
  sm90::instance_for(sm90::config_of(a, tuning))(a, tuning, {}, stream);
}

}  // namespace warploom::gemm
