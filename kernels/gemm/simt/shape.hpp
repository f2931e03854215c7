// kernels/gemm/simt/shape.hpp
//
// What a SIMT TS GEMM schedule depends on: numbers, no types. The stages hold A and B widened to
// the compute type, so the one fact of the element types that reaches the schedule is the
// accumulator's size: it sets the tile's width and the rows' padding, and with them the bytes of a
// stage. Every type pair with fp32 accumulation (fp16, bf16, fp8 and fp32 inputs, any output) has
// one schedule for a K tile and stage count, verified once (schedule_unit.hpp); fp64 has another.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

namespace warploom::gemm::simt {

// kAccBytes: the accumulator's size, 4 (fp32) or 8 (fp64); kTileK x kStages: the stage ring.
template <int kAccBytes_, int kTileK_, int kStages_>
struct Shape {
  static constexpr int kAccBytes = kAccBytes_;
  static constexpr int kTileK = kTileK_;
  static constexpr int kStages = kStages_;

  // A math thread owns kThreadM x kThreadN outputs as 4 x 4 sub-blocks spread over its warp's
  // tile: a sub-block row of 4 values is one 16-byte shared-memory read (two for fp64), and the
  // lanes that share a row block read the same address (a broadcast), so the reads of a warp never
  // conflict. 8 x 8 fp32 (4 x 4 is too little reuse: 8 reads per 16 FMAs) or 8 x 4 fp64 (8 x 8
  // doubles are 128 registers of accumulators alone, beyond the 168 the budget allows with
  // operands and addresses).
  static constexpr int kSub = 4;
  static constexpr int kThreadM = 8;
  static constexpr int kThreadN = kAccBytes == 8 ? 4 : 8;
  static constexpr int kLanesM = 4, kLanesN = 8;  // a warp's lanes over its tile
  static constexpr int kWarpsM = 4, kWarpsN = 2;  // the math warps over the CTA tile
  static constexpr int kWarpTileM = kLanesM * kThreadM;
  static constexpr int kWarpTileN = kLanesN * kThreadN;
  static constexpr int kTileM = kWarpsM * kWarpTileM;  // 128
  static constexpr int kTileN = kWarpsN * kWarpTileN;  // 128 (fp32 accumulation), 64 (fp64)
  static constexpr int kMathWarps = kWarpsM * kWarpsN;
  static constexpr int kMathThreads = kMathWarps * 32;
  static constexpr int kLoadWarp = kMathWarps;  // the load task's first warp
  static constexpr int kLoadThreads = 4 * 32;
  static constexpr int kSubStrideM = kLanesM * kSub;  // rows between a thread's sub-blocks
  static constexpr int kSubStrideN = kLanesN * kSub;  // columns between them

  // Shared memory holds A as (K, M) and B as (K, N) rows of the compute type. The rows are padded
  // by 16 bytes: the load mapping that walks K (a K-contiguous operand) writes down a column of
  // the stage, whose K values would all share one bank unpadded (a 32-way conflict); padded they
  // spread over 8 banks (4-way at a K tile of 32, 2-way at 16), and every row stays 16-byte
  // aligned for the math threads' vector reads. Sizes in elements of the compute type.
  static constexpr int kPad = 16 / kAccBytes;
  static constexpr int kPitchA = kTileM + kPad;
  static constexpr int kPitchB = kTileN + kPad;
  static constexpr int kStageA = kTileK * kPitchA;  // (BLK_K, BLK_M + PAD)
  static constexpr int kStageB = kTileK * kPitchB;  // (BLK_K, BLK_N + PAD)
  static constexpr int kStageBytesA = kStageA * kAccBytes;
  static constexpr int kStageBytesB = kStageB * kAccBytes;
  // Values of A and B one load thread carries per stage.
  static constexpr int kLoadA = kTileM * kTileK / kLoadThreads;
  static constexpr int kLoadB = kTileN * kTileK / kLoadThreads;

  // Preconditions
  static_assert(kAccBytes == 4 || kAccBytes == 8, "fp32 or fp64 accumulation");
  static_assert(kStages >= 2, "a ring needs two stages to overlap the loads and the FMA");
  static_assert(kThreadM % kSub == 0 && kThreadN % kSub == 0,
                "a thread's output block is made of whole 4 x 4 sub-blocks");
  static_assert(kLoadThreads % kTileK == 0 && kLoadThreads % kTileM == 0 &&
                    kLoadThreads % kTileN == 0,
                "both load thread mappings need the load threads to cover whole K runs and whole "
                "tile columns (kTileK, kTileM, kTileN divide kLoadThreads)");
  static_assert(kTileM * kTileK % kLoadThreads == 0 && kTileN * kTileK % kLoadThreads == 0,
                "every load thread carries the same number of values");
  static_assert(kPitchA * kAccBytes % 16 == 0 && kPitchB * kAccBytes % 16 == 0,
                "shared-memory rows must stay 16-byte aligned for the vector reads");
};

// The shapes gemm() runs, by accumulator size. K tile and stages, measured on the H200 at 4096³
// (TFLOP/s, A and B row-major / both column-major; fp32 peak about 67, fp64 about 33): fp32 K16 x
// 4 stages 30.8 / 30.6, K32 x 4 33.2 / 33.4, K32 x 3 32.8 / 32.9, K8 x 4 26.0 / 27.9, K16 x 8
// 30.3 / 30.2; bf16 K16 x 4 25.5, K32 x 4 28.0; fp64 K8, K16 x 4 and K32 x 3 all 18.0-18.5. Longer
// K tiles halve the per-stage barrier and pipeline-restart overhead of the math warps; more stages
// buy nothing. K32 x 3 keeps fp32 stages at 101 KiB of shared memory; fp64 stays at K16 x 4
// (100 KiB). kernels/gemm/CMakeLists.txt registers both schedules.
template <int kAccBytes>
using DefaultShape = std::conditional_t<kAccBytes == 8, Shape<8, 16, 4>, Shape<4, 32, 3>>;

// Text built at compile time: a schedule's registry name and description.
struct ScheduleText {
  char text[160] = {};
  std::size_t size = 0;

  constexpr void append(std::string_view s) {
    for (char c : s) text[size++] = c;
  }
  constexpr void append(int value) {
    if (value >= 10) append(value / 10);
    text[size++] = static_cast<char>('0' + value % 10);
  }
  constexpr std::string_view view() const { return {text, size}; }
};

// A schedule's registry name: "simt_gemm" for fp32 accumulation, "simt_gemm_fp64" for fp64, then
// what differs from DefaultShape (`_k16`: a K tile of 16, `_s4`: 4 stages), e.g.
// "simt_gemm_k16_s4".
template <class S>
constexpr ScheduleText schedule_name() {
  using Default = DefaultShape<S::kAccBytes>;
  ScheduleText n;
  n.append("simt_gemm");
  if (S::kAccBytes == 8) n.append("_fp64");
  if (S::kTileK != Default::kTileK) {
    n.append("_k");
    n.append(S::kTileK);
  }
  if (S::kStages != Default::kStages) {
    n.append("_s");
    n.append(S::kStages);
  }
  return n;
}

}  // namespace warploom::gemm::simt
