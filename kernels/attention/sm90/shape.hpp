// kernels/attention/sm90/shape.hpp
//
// What an sm90 TS attention schedule depends on: numbers, no types. Q, K and V are 16-bit (fp16 or
// bf16), so every byte count below is the same for both element types; the mask changes how many
// K/V blocks a tile visits (a loop bound read at run time) and, at D = 128, the block's width
// (DefaultShape). One schedule, verified once, serves the two element types of a shape.
#pragma once

#include <type_traits>

#include "warploom/ts/schedule_unit.hpp"  // ts::ScheduleText

namespace warploom::attention::sm90 {

// kHeadDim: D of Q, K and V. kBlockN: keys per K/V block (one S = Q.K^T wgmma tile). kStages: the
// K and V rings' depth. kStagesQ: Q tiles in flight (2 lets the load task fetch the next tile's Q
// while the consumers still read the current one). kBlockM: query rows per tile, 64 per consumer
// warpgroup (one m64 wgmma row block).
//
// 128 rows, two consumer warpgroups: FlashAttention-3's choice for D = 128 and 256 at 16 bits
// (hopper/tile_size.h: 128 x 128 for causal D = 128, two MMA warpgroups sharing the tile), and the
// only one whose O accumulator fits the registers at D = 256 (64 x 256 fp32 per warpgroup = 128
// registers a thread). 192 rows, three warpgroups: FA3's for D = 64, where a block's GEMMs are
// half as long per row and a third warpgroup's GEMMs cover the others' softmax; its accumulators
// fit the 160 registers a thread that three consumer warpgroups can have.
template <int kHeadDim_, int kBlockN_, int kStages_, int kStagesQ_, int kBlockM_ = 128>
struct Shape {
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kConsumerWarpgroups = kBlockM / 64;
  // Registers a consumer thread may use (setmaxnreg), FA3's budgets: with the load warpgroup's
  // 128 x 24, 2 x 128 x 240 = 64512 and 3 x 128 x 160 = 64512 of the 65536.
  static constexpr int kConsumerRegisters = kConsumerWarpgroups == 2 ? 240 : 160;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kStages = kStages_;
  static constexpr int kStagesQ = kStagesQ_;
  static constexpr int kElementBytes = 2;
  // Whether the overlap schedules store a tile's O under the next tile's first S (906196a) or at
  // the tile's end. The stored tile's registers (D / 4 words a thread) sit beside the next tile's
  // accumulator: at D <= 128 with 240 registers they fit; at D = 256 (a 128-word accumulator) and
  // in 192-row tiles (160 registers) ptxas spilled 72-704 bytes (2026-12-05), so those store at
  // the end, as before.
  static constexpr bool kStoreUnderNextS = kHeadDim <= 128 && kConsumerRegisters == 240;

  static constexpr int kBytesQ = kBlockM * kHeadDim * kElementBytes;   // per stage
  static constexpr int kBytesKV = kBlockN * kHeadDim * kElementBytes;  // K or V, per stage

  static_assert(kHeadDim == 64 || kHeadDim == 128 || kHeadDim == 256,
                "head dimensions 64, 128 and 256 (whole 128-byte swizzle rows)");
  static_assert(kBlockN % 16 == 0 && kBlockN <= 256,
                "K/V blocks are wgmma N (S) and K (P.V) sizes");
  static_assert(kStages >= 2, "a ring needs two stages to overlap TMA and wgmma");
  static_assert(kStagesQ == 1 || kStagesQ == 2);
  static_assert(kBlockM == 128 || kBlockM == 192, "two or three consumer warpgroups of 64 rows");
};

// The default shape of each head dimension, sized to the 227 KiB of shared memory a CTA may use:
//   D =  64: Q 2 x 24 KiB + K, V 2 x 2 x 16 KiB = 112 KiB: 192 query rows, three consumer
//            warpgroups (FA3's); ping-pong's two warpgroups take 128 rows (96 KiB)
//   D = 128: Q 2 x 32 KiB + K, V 2 x 2 x 32 KiB = 192 KiB; without the causal mask, blocks of
//            160 keys (K, V 2 x 2 x 40 KiB = 224 KiB) for the serial and overlap schedules
//   D = 256: Q 1 x 64 KiB + K, V 2 x 2 x 40 KiB = 224 KiB (blocks of 80 keys, FA3's)
// kCausal: the mask, which changes the shape at D = 128 only. A wider block halves fewer of a
// tile's fixed costs per key (its waits and the softmax's reductions), but a causal tile's
// diagonal blocks are masked in part and a wider one wastes more of them: FA3 takes 176 keys
// without a mask and 128 with one (hopper/tile_size.h). On the H200 (2026-12-05, ncu at locked
// clocks, 4x32x4096x128 bf16; docs/kernels/sm90_attention.md) 160 keys made the overlap
// schedule 2 % faster without a mask and 2.5 % slower with it, and the ping-pong slower either
// way (its two warpgroups' 160-key S and the stored tile's registers leave too few to overlap).
// kTurns: the shape of the ping-pong schedule, whose two warpgroups take turns (128 rows). It has
// none at D = 256 (pingpong_runs, below).
template <int kHeadDim, bool kCausal, bool kTurns = false>
using DefaultShape = std::conditional_t<
    kHeadDim == 256, Shape<256, 80, 2, 1>,
    std::conditional_t<
        kHeadDim == 128,
        std::conditional_t<kCausal || kTurns, Shape<128, 128, 2, 2>, Shape<128, 160, 2, 2>>,
        std::conditional_t<kTurns, Shape<64, 128, 2, 2>, Shape<64, 128, 2, 2, 192>>>>;

// Whether the ping-pong schedule runs head dimension `head_dim`: not at 256, where each
// warpgroup's O accumulator is 128 of its 240 registers, and with the tile queue's and the turns'
// state beside S and P ptxas spilled and serialized the wgmma (C7512) at 80- and at 64-key blocks
// alike, at half the overlap schedule's speed (H100, 2026-12-05; docs/kernels/sm90_attention.md).
// kPingpongHeadDims is the one place this is written: the schedule (schedule.hpp),
// attention_schedule_runs and attention_forward's refusal ask pingpong_runs, and
// kernels/attention/CMakeLists.txt reads the list from the line below for the schedule units and
// instances it builds (keep it on one line, `= {d, ...};`).
inline constexpr int kPingpongHeadDims[] = {64, 128};
constexpr bool pingpong_runs(int head_dim) {
  for (int d : kPingpongHeadDims)
    if (d == head_dim) return true;
  return false;
}

// Shared memory a schedule of shape S asks for, without the barriers.
template <class S>
constexpr long long smem_payload_bytes() {
  return static_cast<long long>(S::kStagesQ) * S::kBytesQ +
         2LL * S::kStages * static_cast<long long>(S::kBytesKV);
}

// A schedule's registry name, e.g. "sm90_ts_attention_d128", with the two GEMMs of a block
// overlapped "sm90_ts_attention_overlap_d128", and with the warpgroups taking turns as well
// "sm90_ts_attention_pingpong_d128". A head dimension's shape with the causal mask has the plain
// name; one that differs from it without the mask names its keys per block:
// "sm90_ts_attention_overlap_d128_n160".
template <class S>
constexpr ts::ScheduleText schedule_name(bool overlap, bool pingpong = false) {
  ts::ScheduleText name = ts::schedule_text(pingpong  ? "sm90_ts_attention_pingpong_d"
                                            : overlap ? "sm90_ts_attention_overlap_d"
                                                      : "sm90_ts_attention_d",
                                            S::kHeadDim);
  if (S::kBlockN != DefaultShape<S::kHeadDim, true>::kBlockN) {
    name.append("_n");
    name.append(S::kBlockN);
  }
  return name;
}

}  // namespace warploom::attention::sm90
