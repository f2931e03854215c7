// kernels/gemm/sm90/mainloop.cuh
//
// The main loop's work bodies for one typed configuration (config.cuh): which tile this CTA
// computes, the TMA loads of A and B (multicast in a cluster) and the wgmma batch of one K tile.
// The resources that call them, and when, are in resources.hpp.
#pragma once

#include <cstdint>

#include "gemm/sm90/config.cuh"
#include "warploom/arch/sm90/cluster.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::gemm::sm90 {

template <class Cfg>
struct Mainloop {
  using Params = typename Cfg::Params;
  static constexpr int kClusterM = Cfg::kClusterM;
  static constexpr int kClusterN = Cfg::kClusterN;
  static constexpr int kClusterSize = Cfg::kClusterSize;

  // This CTA's tile of cluster tile `cluster_tile` (raster order; the cluster's CTAs take
  // neighbouring tiles: rank % kClusterM down, rank / kClusterM across); under stream-K, the
  // unit in loop slot `cluster_tile` (stream_k_decomposition.hpp).
  static WL_DEVICE TileCoord tile_at(Params const& p, int cluster_tile) {
    if constexpr (Cfg::kStreamK) {
      if (p.stream_k.walk.active()) return stream_k_unit(p, cluster_tile);
    }
    TileCoord const c = p.raster.coord(cluster_tile);
    if constexpr (kClusterSize == 1) {
      return c;
    } else {
      int const rank = static_cast<int>(warploom::sm90::cluster_cta_rank());
      return {c.m * kClusterM + rank % kClusterM, c.n * kClusterN + rank / kClusterM, c.l};
    }
  }

  // When load() asks L2 for the epilogue's matrices (a residual): kPrefetchLead K tiles before a
  // tile's last, in tiles of at most kPrefetchMaxKTiles K tiles. Measured on the fused residual,
  // ping-pong (Auto's), bf16, H200, 2026-12-04 (bench/results/residual_prefetch_2026-12-04.json):
  // against no prefetch, 8192 x 8192 x K took 0.309 ms against 0.348 at K = 512, 0.358-0.369
  // against 0.392 at 1024 (ncu 387 us against 422), 0.439 against 0.501 at 2048. At the first K
  // tile instead, 4096^3 lost 5 % (the lines are evicted by the main loop's A and B before the
  // epilogue reads them: R read twice); a lead of 8 K tiles saved less at 1024 (0.374). Past 32 K
  // tiles the other warpgroup's main loop hides the epilogue's reads anyway, and the prefetch
  // cost 3.5 % at K = 4096 (0.821 against 0.792): none there.
  static constexpr int kPrefetchLead = 3;
  static constexpr int kPrefetchMaxKTiles = 32;

  // Every tile of the problem has K / kTileK K tiles (rounded up); a stream-K unit its own.
  static WL_DEVICE int k_tiles(Params const& p, TileCoord tile) {
    return tile.k_tiles != 0 ? tile.k_tiles : p.k_tiles;
  }

  // Stream-K unit `slot`: a phantom (batch past the last, one K tile of zeros) where the CTA's
  // run of pieces has ended.
  static WL_DEVICE TileCoord stream_k_unit(Params const& p, int slot) {
    StreamKUnit const u = p.stream_k.walk.unit(slot);
    if (u.tile < 0) return {.m = 0, .n = 0, .l = p.batch, .k_begin = 0, .k_tiles = 1, .peers = 0};
    TileCoord c = p.raster.coord(u.tile);
    c.k_begin = u.k_begin;
    c.k_tiles = u.k_tiles;
    c.peers = u.peers;
    return c;
  }

  // The works as SmemAB calls them, on the problem of the ring's parameters.
  template <class Ring>
  static WL_DEVICE void tma_load(Ring& ring, ts::Produce const& stage, TileCoord tile) {
    load(*ring.p, ring, stage, tile);
  }
  template <class Ring>
  static WL_DEVICE void mma(Ring const& ring, ts::Consume const& stage,
                            typename Cfg::Accumulator& acc, TileCoord tile) {
    issue_mma(*ring.p, ring, stage, acc, tile);
  }

  // One elected lane issues both TMA loads of K tile `stage.loop_offset` of `tile` of problem `p`;
  // their bytes complete the stage's full barrier. In a cluster it loads its share of a multicast
  // operand into every CTA of its cluster row (B) or column (A), whose barriers count those bytes
  // too.
  template <class Ring>
  static WL_DEVICE void load(Params const& p, Ring& ring, ts::Produce const& stage,
                             TileCoord tile) {
    using namespace cute;
    using Epi = typename Cfg::Epilogue;
    // Near a short tile's last K tile (kPrefetchLead), the epilogue's matrices it will read (a
    // residual) asked of L2 by the whole warp: the last K tiles' time hides their DRAM latency,
    // which the epilogue's reads, a rolled loop over the staged subtiles, would otherwise wait out
    // one after another.
    if constexpr (Epi::kPrefetches) {
      int const tile_k_tiles = k_tiles(p, tile);
      int const at = tile_k_tiles > kPrefetchLead ? tile_k_tiles - kPrefetchLead : 0;
      if (tile_k_tiles <= kPrefetchMaxKTiles && stage.loop_offset - stage.loop_start == at &&
          !is_phantom(p, tile))
        Epi::template prefetch<typename Cfg::TD>(
            p.epilogue,
            {tile.m * Cfg::kTileM, tile.n * Cfg::kTileN, Cfg::kTileM, Cfg::kTileN, tile.l, p.m,
             p.n},
            static_cast<int>(threadIdx.x % warploom::sm90::kThreadsPerWarp),
            warploom::sm90::kThreadsPerWarp);
    }
    if (!warploom::sm90::elect_one()) return;
    int const rank = kClusterSize == 1 ? 0 : static_cast<int>(warploom::sm90::cluster_cta_rank());
    int const rank_m = rank % kClusterM, rank_n = rank / kClusterM;
    constexpr int kTileM = Cfg::kTileM, kTileN = Cfg::kTileN, kTileK = Cfg::kTileK;
    Tensor sA = make_tensor(make_smem_ptr(ring.a.get()), typename Cfg::SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(ring.b.get()), typename Cfg::SmemLayoutB{});
    Tensor mA = p.tma_a.get_tma_tensor(make_shape(p.m, p.k, p.batch));
    Tensor mB = p.tma_b.get_tma_tensor(make_shape(p.n, p.k, p.batch));
    // A broadcast operand's descriptor holds one batch: every batch reads its batch 0.
    Tensor gA =
        local_tile(mA(_, _, tile.l * p.batch_step_a), make_shape(Int<kTileM>{}, Int<kTileK>{}),
                   make_coord(tile.m, _));  // (BLK_M, BLK_K, k)
    Tensor gB =
        local_tile(mB(_, _, tile.l * p.batch_step_b), make_shape(Int<kTileN>{}, Int<kTileK>{}),
                   make_coord(tile.n, _));  // (BLK_N, BLK_K, k)
    // A is shared by the kClusterN CTAs of a cluster row, B by the kClusterM of a column.
    auto [tAgA, tAsA] = tma_partition(p.tma_a, rank_n, Layout<Int<kClusterN>>{},
                                      group_modes<0, 2>(sA), group_modes<0, 2>(gA));
    auto [tBgB, tBsB] = tma_partition(p.tma_b, rank_m, Layout<Int<kClusterM>>{},
                                      group_modes<0, 2>(sB), group_modes<0, 2>(gB));
    copy_tile<kClusterN>(p.tma_a, *stage.barrier, multicast_mask(rank_m, kClusterN, kClusterM),
                         tAgA(_, tile.k_begin + stage.loop_offset), tAsA(_, stage.stage_idx));
    copy_tile<kClusterM>(p.tma_b, *stage.barrier, multicast_mask(rank_n * kClusterM, kClusterM, 1),
                         tBgB(_, tile.k_begin + stage.loop_offset), tBsB(_, stage.stage_idx));
  }

  // Issues (without waiting) the wgmma batch of one K tile of `tile` of problem `p` into `acc`;
  // the first K tile overwrites it. Nothing for a phantom tile (its stage holds zeros).
  template <class Ring>
  static WL_DEVICE void issue_mma(Params const& p, Ring const& ring, ts::Consume const& stage,
                                  typename Cfg::Accumulator& acc, TileCoord tile) {
    if (is_phantom(p, tile)) return;
    issue_batch(ring, stage, acc);
  }

  // issue_mma's batch, for a tile known not to be a phantom: nothing read from the Params.
  template <class Ring>
  static WL_DEVICE void issue_batch(Ring const& ring, ts::Consume const& stage,
                                    typename Cfg::Accumulator& acc) {
    using namespace cute;
    typename Cfg::TiledMma tiled_mma;
    auto thr = tiled_mma.get_thread_slice(threadIdx.x % Cfg::kMmaThreads);
    Tensor tCrA = thr.make_fragment_A(
        thr.partition_A(make_tensor(make_smem_ptr(ring.a.get()), typename Cfg::SmemLayoutA{})));
    Tensor tCrB = thr.make_fragment_B(
        thr.partition_B(make_tensor(make_smem_ptr(ring.b.get()), typename Cfg::SmemLayoutB{})));
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

}  // namespace warploom::gemm::sm90
