// warploom/ops/tile_description.hpp
//
// warploom::ops::TileDescription: one configuration of a GEMM kernel, as a plan lists them
// (Gemm::tile_descriptions) and compiles one (Gemm::compile). A plan derives the list from what
// the library can run — the sm90 configurations whose schedules this build verified, the SIMT
// GEMM's shape — so it never names a kernel that does not exist; a description edited by hand is
// checked when compiled, and refused with the reason and the numbers.
//
// Split-K (TileScheduler::SplitK, src/gemm/split_k.hpp) and stream-K (TileScheduler::StreamK,
// src/gemm/stream_k_decomposition.hpp) cut K; a description names which.
#pragma once

#include <string>
#include <string_view>

#include "warploom/gemm.hpp"

namespace warploom::ops {

// Which units compute the products. TensorOp: the sm90 TS GEMM (TMA, wgmma); Simt: the SIMT TS
// GEMM (FMA on the CUDA cores); Auto: TensorOp whenever the plan's types and layouts allow it,
// else Simt (as CUTLASS's plan chooses).
enum class OperatorClass { Auto, TensorOp, Simt };
std::string_view to_string(OperatorClass c);  // "auto", "tensor-op", "simt"

// How output tiles are shared among CTAs. Persistent: each CTA walks whole tiles. SplitK: K is cut
// into slices, each slice's tiles computed into an fp32 workspace by the description's kernel, then
// the slices added in a fixed order (the same bits every run) with alpha, beta and C — for small
// outputs with a long K; one matrix, the plain epilogue, a 16-bit or fp32 D. StreamK: the tiles
// past the last whole wave of the persistent grid cut along K and their K iterations shared evenly
// by every CTA, a tile's pieces added in a fixed order before its epilogue (fused ops, batches and
// every D type included; gemm::TileScheduling::StreamK); the cooperative design, 1x1 clusters.
enum class TileScheduler { Persistent, StreamK, SplitK };
std::string_view to_string(TileScheduler s);  // "persistent", "stream-k", "split-k"

// ops::TileDescription
//
// Tile and cluster are in D's terms: tile_m rows and tile_n columns of D per accumulator tile (a
// plan with a column-major D runs the kernel on D's transpose, so its kernel tile reads
// transposed here), tile_k elements of K per stage. A split-K description whose tile reads
// transposed as no tile of D's own does (64x128 for a row-major D) computes its slices on
// D^T = B^T . A^T: 64 of D's rows and 128 of its columns per tile, for a D of few rows.
struct TileDescription {
  OperatorClass opclass = OperatorClass::TensorOp;  // TensorOp or Simt
  // TensorOp: Cooperative (both consumer warpgroups on one tile) or PingPong (one tile each,
  // alternating main loop and epilogue); Simt: Auto (no such choice).
  gemm::ConsumerDesign design = gemm::ConsumerDesign::Cooperative;
  int tile_m = 0, tile_n = 0, tile_k = 0;  // set by the design and the input type
  int cluster_m = 1, cluster_n = 1;        // TensorOp: 1x1, 2x1 or 1x2; Simt: 1x1
  int stages = 0;                          // the A/B ring
  int staging_buffers = 0;                 // TensorOp: the epilogue's D buffers; Simt: 0
  // Run-time knobs, free to change after listing: consecutive tile rows a CTA sweep walks before
  // moving right (L2 reuse of B), and a cap on the persistent grid (0: one CTA per SM).
  int raster_panel = 8;
  int max_ctas = 0;
  TileScheduler scheduler = TileScheduler::Persistent;
  // SplitK: slices of K (0: per problem, as many as fill the device's SMs with its tiles, as
  // gemm()'s Auto; else 2 to 32). 0 with any other scheduler.
  int split_k = 0;
};

// Every member equal (written out: the public headers stay C++17, like warploom/gemm.hpp).
bool operator==(TileDescription const& x, TileDescription const& y);
inline bool operator!=(TileDescription const& x, TileDescription const& y) {
  return !(x == y);
}

// e.g. "cooperative 128x256x64, 4 stages, 2 staging buffers, cluster 1x1, raster panel 8", or
// "simt 128x128x32, 3 stages, raster panel 8"; a non-zero max_ctas and a scheduler other than
// Persistent are added (split-K with its slices: ", split-k scheduler, 4 slices").
std::string to_string(TileDescription const& td);

}  // namespace warploom::ops
