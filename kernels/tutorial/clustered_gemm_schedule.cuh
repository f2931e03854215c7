// kernels/tutorial/clustered_gemm_schedule.cuh
//
// Tutorial 04/01, the clustered GEMM with programmatic dependent launch (the seed's 04/01 on
// Hopper): D = A . B^T, each CTA one 128 x 128 tile of D in K steps of 64, CTAs in 2 x 1 clusters
// whose two CTAs (two neighbouring tiles along M, one tile column) share B's tile by TMA multicast.
//
//     KSteps ──k──▶ load_a: wait for the previous grid, TMA A ───────────▶ SmemA ──┐
//                   after A's last load: the next grid may start (PdlLaunch)       ├─▶ mma: wgmma,
//     KSteps ──k──▶ load_b: wait for the previous grid, half of B's tile, ──▶ SmemB ─┘   D from
//                   multicast to both CTAs of the cluster                               registers
//
// A (M x K) and B (N x K) are bf16 and K-major (the "tn" layout); D (M x N) is bf16, row-major,
// stored from the MMA warpgroup's fp32 accumulator as 07/04 stores it
// (fork_gemm_relu_schedule.cuh).
//
// The seed's Blackwell kernel runs 2-CTA UMMA (256 x 256 x 16 over a CTA pair), cta_group::2 TMA,
// a persistent CLC scheduler and a TMEM accumulator. On Hopper: one warpgroup's wgmma (V=1) per
// CTA, TMA multicast across the cluster, and one tile per CTA (the grid covers D; a static
// schedule in its simplest form).
//
// Multicast. Both CTAs of a cluster need the same B tile (128 x 64 a K step). Each loads half of
// its box — rows rank * 64 .. rank * 64 + 63 — and multicasts it to both, so each CTA's B stage
// fills with its own half and its peer's, 16 KiB on its full barrier, and L2 serves B's tile once
// a cluster instead of twice. SmemB is then a multicast pipeline (with_multicast(2)): a stage of
// one CTA is written by both, so it may be refilled only once both CTAs' MMA warpgroups released
// it; each release arrives on the stage's empty barrier in both CTAs, and each load task drains
// its ring before the CTA exits (the producer tail), so no peer arrives on, or writes into, the
// shared memory of a CTA that has gone. A's tiles are the CTA's own (plain TMA). The two rings
// stay two pipelines, released one after the other: a ts::Merge would release both with one
// arrival, but its members must multicast to the same CTAs (R-C2), and A does not multicast.
//
// Programmatic dependent launch (the copy chain's vocabulary, pdl_copy_chain_schedule.cuh):
// launched with ts::StreamOrder::Programmatic, this grid's CTAs may start while the kernel before
// it on the stream still runs, and it may have written A or B (the chain D2 = D1 . C^T reads D1).
// So both load tasks wait for it (ts::PdlWait, griddepcontrol.wait) before their first load; R-D7
// checks that each does, before its first work on SmemA and SmemB. Everything before the wait —
// launch, barrier initialisation, the cluster barrier, the TMA descriptors' prefetch (the
// descriptors are kernel parameters, not the previous grid's data) — overlaps that kernel's tail.
// D needs no wait of its own: the MMA warpgroup stores it after consuming stages that only fill
// after the waits, so no write of this grid precedes the previous grid's end.
//
// Where to signal. The next grid is launched once every CTA of this one signalled (ts::PdlLaunch,
// griddepcontrol.launch_dependents) or exited, and its CTAs wait for this grid's end before they
// read anything, so any point is correct: the point decides only how early the next grid's CTAs
// may take an SM one of ours has left, and run their prologue there while the rest of this grid
// finishes. load_a signals once A's last load is issued, as the seed's 04/01 does: from then on
// the CTA reads no global memory of its own, and what remains (the wgmma on the stages in flight,
// the store of D) is the tail the next grid's launch and prologue overlap. Signalling first, as
// the copy chain does, would serve as well here, where a CTA holds its SM from its first load to
// its last store; the gap the benchmark measures (pdl_gemm_chain) is the launch and prologue the
// signal hides, not the signal's place.
//
// Warps: mma on warps 0-3 (one warpgroup, 232 registers: the 128 x 128 fp32 accumulator is 128
// registers a thread), load_a and load_b on warps 4 and 5 (40; the TaskManager pads warps 6-7).
//
// This file is the schedule's one source: the kernel runs it and its schedule unit
// (kernels/CMakeLists.txt) verifies it while it compiles.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cuda_bf16.h>  // __nv_bfloat16

#include "tutorial/clustered_gemm.hpp"     // kClusteredGemmTileM, _N, _K, kClusteredGemmClusterM
#include "tutorial/k_major_resources.cuh"  // k_major::OutputTile, KSteps, TmaRing*
#include "tutorial/k_major_tiles.cuh"      // k_major::Bf16, SwizzledLayout, Wgmma128x128
#include "warploom/arch/sm90/cluster.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/pdl.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

template <int kStages_>
struct ClusteredGemm {
  // ---- Shape ---------------------------------------------------------------------------------
  using Mma = k_major::Wgmma128x128;
  static constexpr int kStages = kStages_;
  static constexpr int kTileM = kClusteredGemmTileM;
  static constexpr int kTileN = kClusteredGemmTileN;
  static constexpr int kTileK = kClusteredGemmTileK;
  static constexpr int kClusterM = kClusteredGemmClusterM;  // CTAs along M sharing one B tile
  static_assert(kTileM == Mma::kTileM && kTileN == Mma::kTileN, "one warpgroup's wgmma tile");
  static_assert(kTileN % (8 * kClusterM) == 0,
                "each CTA's share of B's tile is whole 8-row swizzle atoms (1024 bytes)");
  static constexpr int kMmaThreads = Mma::kThreads;  // warps 0-3
  using Bf16 = k_major::Bf16;
  static constexpr int kStageBytesA = kTileM * kTileK * static_cast<int>(sizeof(Bf16));  // 16 KiB
  static constexpr int kStageBytesB = kTileN * kTileK * static_cast<int>(sizeof(Bf16));  // 16 KiB

  // ---- CuTe: layouts, TMA ----------------------------------------------------------------------
  using SmemLayoutA = k_major::SwizzledLayout<kTileM, kTileK, kStages>;  // (BLK_M, BLK_K, STAGES)
  using SmemLayoutB = k_major::SwizzledLayout<kTileN, kTileK, kStages>;  // (BLK_N, BLK_K, STAGES)
  static_assert(cute::cosize_v<SmemLayoutA> * sizeof(Bf16) == kStages * kStageBytesA);
  static_assert(cute::cosize_v<SmemLayoutB> * sizeof(Bf16) == kStages * kStageBytesB);

  // The TMA load of a K-major (rows x k) operand's (kRows x kTileK) tiles into a stage of `Smem`;
  // with kMulticast > 1 its box is 1/kMulticast of the tile, which each of that many CTAs loads
  // and multicasts (make_tma_copy's fifth argument: the multicast width, spelled out as
  // k_major::make_tma_load explains).
  template <int kRows, int kMulticast, class Smem>
  static auto make_tma_load(Bf16 const* ptr, int rows, int k) {
    using Op =
        std::conditional_t<kMulticast == 1, cute::SM90_TMA_LOAD, cute::SM90_TMA_LOAD_MULTICAST>;
    return cute::make_tma_copy(Op{}, k_major::tensor(ptr, rows, k), Smem{}(cute::_, cute::_, 0),
                               cute::make_shape(cute::Int<kRows>{}, cute::Int<kTileK>{}),
                               cute::Int<kMulticast>{});
  }
  using TmaA = decltype(make_tma_load<kTileM, 1, SmemLayoutA>(nullptr, 0, 0));
  using TmaB = decltype(make_tma_load<kTileN, kClusterM, SmemLayoutB>(nullptr, 0, 0));

  using Accumulator = Mma::Accumulator;

  // Everything the kernel gets from the host (a __grid_constant__ parameter: the TMA descriptors
  // must live in parameter, constant or global memory).
  struct Params {
    TmaA tma_a;
    TmaB tma_b;
    __nv_bfloat16* d;
    int m, n, k;
  };

  using OutputTile = k_major::OutputTile;

  // The tile of CTA `cta` (blockIdx.x), rank `rank` in its cluster: cluster c takes tile column
  // c % tiles_n (n fastest, so that neighbouring clusters read neighbouring B tiles of one row of
  // A tiles) and tile rows kClusterM (c / tiles_n) + rank.
  WL_HOST_DEVICE static OutputTile tile_of(int cta, int rank, int n) {
    int const tiles_n = n / kTileN, cluster = cta / kClusterM;
    return {.m = cluster / tiles_n * kClusterM + rank, .n = cluster % tiles_n};
  }

  // ---- Resources -------------------------------------------------------------------------------

  // The K steps of the CTA's tile: every CTA of a cluster runs the same number (one K).
  using KSteps = k_major::KSteps;

  // B's tiles: half loaded by each CTA of the cluster and multicast to both; read by the wgmma
  // that SmemA::mma issues.
  struct SmemB {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_b",
        .pipeline = ts::tma_wgmma(kStages, kStageBytesB, ts::threads(1), ts::warps(4))
                        .with_advance_on_wait()
                        .with_multicast(kClusterM)};
    Params const* p = nullptr;
    OutputTile tile{};
    ts::SmemBuffer<Bf16, kStages * kTileN * kTileK, 1024> tiles;  // (BLK_N, BLK_K, STAGES)
    using smem_buffers = ts::buffers<&SmemB::tiles>;
    using SmemLayout = SmemLayoutB;  // for the wgmma that SmemA::mma issues

    // This CTA's share of B's tile of K step `k` (rows rank * kTileN / kClusterM and on), into
    // stage `stage.stage_idx` of every CTA of the cluster: each CTA's full barrier counts the
    // bytes of both shares.
    WL_DEVICE void tma_load(ts::Produce const& stage, int k) {
      using namespace cute;
      if (!sm90::elect_one()) return;
      int const rank = static_cast<int>(sm90::cluster_cta_rank());
      Tensor mB = p->tma_b.get_tma_tensor(make_shape(p->n, p->k));  // (N, K)
      Tensor gB = local_tile(mB, make_shape(Int<kTileN>{}, Int<kTileK>{}),
                             make_coord(tile.n, _));                       // (BLK_N, BLK_K, k)
      Tensor sB = make_tensor(make_smem_ptr(tiles.get()), SmemLayoutB{});  // (BLK_N, BLK_K, PIPE)
      auto [tBgB, tBsB] = tma_partition(p->tma_b, rank, Layout<Int<kClusterM>>{},
                                        group_modes<0, 2>(sB), group_modes<0, 2>(gB));
      constexpr auto kEveryCta = static_cast<std::uint16_t>((1u << kClusterM) - 1);
      copy(p->tma_b.with(*stage.barrier, kEveryCta), tBgB(_, k), tBsB(_, stage.stage_idx));
    }
    // The stage the wgmma of this step reads B from. Auxiliary: only an index; B is read by the
    // wgmma that SmemA::mma issues, and retires with it (R-D13 follows B's stage into it).
    WL_DEVICE int stage_of(ts::ConsumeAux const& stage) const { return stage.stage_idx; }
  };

  // A's tiles: the CTA's own, filled by TMA, read by wgmma beside B's.
  using SmemA = k_major::TmaRingA<kStages, kTileK, Params, SmemB>;

  // D's tile, from the MMA threads' registers.
  struct GmemD {
    static constexpr ts::ResourceSpec spec{.name = "gmem_d"};
    Params const* p = nullptr;
    OutputTile tile{};

    // As 07/04 stores D (Wgmma128x128::store_d).
    WL_DEVICE void store(ts::Produce const&, Accumulator const& acc) {
      Mma::store_d(acc, p->d, p->m, p->n, tile.m, tile.n);
    }
  };

  // ---- Schedules and tasks ---------------------------------------------------------------------

  // K step by K step: wait for both operands, issue the step's wgmma batch, keep it in flight and
  // give back the stages of the step before (their batch retired under wgmma_wait<1>); the last
  // stages once the last batch retired. B's releases reach both CTAs' empty barriers. Then D.
  struct MmaTask {
    static constexpr ts::TaskSpec spec{
        .name = "mma", .warp_idx = 0, .num_warps = 4, .num_registers = 232};
    using src = ts::list<SmemA, SmemB>;
    using dst = ts::list<GmemD>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& d) {
      auto acc = ctx.local(Accumulator{});
      ctx.domain_loop(a->k_steps, [&](auto& k) {
        a.wait();
        b.wait();
        auto b_stage = ts::work<&SmemB::stage_of>(b);
        ts::work<&SmemA::mma>(a, acc, b_stage);
        ts::wgmma_wait<1>(ctx);  // the previous step's batch retired
        k.not_first_iter([&] {
          a.release();
          b.release();
        });
        k.last_iter([&] {
          ts::wgmma_wait<0>(ctx);
          a.release();
          b.release();
        });
      });
      // Again, unconditionally: ptxas cannot tell that last_iter ran, and would otherwise wait
      // for every batch in every step to keep the store from reading accumulators in flight
      // (C7517; kernels/gemm/sm90/resources.hpp, mma_k_tiles).
      ts::wgmma_wait<0>(ctx);
      ts::work<&GmemD::store>(d, acc);
    }
  };

  // A's loads: wait for the previous grid (it may have written A), then K step by K step; once
  // the last is issued, let the next grid start (see the header for why there).
  struct LoadATask {
    static constexpr ts::TaskSpec spec{
        .name = "load_a", .warp_idx = 4, .num_warps = 1, .num_registers = 40};
    using src = ts::list<KSteps, ts::PdlWait>;
    using dst = ts::list<SmemA, ts::PdlLaunch>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& k_steps, auto& previous, auto& a,
                                                  auto& next) {
      ts::work<&ts::PdlWait::wait_griddep>(previous);
      ctx.domain_loop(k_steps->count, [&](auto&) {
        auto k = ts::work<&KSteps::k_of>(k_steps);
        a.acquire();
        ts::work<&SmemA::tma_load>(a, k);
        a.commit();  // TMA: nothing to arrive, the copy's bytes complete the stage
      });
      ts::work<&ts::PdlLaunch::launch_griddep>(next);
    }
  };

  // B's loads: wait for the previous grid (it may have written B), then this CTA's half of each
  // K step's B tile, multicast; each acquire waits until both CTAs released the stage.
  struct LoadBTask {
    static constexpr ts::TaskSpec spec{
        .name = "load_b", .warp_idx = 5, .num_warps = 1, .num_registers = 40};
    using src = ts::list<KSteps, ts::PdlWait>;
    using dst = ts::list<SmemB>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& k_steps, auto& previous,
                                                  auto& b) {
      ts::work<&ts::PdlWait::wait_griddep>(previous);
      ctx.domain_loop(k_steps->count, [&](auto&) {
        auto k = ts::work<&KSteps::k_of>(k_steps);
        b.acquire();
        ts::work<&SmemB::tma_load>(b, k);
        b.commit();
      });
    }
  };

  // A and B depend on the previous grid (R-D7 orders each load task's wait before its first
  // load); the signal to the next grid has no upstream. Verified in the schedule unit, not in the
  // kernel's translation unit.
  using Manager =
      ts::TaskManager<ts::Tasks<MmaTask, LoadATask, LoadBTask>,
                      ts::Graph<ts::DependsOn<SmemA, KSteps, ts::PdlWait>,
                                ts::DependsOn<SmemB, KSteps, ts::PdlWait>,
                                ts::DependsOn<GmemD, SmemA, SmemB>, ts::DependsOn<ts::PdlLaunch>>,
                      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;
  static_assert(Manager::cluster_size == kClusterM, "SmemB's multicast sets the cluster");
  static_assert(Manager::smem_bytes <= 227 * 1024, "the stages exceed 227 KiB of shared memory");

  // ---- Name ------------------------------------------------------------------------------------
  static constexpr ts::ScheduleText kNameText = ts::schedule_text("clustered_gemm");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr ts::ScheduleText kDescriptionText = ts::schedule_text(
      "tutorial 04: D = A.B^T in 2x1 clusters multicasting B's tiles, loads behind a PDL wait; ",
      kStages, " stages of 128x64 tiles, a 128x128 D tile per CTA");
  static constexpr std::string_view kDescription = kDescriptionText.view();
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    clustered_gemm_ts_kernel(__grid_constant__ typename Cfg::Params const p) {
  using Manager = typename Cfg::Manager;
  // 1024: the swizzled stages repeat every 1024 bytes, and wgmma's descriptors and TMA's swizzle
  // take their pattern from the address.
  extern __shared__ __align__(1024) char smem[];
  // Before the PDL wait, overlapping the previous grid: the descriptors are parameters.
  k_major::prefetch_tma_descriptors<Cfg::LoadATask::spec.warp_idx>(p.tma_a, p.tma_b);

  typename Cfg::OutputTile const tile =
      Cfg::tile_of(static_cast<int>(blockIdx.x), static_cast<int>(sm90::cluster_cta_rank()), p.n);
  int const k_steps = p.k / Cfg::kTileK;
  typename Cfg::KSteps steps{.count = k_steps};
  typename Cfg::SmemB b{};
  b.p = &p;
  b.tile = tile;
  typename Cfg::SmemA a{};
  a.p = &p;
  a.tile = tile;
  a.k_steps = k_steps;
  a.b = &b;
  typename Cfg::GmemD d{.p = &p, .tile = tile};
  ts::PdlWait previous;
  ts::PdlLaunch next;

  Manager tm(smem, steps, a, b, d, previous, next);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

// The clustered GEMM the tutorial runs, a schedule unit (kernels/CMakeLists.txt): 4 stages of
// 128 x 64 A and B tiles (16 KiB each per stage): 128 KiB.
using TutorialClusteredGemm = ClusteredGemm</*stages=*/4>;

}  // namespace warploom::tutorial
