// kernels/tutorial/k_major_tiles.cuh
//
// The CuTe pieces tutorial 06's and 07's GEMMs share: bf16 operands stored K-major (row-major A,
// B stored N x K: the "tn" GEMM), their tiles in shared memory in the 128-byte-swizzled layout
// wgmma reads K-major operands in, the TMA load that writes that layout, and (for the 128 x 128
// tiles of tutorial 07's GEMMs) one warpgroup's wgmma over them.
#pragma once

#include <cstdint>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cuda_bf16.h>              // __nv_bfloat16, __nv_bfloat162, __floats2bfloat162_rn
#include <cutlass/numeric_types.h>  // cutlass::bfloat16_t, the element type of CuTe's GMMA atoms
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_atom.hpp>

#include "warploom/config.hpp"

namespace warploom::tutorial::k_major {

using Bf16 = cutlass::bfloat16_t;  // __nv_bfloat16's bits, as CuTe's GMMA atoms name the type

// A K-major operand (rows x cols, stride 1 along K) at `ptr`, as CuTe sees it.
template <class T>
WL_HOST_DEVICE auto tensor(T const* ptr, int rows, int cols) {
  return cute::make_tensor(
      ptr, cute::make_layout(cute::make_shape(rows, cols),
                             cute::make_stride(static_cast<std::int64_t>(cols), cute::_1{})));
}

// (ROWS, K, STAGES...): tiles of kRows rows of kTileK bf16, each row 128 bytes swizzled in 16-byte
// chunks (Swizzle<3,4,3> on bytes: chunk c of row r sits at c ^ (r % 8)), the layout wgmma reads
// K-major operands in and TMA writes with CU_TENSOR_MAP_SWIZZLE_128B. The pattern repeats every
// 8 rows (1024 bytes), so a tile must start 1024-byte aligned. Stages... : none for one tile, or
// the ring's stage count as a third mode.
template <int kRows, int kTileK, int... kStages>
using SwizzledLayout = decltype(cute::tile_to_shape(
    cute::GMMA::Layout_K_SW128_Atom<Bf16>{},
    cute::make_shape(cute::Int<kRows>{}, cute::Int<kTileK>{}, cute::Int<kStages>{}...)));

// The TMA load of an operand's (kRows x kTileK) tiles into `tile` (one stage's layout), each CTA
// its own (no multicast). The multicast width is spelled out: with four arguments make_tma_copy
// takes the fourth for it, and a tile shape there gives a 1 x 1 box, which the driver refuses
// (CuTe only prints that; the kernel then faults).
template <int kRows, int kTileK, class TileLayout>
auto make_tma_load(Bf16 const* ptr, int rows, int k, TileLayout tile) {
  return cute::make_tma_copy(cute::SM90_TMA_LOAD{}, tensor(ptr, rows, k), tile,
                             cute::make_shape(cute::Int<kRows>{}, cute::Int<kTileK>{}),
                             /*multicast CTAs=*/cute::Int<1>{});
}

// Prefetches the descriptors of `tma...` (kernel parameters) into the TMA unit's cache, from
// lane 0 of warp kWarp, the load warp that uses them first.
template <int kWarp, class... Tma>
WL_DEVICE void prefetch_tma_descriptors(Tma const&... tma) {
  if (threadIdx.x == kWarp * 32) (cute::prefetch_tma_descriptor(tma.get_tma_descriptor()), ...);
}

// Issues the TMA copy of tile (`row_tile`, `k`) of a (rows x k) operand — kRows x kTileK, the
// first two modes of SmemLayout, (ROWS, K_TILE, STAGES) — into stage `stage` of `smem`; its bytes
// complete `barrier`. Call it from one lane (the caller elects it).
template <class SmemLayout, class Tma>
WL_DEVICE void tma_load_tile(Tma const& tma, int rows, int k_extent, Bf16* smem, int row_tile,
                             int k, int stage, std::uint64_t* barrier) {
  using namespace cute;
  constexpr int kRows = size<0>(SmemLayout{});
  constexpr int kTileK = size<1>(SmemLayout{});
  Tensor m = tma.get_tma_tensor(make_shape(rows, k_extent));  // (ROWS, K)
  Tensor g = local_tile(m, make_shape(Int<kRows>{}, Int<kTileK>{}),
                        make_coord(row_tile, _));             // (BLK_ROWS, BLK_K, k)
  Tensor s = make_tensor(make_smem_ptr(smem), SmemLayout{});  // (BLK_ROWS, BLK_K, PIPE)
  auto [tg, tsm] =
      tma_partition(tma, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(s), group_modes<0, 2>(g));
  copy(tma.with(*barrier), tg(_, k), tsm(_, stage));
}

// One warpgroup's wgmma over 128 x 128 tiles of D = A . B^T, both operands K-major in shared
// memory (SwizzledLayout<128, kTileK, STAGES>), m64n128k16 atoms: 2 in M, kTileK / 16 in K per
// step, the fp32 accumulator in registers (tutorial 07's GEMMs).
struct Wgmma128x128 {
  static constexpr int kTileM = 128;
  static constexpr int kTileN = 128;
  static constexpr int kThreads = 128;  // one warpgroup

  using TiledMma = decltype(cute::make_tiled_mma(
      cute::SM90_64x128x16_F32BF16BF16_SS<cute::GMMA::Major::K, cute::GMMA::Major::K>{}));
  static_assert(cute::size(TiledMma{}) == kThreads);

  // The accumulator of one thread: ((2 columns, 2 rows, 16 column groups), 2 atoms in M, 1)
  // floats, compact (value i of the layout is v[i]).
  using AccLayout =
      decltype(cute::partition_fragment_C(
                   TiledMma{}, cute::make_shape(cute::Int<kTileM>{}, cute::Int<kTileN>{}))
                   .layout());
  static_assert(cute::size<0, 0>(AccLayout{}) == 2,
                "the stores of D pack the accumulator's column pairs into bf16x2");
  static constexpr int kAccValues = cute::cosize_v<AccLayout>;  // 128
  struct Accumulator {
    float v[kAccValues];
    WL_DEVICE auto tensor() { return cute::make_tensor(cute::make_rmem_ptr(v), AccLayout{}); }
    WL_DEVICE auto tensor() const { return cute::make_tensor(cute::make_rmem_ptr(v), AccLayout{}); }
  };

  // Where value i of thread `thread`'s accumulator lies in the 128 x 128 tile: (row, column).
  WL_DEVICE static auto coordinates(int thread) {
    using namespace cute;
    return TiledMma{}.get_thread_slice(thread).partition_C(
        make_identity_tensor(make_shape(Int<kTileM>{}, Int<kTileN>{})));  // (MMA, MMA_M, MMA_N)
  }

  // Issues (without waiting) the wgmma batch of one K step: acc (+)= A(a_stage) . B(b_stage)^T
  // (`first`: acc =). `thread` is the caller's index in the warpgroup.
  template <class SmemLayoutA, class SmemLayoutB>
  WL_DEVICE static void step(Bf16 const* a, int a_stage, Bf16 const* b, int b_stage,
                             Accumulator& acc, bool first, int thread) {
    using namespace cute;
    TiledMma tiled_mma;
    auto thr = tiled_mma.get_thread_slice(thread);
    Tensor sA = make_tensor(make_smem_ptr(a), SmemLayoutA{});  // (BLK_M, BLK_K, PIPE)
    Tensor sB = make_tensor(make_smem_ptr(b), SmemLayoutB{});  // (BLK_N, BLK_K, PIPE)
    Tensor tCrA = thr.make_fragment_A(thr.partition_A(sA));    // (MMA, MMA_M, MMA_K, PIPE)
    Tensor tCrB = thr.make_fragment_B(thr.partition_B(sB));    // (MMA, MMA_N, MMA_K, PIPE)
    Tensor accum = acc.tensor();                               // (MMA, MMA_M, MMA_N)
    tiled_mma.accumulate_ = first ? GMMA::ScaleOut::Zero : GMMA::ScaleOut::One;
    warpgroup_fence_operand(accum);
    warpgroup_arrive();
    CUTE_UNROLL
    for (int kb = 0; kb < size<2>(tCrA); ++kb) {
      cute::gemm(tiled_mma, tCrA(_, _, kb, a_stage), tCrB(_, _, kb, b_stage), accum);
      tiled_mma.accumulate_ = GMMA::ScaleOut::One;
    }
    warpgroup_commit_batch();
    warpgroup_fence_operand(accum);
  }

  // Stores `acc` as tile (tile_m, tile_n) of D, a row-major bf16 (m x n) matrix at `d`, straight
  // from registers: each thread its column pairs as bf16x2, 4 bytes a store, a quad of lanes
  // covering 16 contiguous bytes of a row. By the warpgroup's threads, threadIdx.x % kThreads
  // being a thread's index in it. (The production GEMM stages D in shared memory and stores it by
  // TMA; the tutorials keep to their schedules.)
  WL_DEVICE static void store_d(Accumulator const& acc, __nv_bfloat16* d, int m, int n, int tile_m,
                                int tile_n) {
    using namespace cute;
    TiledMma tiled_mma;
    auto thr = tiled_mma.get_thread_slice(threadIdx.x % kThreads);
    Tensor mD = make_tensor(
        make_gmem_ptr(d),
        make_layout(make_shape(m, n), make_stride(static_cast<std::int64_t>(n), _1{})));  // (M, N)
    Tensor gD = local_tile(mD, make_shape(Int<kTileM>{}, Int<kTileN>{}),
                           make_coord(tile_m, tile_n));  // (BLK_M, BLK_N)
    Tensor tCgD = thr.partition_C(gD);                   // (MMA, MMA_M, MMA_N)
    Tensor accum = acc.tensor();                         // (MMA, MMA_M, MMA_N)
    CUTE_UNROLL
    for (int i = 0; i < size(accum); i += 2)
      *reinterpret_cast<__nv_bfloat162*>(&tCgD(i)) = __floats2bfloat162_rn(accum(i), accum(i + 1));
  }
};

}  // namespace warploom::tutorial::k_major
