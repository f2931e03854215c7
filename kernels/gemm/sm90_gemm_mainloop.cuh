// kernels/gemm/sm90_gemm_mainloop.cuh
//
// What the sm90 TS GEMMs (cooperative: sm90_ts_gemm.cuh, ping-pong: sm90_ts_gemm_pingpong.cuh)
// share up to the accumulator: the configuration (types, tile shape, shared-memory layouts, TMA
// atoms, the wgmma tiling), the kernel parameters, and two TS resources:
//
//   Tiles   which output tile comes next (persistent raster order, clusters)
//   SmemAB  one TMA -> wgmma pipeline of A and B tiles: the producer's TMA loads (multicast in a
//           cluster) and the consumer's wgmma batch per K tile
//
// The kernels differ only in how many warpgroups share one accumulator tile and how many SmemAB
// pipelines feed them; their tasks and schedules are in their own files.
#pragma once

#include <cstdint>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_atom.hpp>

#include "tile_raster.hpp"
#include "warploom/arch/sm90/cluster.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::gemm::sm90 {

namespace ts = warploom::ts;
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

// One GEMM configuration. The K tile is one 128-byte row of the 128B swizzle (64 16-bit or 128
// fp8 elements), so a stage's bytes do not depend on the input type. kMmaWarpgroups warpgroups
// share one kTileM x kTileN accumulator tile (2: the cooperative design, 64 rows each; 1:
// ping-pong, each warpgroup a tile of its own); every SmemAB pipeline has kStages stages; the
// epilogue stages D through kStagingBuffers shared-memory subtiles per accumulator tile.
template <class TA_, class TB_, class TD_, bool kAKMajor_, bool kBKMajor_, int kClusterM_,
          int kClusterN_, int kTileM_, int kTileN_, int kTileK_, int kStages_, int kMmaWarpgroups_,
          int kStagingBuffers_>
struct GemmConfig {
  using TA = TA_;
  using TB = TB_;
  using TD = TD_;
  static constexpr bool kAKMajor = kAKMajor_;
  static constexpr bool kBKMajor = kBKMajor_;
  static constexpr int kTileM = kTileM_;
  static constexpr int kTileN = kTileN_;
  static constexpr int kTileK = kTileK_;
  static constexpr int kStages = kStages_;
  static constexpr int kClusterM = kClusterM_;  // CTAs sharing (multicasting) one B tile
  static constexpr int kClusterN = kClusterN_;  // CTAs sharing (multicasting) one A tile
  static constexpr int kClusterSize = kClusterM * kClusterN;
  static constexpr int kMmaWarpgroups = kMmaWarpgroups_;
  static constexpr int kMmaThreads = 128 * kMmaWarpgroups;  // threads sharing one accumulator
  static constexpr int kStagingBuffers = kStagingBuffers_;

  using TileShape = cute::Shape<Int<kTileM>, Int<kTileN>, Int<kTileK>>;
  // The warpgroups split the tile's rows: each issues m64 wgmma atoms over its rows.
  using TiledMma =
      decltype(cute::make_tiled_mma(cute::GMMA::ss_op_selector < TA, TB, float, TileShape,
                                    kAKMajor ? cute::GMMA::Major::K : cute::GMMA::Major::MN,
                                    kBKMajor ? cute::GMMA::Major::K : cute::GMMA::Major::MN > (),
                                    cute::Layout<cute::Shape<Int<kMmaWarpgroups>, _1, _1>>{}));
  static_assert(cute::size(TiledMma{}) == kMmaThreads);
  static_assert(!kAKMajor || kTileK * sizeof(TA) % 128 == 0,
                "a K-major A tile spans whole 128-byte rows of its 128B swizzle atom along K");
  static_assert(!kBKMajor || kTileK * sizeof(TB) % 128 == 0,
                "a K-major B tile spans whole 128-byte rows of its 128B swizzle atom along K");

  using SmemLayoutA = SmemLayout<TA, kAKMajor, kTileM, kTileK, kStages>;
  using SmemLayoutB = SmemLayout<TB, kBKMajor, kTileN, kTileK, kStages>;
  static constexpr int kStageBytes =
      (kTileM * static_cast<int>(sizeof(TA)) + kTileN * static_cast<int>(sizeof(TB))) * kTileK;

  // Epilogue subtiles: kTileM x kEpiN, one 128-byte swizzle row of D per tile row.
  static constexpr int kEpiN = 128 / static_cast<int>(sizeof(TD));
  static constexpr int kEpiTiles = kTileN / kEpiN;
  using SmemLayoutEpi = decltype(cute::tile_to_shape(
      cute::GMMA::Layout_K_SW128_Atom<TD>{}, cute::make_shape(Int<kTileM>{}, Int<kEpiN>{})));

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
  // GmemD::store reads it as kAtomsM wgmma D fragments of one m64nN atom each:
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
  struct Params {
    TmaA tma_a;
    TmaB tma_b;
    CUtensorMap tma_d;  // D as (N, M, L), boxes of kEpiN x kTileM, 128B swizzle
    int m, n, k, batch;
    TD* d;
    TD const* c;
    StrideD stride_c;
    StrideD stride_d;
    float alpha, beta;
    float const* scale_a;  // fp8 per-tensor scales: device values, null = 1
    float const* scale_b;
    TileRaster raster;
    int num_tiles;
    int k_tiles;
  };
};

// ---- Resources ---------------------------------------------------------------------------------

// Which output tile comes next. The persistent loop walks cluster tiles (kClusterM x kClusterN
// output tiles) first, first + stride, ... in raster order; this CTA takes its own tile of each.
// A consumer with a share of a loop iteration (ping-pong's second warpgroup) asks for the cluster
// tile `share` x stride further on. A cluster tile index past the last one is a phantom tile: its
// batch coordinate is past the last batch, so its TMA loads fill zeros, its MMA is skipped and its
// stores are dropped — it only keeps the pipelines in step.
template <class Cfg>
struct Tiles {
  static constexpr ts::ResourceSpec spec{.name = "tiles"};
  typename Cfg::Params const* p = nullptr;
  int first = 0;      // this CTA's cluster index
  int stride = 1;     // clusters in the grid
  int num_tiles = 0;  // cluster tiles in the problem
  int k_tiles = 0;

  // This CTA's walk: its cluster's index, clusters in the grid as the stride.
  static WL_DEVICE Tiles for_this_cta(typename Cfg::Params const& p) {
    return {.p = &p,
            .first = static_cast<int>(blockIdx.x) / Cfg::kClusterSize,
            .stride = static_cast<int>(gridDim.x) / Cfg::kClusterSize,
            .num_tiles = p.num_tiles,
            .k_tiles = p.k_tiles};
  }

  WL_DEVICE TileCoord next(ts::Consume const& s) const { return tile_at(s.loop_offset); }
  template <int kShare>
  WL_DEVICE TileCoord next_share(ts::Consume const& s) const {
    return tile_at(s.loop_offset + kShare * stride);
  }

 private:
  WL_DEVICE TileCoord tile_at(int cluster_tile) const {
    TileCoord const c = p->raster.coord(cluster_tile);
    if constexpr (Cfg::kClusterSize == 1) {
      return c;
    } else {
      int const rank = static_cast<int>(warploom::sm90::cluster_cta_rank());
      return {c.m * Cfg::kClusterM + rank % Cfg::kClusterM,
              c.n * Cfg::kClusterN + rank / Cfg::kClusterM, c.l};
    }
  }
};

// True for the phantom tiles of Tiles (uniform across the CTA's cluster).
template <class Params>
WL_DEVICE bool is_phantom(Params const& p, TileCoord tile) {
  return tile.l >= p.batch;
}

// The A and B tiles of each K step, filled by TMA and read by wgmma straight from shared memory.
// Each stage is released by the warpgroups of one accumulator tile (all MMA warps in the
// cooperative kernel; in ping-pong the warpgroup whose turn it is).
template <class Cfg>
struct SmemAB {
  static constexpr ts::ResourceSpec spec{
      .name = "smem_ab",
      .pipeline = ts::tma_wgmma(Cfg::kStages, Cfg::kStageBytes, ts::threads(1),
                                ts::warps(Cfg::kMmaWarpgroups * 4))
                      .with_advance_on_wait()
                      .with_multicast(Cfg::kClusterSize)};
  using TA = typename Cfg::TA;
  using TB = typename Cfg::TB;
  using SmemLayoutA = typename Cfg::SmemLayoutA;
  using SmemLayoutB = typename Cfg::SmemLayoutB;
  static constexpr int kClusterM = Cfg::kClusterM;
  static constexpr int kClusterN = Cfg::kClusterN;
  static constexpr int kClusterSize = Cfg::kClusterSize;

  typename Cfg::Params const* p = nullptr;
  ts::SmemBuffer<TA, cute::cosize_v<SmemLayoutA>, 1024> a;  // (BLK_M, BLK_K, STAGES)
  ts::SmemBuffer<TB, cute::cosize_v<SmemLayoutB>, 1024> b;  // (BLK_N, BLK_K, STAGES)
  using smem_buffers = ts::buffers<&SmemAB::a, &SmemAB::b>;

  // One elected lane issues both TMA loads of K tile `stage.loop_offset` of `tile`; their bytes
  // complete the stage's full barrier. In a cluster it loads its share of a multicast operand
  // into every CTA of its cluster row (B) or column (A), whose barriers count those bytes too.
  WL_DEVICE void tma_load(ts::Produce const& stage, TileCoord tile) {
    using namespace cute;
    if (!warploom::sm90::elect_one()) return;
    int const rank = kClusterSize == 1 ? 0 : static_cast<int>(warploom::sm90::cluster_cta_rank());
    int const rank_m = rank % kClusterM, rank_n = rank / kClusterM;
    constexpr int kTileM = Cfg::kTileM, kTileN = Cfg::kTileN, kTileK = Cfg::kTileK;
    Tensor sA = make_tensor(make_smem_ptr(a.get()), SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(b.get()), SmemLayoutB{});
    Tensor mA = p->tma_a.get_tma_tensor(make_shape(p->m, p->k, p->batch));
    Tensor mB = p->tma_b.get_tma_tensor(make_shape(p->n, p->k, p->batch));
    Tensor gA = local_tile(mA(_, _, tile.l), make_shape(Int<kTileM>{}, Int<kTileK>{}),
                           make_coord(tile.m, _));  // (BLK_M, BLK_K, k)
    Tensor gB = local_tile(mB(_, _, tile.l), make_shape(Int<kTileN>{}, Int<kTileK>{}),
                           make_coord(tile.n, _));  // (BLK_N, BLK_K, k)
    // A is shared by the kClusterN CTAs of a cluster row, B by the kClusterM of a column.
    auto [tAgA, tAsA] = tma_partition(p->tma_a, rank_n, Layout<Int<kClusterN>>{},
                                      group_modes<0, 2>(sA), group_modes<0, 2>(gA));
    auto [tBgB, tBsB] = tma_partition(p->tma_b, rank_m, Layout<Int<kClusterM>>{},
                                      group_modes<0, 2>(sB), group_modes<0, 2>(gB));
    copy_tile<kClusterN>(p->tma_a, *stage.barrier, multicast_mask(rank_m, kClusterN, kClusterM),
                         tAgA(_, stage.loop_offset), tAsA(_, stage.stage_idx));
    copy_tile<kClusterM>(p->tma_b, *stage.barrier, multicast_mask(rank_n * kClusterM, kClusterM, 1),
                         tBgB(_, stage.loop_offset), tBsB(_, stage.stage_idx));
  }

  // Issues (without waiting) the wgmma batch of one K tile of `tile` into `acc`; the first K tile
  // overwrites it. Nothing for a phantom tile (its stage holds zeros).
  WL_DEVICE void mma(ts::Consume const& stage, typename Cfg::Accumulator& acc,
                     TileCoord tile) const {
    using namespace cute;
    if (is_phantom(*p, tile)) return;
    typename Cfg::TiledMma tiled_mma;
    auto thr = tiled_mma.get_thread_slice(threadIdx.x % Cfg::kMmaThreads);
    Tensor tCrA =
        thr.make_fragment_A(thr.partition_A(make_tensor(make_smem_ptr(a.get()), SmemLayoutA{})));
    Tensor tCrB =
        thr.make_fragment_B(thr.partition_B(make_tensor(make_smem_ptr(b.get()), SmemLayoutB{})));
    Tensor accum = acc.tensor();
    tiled_mma.accumulate_ =
        stage.loop_offset == stage.loop_start ? GMMA::ScaleOut::Zero : GMMA::ScaleOut::One;
    warpgroup_fence_operand(accum);
    warpgroup_arrive();
    CUTE_UNROLL
    for (int kb = 0; kb < size<2>(tCrA); ++kb) {
      cute::gemm(tiled_mma, tCrA(_, _, kb, stage.stage_idx), tCrB(_, _, kb, stage.stage_idx),
                 accum);
      tiled_mma.accumulate_ = GMMA::ScaleOut::One;
    }
    warpgroup_commit_batch();
    warpgroup_fence_operand(accum);
  }

 private:
  // One TMA copy completing on `barrier`; into the CTAs of `mask` when kMulticast > 1 (the
  // plain load has no mask argument).
  template <int kMulticast, class Tma, class Src, class Dst>
  static WL_DEVICE void copy_tile(Tma const& tma, std::uint64_t& barrier, std::uint16_t mask,
                                  Src const& src, Dst&& dst) {
    if constexpr (kMulticast == 1) {
      cute::copy(tma.with(barrier), src, dst);
    } else {
      cute::copy(tma.with(barrier, mask), src, dst);
    }
  }

  // Cluster ranks first, first + step, ... (count of them) as a TMA multicast mask.
  static WL_DEVICE std::uint16_t multicast_mask(int first, int count, int step) {
    std::uint16_t mask = 0;
    for (int i = 0; i < count; ++i) mask |= static_cast<std::uint16_t>(1u << (first + i * step));
    return mask;
  }
};

// ---- Schedule pieces both kernels run -----------------------------------------------------------

// Load side: every K tile of `tile` into the ring (acquire a stage, TMA A and B into it, commit).
template <class Ring>
WL_HOST_DEVICE constexpr void load_k_tiles(auto& ctx, auto& tiles, auto& smem, auto const& tile) {
  ctx.domain_loop(tiles->k_tiles, [&](auto&) {
    smem.acquire();
    ts::work<&Ring::tma_load>(smem, tile);
    smem.commit();
  });
}

// MMA side: the wgmma batch of every K tile of `tile` into `acc`, one batch kept in flight
// (`wgmma_wait<1>`) and each stage released once the batch after it was issued (the lagged
// release the verifier checks under R-D13); the last stage after the last batch retired.
template <class Ring>
WL_HOST_DEVICE constexpr void mma_k_tiles(auto& ctx, auto& tiles, auto& smem, auto& acc,
                                          auto const& tile) {
  ctx.domain_loop(tiles->k_tiles, [&](auto& k) {
    smem.wait();
    ts::work<&Ring::mma>(smem, acc, tile);
    ts::wgmma_wait<1>(ctx);                     // the previous K tile's reads retired
    k.not_first_iter([&] { smem.release(); });  // ... so its stage goes back to TMA
    k.last_iter([&] {
      ts::wgmma_wait<0>(ctx);
      smem.release();
    });
  });
  // Again, unconditionally: ptxas cannot tell that last_iter ran, and to keep the epilogue from
  // reading accumulators still in flight it would otherwise put a full wgmma wait on every K
  // iteration (C7517), ending the overlap of consecutive batches.
  ts::wgmma_wait<0>(ctx);
}

}  // namespace warploom::gemm::sm90
