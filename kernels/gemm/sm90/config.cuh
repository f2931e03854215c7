// kernels/gemm/sm90/config.cuh
//
// One typed sm90 TS GEMM configuration: a schedule's shape (shape.hpp) with element types, operand
// majors and the cluster's shape — the CuTe side of the kernel: shared-memory layouts, TMA atoms,
// the wgmma tiling, the accumulator fragment and the kernel parameters.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_atom.hpp>

#include "gemm/sm90/epilogue_ops.cuh"
#include "gemm/split_k_fold.hpp"
#include "gemm/stream_k_decomposition.hpp"
#include "gemm/tile_raster.hpp"
#include "warploom/arch/sm90/tma.hpp"

namespace warploom::gemm::sm90 {

using cute::_1;
using cute::Int;

// Operand layouts, as CuTe sees them: A is (M, K, L), B is (N, K, L); "K-major" means stride 1
// along K.
template <bool kKMajor>
using OperandStride = std::conditional_t<kKMajor, cute::Stride<std::int64_t, _1, std::int64_t>,
                                         cute::Stride<_1, std::int64_t, std::int64_t>>;

template <class T, bool kKMajor>
using SmemAtom = std::conditional_t<kKMajor, cute::GMMA::Layout_K_SW128_Atom<T>,
                                    cute::GMMA::Layout_MN_SW128_Atom<T>>;

// (BLK_MN, BLK_K, STAGES), each stage a contiguous, 128-byte-swizzled tile.
template <class T, bool kKMajor, int kMN, int kK, int kStages>
using SmemLayout = decltype(cute::tile_to_shape(
    SmemAtom<T, kKMajor>{}, cute::make_shape(Int<kMN>{}, Int<kK>{}, Int<kStages>{}),
    std::conditional_t<kKMajor, cute::Step<_1, cute::_2, cute::_3>,
                       cute::Step<cute::_2, _1, cute::_3>>{}));

// Schedule shape S run on TA x TB -> TD with the given operand majors, kClusterM x kClusterN CTAs
// per cluster (kClusterM tile rows sharing one B tile, kClusterN tile columns sharing one A tile),
// kMmaWarpgroups warpgroups sharing one accumulator tile (2: cooperative, 64 rows each; 1:
// ping-pong), and the fused epilogue Epi (epilogue_ops.cuh; Chain<>: none).
template <class TA_, class TB_, class TD_, bool kAKMajor_, bool kBKMajor_, int kClusterM_,
          int kClusterN_, class S, int kMmaWarpgroups_, class Epi = epi::Chain<>>
struct GemmConfig {
  using Shape = S;
  using Epilogue = Epi;
  using TA = TA_;
  using TB = TB_;
  using TD = TD_;
  static constexpr bool kAKMajor = kAKMajor_;
  static constexpr bool kBKMajor = kBKMajor_;
  static constexpr int kTileM = S::kTileM;
  static constexpr int kTileN = S::kTileN;
  static constexpr int kTileK = S::kTileKBytes / static_cast<int>(sizeof(TA));
  static constexpr int kStages = S::kStages;
  static constexpr int kClusterM = kClusterM_;  // CTAs sharing (multicasting) one B tile
  static constexpr int kClusterN = kClusterN_;  // CTAs sharing (multicasting) one A tile
  static constexpr int kClusterSize = kClusterM * kClusterN;
  static constexpr int kMmaWarpgroups = kMmaWarpgroups_;
  static constexpr int kMmaThreads = 128 * kMmaWarpgroups;  // threads sharing one accumulator
  static constexpr int kStagingBuffers = S::kStagingBuffers;
  // Whether the configuration runs stream-K when its launch asks (Params::stream_k): the
  // cooperative design (both warpgroups on one tile: their threads hold all of it), 1x1 clusters.
  static constexpr bool kStreamK = kClusterM_ * kClusterN_ == 1 && kMmaWarpgroups_ == 2;
  // Whether its split-K slices can add themselves up (Params::split_k, split_k_fold.cuh): as for
  // stream-K, a tile's MMA threads hold all of it.
  static constexpr bool kSplitKFold = kStreamK;
  static_assert(kClusterSize == S::kClusterSize, "the cluster shape is the schedule's size");
  static_assert(sizeof(TA) == sizeof(TB), "A and B elements of one width (one K tile)");

  using TileShape = cute::Shape<Int<kTileM>, Int<kTileN>, Int<kTileK>>;
  // The warpgroups split the tile's rows: each issues m64 wgmma atoms over its rows.
  using TiledMma =
      decltype(cute::make_tiled_mma(cute::GMMA::ss_op_selector < TA, TB, float, TileShape,
                                    kAKMajor ? cute::GMMA::Major::K : cute::GMMA::Major::MN,
                                    kBKMajor ? cute::GMMA::Major::K : cute::GMMA::Major::MN > (),
                                    cute::Layout<cute::Shape<Int<kMmaWarpgroups>, _1, _1>>{}));
  static_assert(cute::size(TiledMma{}) == kMmaThreads);

  using SmemLayoutA = SmemLayout<TA, kAKMajor, kTileM, kTileK, kStages>;
  using SmemLayoutB = SmemLayout<TB, kBKMajor, kTileN, kTileK, kStages>;
  static_assert(cute::cosize_v<SmemLayoutA> * sizeof(TA) == kStages * S::kBytesA);
  static_assert(cute::cosize_v<SmemLayoutB> * sizeof(TB) == kStages * S::kBytesB);

  // Epilogue subtiles: kTileM x kEpiN, one 128-byte swizzle row of D per tile row.
  static constexpr int kEpiN = 128 / static_cast<int>(sizeof(TD));
  static constexpr int kEpiTiles = kTileN / kEpiN;
  using SmemLayoutEpi = decltype(cute::tile_to_shape(
      cute::GMMA::Layout_K_SW128_Atom<TD>{}, cute::make_shape(Int<kTileM>{}, Int<kEpiN>{})));
  static_assert(cute::cosize_v<SmemLayoutEpi> * sizeof(TD) == S::kStagingBytes);

  using StrideA = OperandStride<kAKMajor>;
  using StrideB = OperandStride<kBKMajor>;
  using StrideD = cute::Stride<std::int64_t, _1, std::int64_t>;  // row-major C and D

  // The TMA load of one operand's (kRows x kTileK) tiles from `gmem` ((rows, K, L)); with
  // kMulticast > 1 each of that many CTAs loads 1/kMulticast of the tile and multicasts it.
  template <int kRows, int kMulticast, class Smem, class GmemTensor>
  static auto make_tma_load(GmemTensor const& gmem) {
    using Op =
        std::conditional_t<kMulticast == 1, cute::SM90_TMA_LOAD, cute::SM90_TMA_LOAD_MULTICAST>;
    return cute::make_tma_copy(Op{}, gmem, Smem{}(cute::_, cute::_, 0),
                               cute::make_shape(Int<kRows>{}, Int<kTileK>{}), Int<kMulticast>{});
  }
  template <class T, class Stride>
  static auto null_operand() {
    return cute::make_tensor(static_cast<T const*>(nullptr), cute::repeat_like(Stride{}, 0),
                             Stride{});
  }
  using TmaA = decltype(make_tma_load<kTileM, kClusterN, SmemLayoutA>(null_operand<TA, StrideA>()));
  using TmaB = decltype(make_tma_load<kTileN, kClusterM, SmemLayoutB>(null_operand<TB, StrideB>()));

  // The accumulator fragment of one MMA thread: (MMA, MMA_M, MMA_N) floats, kept in registers.
  // The epilogue reads it as kAtomsM wgmma D fragments of one m64nN atom each:
  // ((2 columns, 2 rows, N/8 column groups), kAtomsM, 1).
  using AccLayout = decltype(cute::partition_fragment_C(
                                 TiledMma{}, cute::make_shape(Int<kTileM>{}, Int<kTileN>{}))
                                 .layout());
  static constexpr int kAtomsM = kTileM / (64 * kMmaWarpgroups);
  static_assert(cute::rank(AccLayout{}) == 3 && cute::size<1>(AccLayout{}) == kAtomsM &&
                cute::size<2>(AccLayout{}) == 1 && cute::size<0, 0>(AccLayout{}) == 2 &&
                cute::size<0, 1>(AccLayout{}) == 2 && cute::size<0, 2>(AccLayout{}) == kTileN / 8);
  struct Accumulator {
    float v[cute::cosize_v<AccLayout>];
    WL_DEVICE auto tensor() { return cute::make_tensor(cute::make_rmem_ptr(v), AccLayout{}); }
  };

  // Everything the kernel gets from the host (a __grid_constant__ parameter: the TMA descriptors
  // must live in parameter, constant or global memory).
  // The descriptors are aligned to 128 bytes explicitly: CUDA 13's CUtensorMap is, but CuTe's
  // stand-in for it under NVRTC (no cuda.h) only to 64, and a kernel compiled by NVRTC must read
  // the Params a launcher compiled by nvcc wrote (src/jit/nvrtc.hpp checks the whole layout).
  struct Params {
    alignas(128) TmaA tma_a;
    alignas(128) TmaB tma_b;
    alignas(128) warploom::sm90::TensorMap tma_d;  // D as (N, M, L), kEpiN x kTileM, 128B swizzle
    int m, n, k, batch;
    TD* d;
    TD const* c;
    StrideD stride_c;
    StrideD stride_d;
    float alpha, beta;
    float const* alpha_ptr;  // device alpha and beta, read in place of the values above; or null
    float const* beta_ptr;
    float const* scale_a;  // fp8 per-tensor scales: device values, null = 1
    float const* scale_b;
    float const* scale_d;  // fp8 D: D's per-tensor scale (null = 1) and its amax (null: none)
    float* amax_d;
    TileRaster raster;
    int num_tiles;
    int k_tiles;
    // Batch l of A reads batch l * batch_step_a of its descriptor: 1, or 0 for an A broadcast
    // across the batch (its descriptor holds one batch).
    int batch_step_a, batch_step_b;
    // Stream-K's walk and workspace (gemm/stream_k_decomposition.hpp); inactive (walk.ctas 0)
    // unless the launch asked for it (TileScheduling::StreamK). Only the cooperative 1x1
    // configurations read it.
    StreamKRun stream_k;
    // Split-K's fold (gemm/split_k_fold.hpp): inactive (arrivals null) unless the launch is one
    // of split-K's slices that add themselves up. Only kSplitKFold configurations read it.
    SplitKFold split_k;
    // Last, so that the plain GEMM's (an empty struct) moves no other member.
    typename Epi::Params epilogue;
  };
};

// The layout of a configuration's Params as the compiler at hand lays them out: size, alignment
// and every member's offset. A kernel compiled by NVRTC reads the Params that a launcher compiled
// by nvcc and the host compiler wrote: the NVRTC source asserts that this array is there what it
// is in the launcher (src/gemm/sm90_source.cpp), so a member whose layout differs between the
// compilers (CUtensorMap's alignment: see Params) fails that compile instead of a launch.
// offsetof on Params (not standard-layout: CuTe's copy atoms inherit their members) is
// conditionally supported; GCC and EDG both support it, with a warning that is silenced here.
#if defined(__GNUC__) && !defined(__CUDACC_RTC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
#endif
#if defined(__NVCC__) || defined(__CUDACC_RTC__)
#pragma nv_diag_suppress 1427  // offsetof applied to a non-POD type
#endif
template <class P>
constexpr std::array<std::size_t, 29> params_layout() {
  return {sizeof(P),
          alignof(P),
          offsetof(P, tma_a),
          offsetof(P, tma_b),
          offsetof(P, tma_d),
          offsetof(P, m),
          offsetof(P, n),
          offsetof(P, k),
          offsetof(P, batch),
          offsetof(P, d),
          offsetof(P, c),
          offsetof(P, stride_c),
          offsetof(P, stride_d),
          offsetof(P, alpha),
          offsetof(P, beta),
          offsetof(P, alpha_ptr),
          offsetof(P, beta_ptr),
          offsetof(P, scale_a),
          offsetof(P, scale_b),
          offsetof(P, scale_d),
          offsetof(P, amax_d),
          offsetof(P, raster),
          offsetof(P, num_tiles),
          offsetof(P, k_tiles),
          offsetof(P, batch_step_a),
          offsetof(P, batch_step_b),
          offsetof(P, stream_k),
          offsetof(P, split_k),
          offsetof(P, epilogue)};
}
#if defined(__NVCC__) || defined(__CUDACC_RTC__)
#pragma nv_diag_default 1427
#endif
#if defined(__GNUC__) && !defined(__CUDACC_RTC__)
#pragma GCC diagnostic pop
#endif

// The accumulator fragment of thread t of a tile's MMA threads (a wgmma D fragment per m64 atom):
// its value (4 g + 2 v1 + c) of atom mi lies at tile row fragment_row0(t) + 64 * kMmaWarpgroups *
// mi + 8 * v1 and column fragment_col0(t) + 8 * g + c (fragment_atom_row, fragment_group_col).
WL_HOST_DEVICE constexpr int fragment_row0(int t) {
  return t / 128 * 64 + t % 128 / 32 * 16 + t % 32 / 4;
}
WL_HOST_DEVICE constexpr int fragment_col0(int t) {
  return t % 32 % 4 * 2;
}
// The row of atom mi's values 4 g + 2 v1 + c from fragment_row0, and the column of column group
// g's from fragment_col0 (+ c): the mapping above, the one source of it (the epilogue's loops over
// mi, v1 and g, the split-K fold's over v).
template <class Cfg>
WL_HOST_DEVICE constexpr int fragment_atom_row(int mi, int v1) {
  return 64 * Cfg::kMmaWarpgroups * mi + 8 * v1;
}
WL_HOST_DEVICE constexpr int fragment_group_col(int g) {
  return 8 * g;
}
// Value v of a fragment counted as PartialSums and the split-K fold count it (element
// v % (kTileN / 2) of m64 atom v / (kTileN / 2), i.e. mi = v / (kTileN / 2), 4 g + 2 v1 + c =
// v % (kTileN / 2)): its row and column from fragment_row0 and fragment_col0.
template <class Cfg>
WL_HOST_DEVICE constexpr int fragment_value_row(int v) {
  constexpr int kPerAtom = Cfg::kTileN / 2;
  return fragment_atom_row<Cfg>(v / kPerAtom, v % kPerAtom / 2 % 2);
}
template <class Cfg>
WL_HOST_DEVICE constexpr int fragment_value_col(int v) {
  return fragment_group_col(v % (Cfg::kTileN / 2) / 4) + v % 2;
}

// True for the phantom tiles of Tiles (uniform across the CTA's cluster).
template <class Params>
WL_DEVICE bool is_phantom(Params const& p, TileCoord tile) {
  return tile.l >= p.batch;
}

}  // namespace warploom::gemm::sm90
