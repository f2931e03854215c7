// src/ops/tile_description.cpp — names and text of tile descriptions
// (warploom/ops/tile_description.hpp).
#include "warploom/ops/tile_description.hpp"

#include <fmt/format.h>

namespace warploom::ops {

std::string_view to_string(OperatorClass c) {
  switch (c) {
    case OperatorClass::Auto:
      return "auto";
    case OperatorClass::TensorOp:
      return "tensor-op";
    case OperatorClass::Simt:
      return "simt";
  }
  return "?";
}

std::string_view to_string(TileScheduler s) {
  switch (s) {
    case TileScheduler::Persistent:
      return "persistent";
    case TileScheduler::StreamK:
      return "stream-k";
    case TileScheduler::SplitK:
      return "split-k";
  }
  return "?";
}

bool operator==(TileDescription const& x, TileDescription const& y) {
  return x.opclass == y.opclass && x.design == y.design && x.tile_m == y.tile_m &&
         x.tile_n == y.tile_n && x.tile_k == y.tile_k && x.cluster_m == y.cluster_m &&
         x.cluster_n == y.cluster_n && x.stages == y.stages &&
         x.staging_buffers == y.staging_buffers && x.raster_panel == y.raster_panel &&
         x.max_ctas == y.max_ctas && x.scheduler == y.scheduler && x.split_k == y.split_k;
}

std::string to_string(TileDescription const& td) {
  bool const simt = td.opclass == OperatorClass::Simt;
  std::string s = fmt::format("{} {}x{}x{}, {} stages", simt ? "simt" : gemm::to_string(td.design),
                              td.tile_m, td.tile_n, td.tile_k, td.stages);
  if (!simt || td.staging_buffers != 0)
    s += fmt::format(", {} staging buffer{}", td.staging_buffers,
                     td.staging_buffers == 1 ? "" : "s");
  if (!simt || td.cluster_m != 1 || td.cluster_n != 1)
    s += fmt::format(", cluster {}x{}", td.cluster_m, td.cluster_n);
  s += fmt::format(", raster panel {}", td.raster_panel);
  if (td.max_ctas != 0) s += fmt::format(", at most {} CTAs", td.max_ctas);
  if (td.scheduler != TileScheduler::Persistent)
    s += fmt::format(", {} scheduler", to_string(td.scheduler));
  if (td.scheduler == TileScheduler::SplitK)
    s += td.split_k == 0 ? std::string(", slices per problem")
                         : fmt::format(", {} slices", td.split_k);
  else if (td.split_k != 0)
    s += fmt::format(", split_k {}", td.split_k);
  return s;
}

}  // namespace warploom::ops
