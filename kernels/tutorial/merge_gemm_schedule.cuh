// kernels/tutorial/merge_gemm_schedule.cuh
//
// Tutorial 07, merge GEMM: a Merge of a thread-written ring and a TMA ring, both read by wgmma
// (the seed's 07/02). D = relu(A . B^T).
//
// A (M x K, leading dimension lda) and B (N x K) are bf16 and K-major (row-major A, B stored
// N x K: the "tn" layout); D (M x N) is bf16, row-major. Each CTA computes one 128 x 128 tile of D
// in K steps of 64, three K steps a stage. A and B reach shared memory in two ways, and the one
// consumer, the wgmma warpgroup, needs a stage of both and gives both back at once, so the two
// rings are a ts::Merge: each keeps its own full barriers, and they share one array of empty
// barriers.
//
//     KSteps ──k──▶ load_a (3 warps, a K step each): LDG.128 ▶      ┐
//                   registers ▶ STS.128 ▶ SmemA (fence.proxy.async, │ ab = ts::Merge   mma: wait
//                   then 96 lane arrivals)                          ├────────────────▶ A and B,
//     KSteps ──k──▶ load_b: 3 TMA copies of B ──────────────▶ SmemB ┘ (one release)   wgmma, ab
//                                                                                     .release(),
//                                                                                     relu(D)
//
// Why A goes through registers. TMA copies boxes of a tensor whose base and strides are 16-byte
// multiples, and copies them as they are. An operand that is not such a tensor, or that must be
// changed on the way (converted from another dtype, scaled, gathered by row indices), can still
// feed wgmma if threads write it into the layout wgmma reads: here load warps read A's tiles with
// 16-byte loads and store them, swizzled, with 16-byte shared-memory stores. This kernel keeps the
// path plain (bf16 in, bf16 out) and only takes A's leading dimension as an argument (lda >= K,
// a multiple of 8: rows of whole 16-byte vectors). That lda a TMA descriptor could take too; the
// general case (any lda, or a misaligned base) would need loads as narrow as the alignment allows
// (4 bytes for an even lda: four times the load instructions) or aligned 16-byte loads shifted
// into place in registers, and a dtype conversion would go between the loads and the stores.
//
// The proxy fence. wgmma reads shared memory through the async proxy; the load warp's st.shared
// are generic-proxy writes. Each lane therefore issues fence.proxy.async.shared::cta after its
// stores and before its arrival on the full barrier (the seed's 07/02 does this in its work body):
// the arrival orders the writes for the MMA threads' wait, the fence makes them visible to the
// wgmma those threads issue. The verifier does not model proxies (a missing fence passes it); the
// GPU test would see stale or zero tiles in D.
//
// Why the load issues a whole tile before it stores. The compiler cannot tell a shared-memory
// store from the source of the next global load, so a loop that stores each vector as it arrives
// keeps one load in flight per lane (tutorial 07/01 ran at a sixth of the memory roof that way,
// merge_add_schedule.cuh, load_tile). A lane holds its 32 vectors of the 16 KiB tile (128
// registers), hence the load tasks' budget.
//
// Why three load warps and three K steps a stage. What a load warp has in flight is what its
// registers hold, one 16 KiB tile, and a tile takes a round trip to DRAM and back into shared
// memory (about 1.1 us on the H200, 2026-12-04) where its wgmma takes about 0.3 us: with one load
// warp the kernel ran at 0.38x gemm() + ReLU. Three warps each load one K step of a stage, so that
// three tiles are in flight; a stage of three K steps keeps the ring's one fill and one release
// per stage (the Merge's), and 2 stages of 48 KiB of A and of B fit in 192 KiB. The stage's
// steps past K (K / 64 not a multiple of 3) add zeros: A's warp stores zeros (and arrives), B's
// copy is a box wholly outside B, which TMA fills with zeros. Measured (H100, 2026-12-06): 0.44x
// gemm() + ReLU at 4096^3, 15 % faster; what bounds it now is most likely the L2 traffic of one
// 128 x 128 tile per CTA without multicast (docs/kernels/tutorial_pipeline_groups.md).
//
// `ab` holds A's and B's rings, 2 stages of 3 x (128 x 64) tiles each, both with separate wait and
// release cursors (`with_advance_on_wait`, on which a Merge's members must agree, R-C2): the MMA
// task keeps one wgmma batch in flight and releases the stages of the step before (the production
// GEMM's lagged release, checked under R-D13 for both members: A's ring is ts::async_wgmma, B's
// ts::tma_wgmma), with one `ab.release()` where two pipelines would need two arrivals per warp.
//
// Warps: mma on warps 0-3 (one warpgroup, 232 registers: its 128 x 128 fp32 accumulator is 128
// registers a thread; it stores relu(D) from them, as 07/04 stores D), load_a on warps 4-6 and
// load_b on warp 7 (168 each, setmaxnreg being warpgroup-wide): 128 x (232 + 168) = 51200 <= 65536
// registers. The seed's 07/02 has a separate StoreReLU
// warpgroup reading the accumulator from TMEM; on Hopper the accumulator is in the MMA threads'
// registers, which store it themselves (07/03 shows the hand-off to a second warpgroup).
//
// The CuTe side is 07/04's and 07/03's, through k_major_tiles.cuh: each stage a K-major tile in
// the 128-byte-swizzled GMMA layout, which TMA (B) and the load warp (A, through the same layout
// as a position-independent swizzled tensor) write and wgmma reads through descriptors. There is
// no hand-written baseline: the tutorial shows the heterogeneous Merge, not an instruction count.
//
// This file is the schedule's one source: the kernel runs it and its schedule unit
// (kernels/CMakeLists.txt) verifies it while it compiles.
#pragma once

#include <cstdint>
#include <string_view>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cuda_bf16.h>  // __nv_bfloat162, __floats2bfloat162_rn
#include <cuda/ptx>     // cuda::ptx::fence_proxy_async

#include "tutorial/k_major_resources.cuh"  // k_major::OutputTile, KSteps, TmaRingB
#include "tutorial/k_major_tiles.cuh"      // k_major::Bf16, SwizzledLayout, Wgmma128x128
#include "tutorial/merge_gemm.hpp"         // kMergeGemmTileM, _N, _K
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

template <int kStages_, int kStepsPerStage_>
struct MergeGemm {
  // ---- Shape ---------------------------------------------------------------------------------
  using Mma = k_major::Wgmma128x128;
  static constexpr int kStages = kStages_;
  static constexpr int kStepsPerStage = kStepsPerStage_;  // K steps a stage holds, a load warp each
  static constexpr int kSubStages = kStages * kStepsPerStage;
  static constexpr int kTileM = kMergeGemmTileM;
  static constexpr int kTileN = kMergeGemmTileN;
  static constexpr int kTileK = kMergeGemmTileK;
  static_assert(kTileM == Mma::kTileM && kTileN == Mma::kTileN, "one warpgroup's wgmma tile");
  static constexpr int kMmaThreads = Mma::kThreads;  // warps 0-3
  static constexpr int kLoadLanes = 32;              // a load_a warp, one K step of a stage
  static constexpr int kLoadAWarp = 4;               // load_a's first warp; load_b after its last
  static constexpr int kLoadAThreads = kStepsPerStage * kLoadLanes;  // A's arrivals per stage
  using Bf16 = k_major::Bf16;
  static constexpr int kStepBytesA = kTileM * kTileK * static_cast<int>(sizeof(Bf16));  // 16 KiB
  static constexpr int kStepBytesB = kTileN * kTileK * static_cast<int>(sizeof(Bf16));  // 16 KiB

  // The load warp's view of A's tile: 16-byte vectors, a row of 64 bf16 is 8 of them, so one warp
  // instruction covers 4 whole rows (512 contiguous bytes of the swizzled tile: no bank conflict)
  // and a lane holds 32 vectors of the tile.
  static constexpr int kVecElems = 8;
  static constexpr int kVecsPerRow = kTileK / kVecElems;         // 8
  static constexpr int kRowsPerStep = kLoadLanes / kVecsPerRow;  // 4
  static constexpr int kVecsPerLane = kTileM / kRowsPerStep;     // 32
  static constexpr int kLoadRegisters = 168;  // 32 vectors x 4 registers, and the addresses
  static_assert(kLoadLanes % kVecsPerRow == 0, "a warp's loads cover whole rows");
  static_assert(kVecsPerLane * 4 + 24 <= kLoadRegisters, "the load task holds a whole tile");

  // ---- CuTe: layouts, TMA ----------------------------------------------------------------------
  // (BLK_M, BLK_K, SUB_STAGES): K step h of stage s is sub-stage s * kStepsPerStage + h.
  using SmemLayoutA = k_major::SwizzledLayout<kTileM, kTileK, kSubStages>;
  using SmemLayoutB = k_major::SwizzledLayout<kTileN, kTileK, kSubStages>;
  static_assert(cute::cosize_v<SmemLayoutA> * sizeof(Bf16) == kSubStages * kStepBytesA);
  static_assert(cute::cosize_v<SmemLayoutB> * sizeof(Bf16) == kSubStages * kStepBytesB);

  static auto make_tma_load_b(Bf16 const* b, int n, int k) {
    return k_major::make_tma_load<kTileN, kTileK>(b, n, k, SmemLayoutB{}(cute::_, cute::_, 0));
  }
  using TmaB = decltype(make_tma_load_b(nullptr, 0, 0));

  using Accumulator = Mma::Accumulator;

  // Everything the kernel gets from the host (a __grid_constant__ parameter: the TMA descriptor
  // must live in parameter, constant or global memory).
  struct Params {
    Bf16 const* a;
    std::int64_t lda;  // in elements
    TmaB tma_b;
    __nv_bfloat16* d;
    int m, n, k;
  };

  using OutputTile = k_major::OutputTile;

  // ---- Resources -------------------------------------------------------------------------------

  using KSteps = k_major::KSteps;

  // B's tiles: filled by TMA, read by the wgmma that A's ring issues.
  using SmemB = k_major::TmaRingB<kStages, kTileN, kTileK, Params, kStepsPerStage>;

  // A's tiles: written by the load warps' lanes (each arrives once its stores are fenced), read by
  // wgmma beside B's.
  struct SmemA {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_a",
        .pipeline = ts::async_wgmma(kStages, ts::threads(kLoadAThreads), ts::warps(4))
                        .with_advance_on_wait()};
    Params const* p = nullptr;
    OutputTile tile{};
    int k_steps = 0;           // the MMA task's loop bound: KSteps::count, which the kernel copies
    SmemB const* b = nullptr;  // what the wgmma reads besides A
    ts::SmemBuffer<Bf16, kSubStages * kTileM * kTileK, 1024> tiles;  // (BLK_M, BLK_K, SUB_STAGES)
    using smem_buffers = ts::buffers<&SmemA::tiles>;
    using same_sizes = ts::same_sizes<ts::same_size<&SmemA::k_steps, &KSteps::count>>;

    // This warp's K step of stage `k` (the warp's place in the task picks which) through its
    // lanes' registers: every load of the tile, then every store into the swizzled layout, then
    // the fence that lets wgmma (the async proxy) see them. A step past K stores zeros, which the
    // stage's wgmma multiplies with B's zero-filled box (no branch around a wgmma: ptxas would
    // serialize them).
    WL_DEVICE void load(ts::Produce const& stage, int k) {
      int const h = static_cast<int>(threadIdx.x) / kLoadLanes - kLoadAWarp;
      int const k_step = k * kStepsPerStage + h;
      int const lane = static_cast<int>(threadIdx.x) % kLoadLanes;
      int const row = lane / kVecsPerRow;  // the lane's first row; then every kRowsPerStep-th
      int const col = (lane % kVecsPerRow) * kVecElems;
      uint4 x[kVecsPerLane];  // (VECTORS): rows row, row + 4, ..., row + 124
      if (k_step < p->k / kTileK) {
        Bf16 const* at = p->a + (static_cast<std::int64_t>(tile.m) * kTileM + row) * p->lda +
                         static_cast<std::int64_t>(k_step) * kTileK + col;
        std::int64_t const step = kRowsPerStep * p->lda;
#pragma unroll
        for (int j = 0; j < kVecsPerLane; ++j)
          x[j] = *reinterpret_cast<uint4 const*>(at + j * step);
      } else {
#pragma unroll
        for (int j = 0; j < kVecsPerLane; ++j) x[j] = uint4{0, 0, 0, 0};
      }
      // The swizzle applied to the element offset (the buffer is 1024-byte aligned), so that the
      // pointer stays a shared-memory one and the stores are STS. It repeats every 8 rows (1024
      // bytes), so the lane's rows take two addresses, for rows row and row + 4, and constant
      // offsets from them: ptxas then keeps every load before the first store.
      auto sA = cute::as_position_independent_swizzle_tensor(cute::make_tensor(
          cute::make_smem_ptr(tiles.get()), SmemLayoutA{}));  // (BLK_M, BLK_K, SUB_STAGES)
      constexpr int kPeriodRows = 8;  // Swizzle<3,4,3>: 2^3 rows of 128 bytes
      static_assert(2 * kRowsPerStep == kPeriodRows, "two of a lane's rows per swizzle period");
      int const sub_stage = stage.stage_idx * kStepsPerStage + h;
      uint4* const at_even = reinterpret_cast<uint4*>(&sA(row, col, sub_stage));
      uint4* const at_odd = reinterpret_cast<uint4*>(&sA(row + kRowsPerStep, col, sub_stage));
      constexpr int kPeriodVecs = kPeriodRows * kVecsPerRow;  // 64 vectors, 1024 bytes
#pragma unroll
      for (int j = 0; j < kVecsPerLane; ++j)
        (j % 2 == 0 ? at_even : at_odd)[(j / 2) * kPeriodVecs] = x[j];
      cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // fence.proxy.async.shared::cta
    }
    // Issues (without waiting) the wgmma batches of the stage's K steps, one batch a step:
    // acc (+)= A(stage) . B(b_stage)^T; the tile's first step overwrites acc. Steps past K add
    // zeros (load, above).
    WL_DEVICE void mma(ts::Consume const& stage, Accumulator& acc, int b_stage) const {
#pragma unroll
      for (int h = 0; h < kStepsPerStage; ++h)
        Mma::step<SmemLayoutA, SmemLayoutB>(tiles.get(), stage.stage_idx * kStepsPerStage + h,
                                            b->tiles.get(), b_stage * kStepsPerStage + h, acc,
                                            h == 0 && stage.loop_offset == stage.loop_start,
                                            static_cast<int>(threadIdx.x) % kMmaThreads);
    }
  };

  // The group: one release by the MMA task frees a stage of A and of B.
  using AB = ts::Merge<"ab", SmemA, SmemB>;

  // D's tile, relu'd, from the MMA threads' accumulator registers.
  struct GmemD {
    static constexpr ts::ResourceSpec spec{.name = "gmem_d"};
    Params const* p = nullptr;
    OutputTile tile{};

    // max(acc, 0) at each of the thread's column pairs, rounded once: a bf16x2 store a pair, a
    // quad of lanes covering 16 contiguous bytes of a row (as 07/04 stores D).
    WL_DEVICE void store_relu(ts::Produce const&, Accumulator const& acc) {
      using namespace cute;
      auto coord = Mma::coordinates(static_cast<int>(threadIdx.x) % kMmaThreads);
      __nv_bfloat16* const d = p->d + static_cast<std::int64_t>(tile.m) * kTileM * p->n +
                               static_cast<std::int64_t>(tile.n) * kTileN;
      CUTE_UNROLL
      for (int i = 0; i < Mma::kAccValues; i += 2) {
        auto [row, col] = coord(i);
        *reinterpret_cast<__nv_bfloat162*>(d + static_cast<std::int64_t>(row) * p->n + col) =
            __floats2bfloat162_rn(fmaxf(acc.v[i], 0.0f), fmaxf(acc.v[i + 1], 0.0f));
      }
    }
  };

  // ---- Schedules and tasks ---------------------------------------------------------------------

  // K step by K step: wait for both operands, issue the step's wgmma batch, keep it in flight and
  // give back the stages of the step before (their batch retired under wgmma_wait<1>); the last
  // stages once the last batch retired. Then relu(D) from the accumulator.
  struct MmaTask {
    static constexpr ts::TaskSpec spec{
        .name = "mma", .warp_idx = 0, .num_warps = 4, .num_registers = 232};
    using src = ts::list<SmemA, SmemB, AB>;
    using dst = ts::list<GmemD>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& ab, auto& d) {
      auto acc = ctx.local(Accumulator{});
      ctx.domain_loop(a->k_steps, [&](auto& k) {
        a.wait();  // the load warps' 96 arrivals, after their fences
        b.wait();  // B's TMA bytes
        auto b_stage = ts::work<&SmemB::stage_of>(b);
        ts::work<&SmemA::mma>(a, acc, b_stage);
        ts::wgmma_wait<1>(ctx);  // the previous stage's batches retired
        k.not_first_iter([&] { ab.release(); });
        k.last_iter([&] {
          ts::wgmma_wait<0>(ctx);
          ab.release();
        });
      });
      // Again, unconditionally: ptxas cannot tell that last_iter ran, and would otherwise wait
      // for every batch in every step to keep the store from reading accumulators in flight
      // (C7517; kernels/gemm/sm90/resources.hpp, mma_k_tiles).
      ts::wgmma_wait<0>(ctx);
      ts::work<&GmemD::store_relu>(d, acc);
    }
  };

  // Loads of A (through registers, a warp per K step of the stage) and B (TMA, one warp), stage by
  // stage, each acquiring on ab's shared empty barrier. A's commit is 96 lane arrivals; B's is
  // nothing (the bytes).
  template <class Smem, auto kLoad, ts::FixedName kName, int kWarp, int kWarps>
  struct LoadTask {
    static constexpr ts::TaskSpec spec{.name = kName.view(),
                                       .warp_idx = kWarp,
                                       .num_warps = kWarps,
                                       .num_registers = kLoadRegisters};
    using src = ts::list<KSteps>;
    using dst = ts::list<Smem>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& k_steps, auto& smem) {
      ctx.domain_loop(k_steps->count, [&](auto&) {
        auto k = ts::work<&KSteps::k_of>(k_steps);
        smem.acquire();
        ts::work<kLoad>(smem, k);
        smem.commit();
      });
    }
  };
  using LoadATask = LoadTask<SmemA, &SmemA::load, "load_a", kLoadAWarp, kStepsPerStage>;
  using LoadBTask = LoadTask<SmemB, &SmemB::tma_load, "load_b", kLoadAWarp + kStepsPerStage, 1>;

  // Verified in the schedule unit, not in the kernel's translation unit.
  using Manager =
      ts::TaskManager<ts::Tasks<MmaTask, LoadATask, LoadBTask>,
                      ts::Graph<ts::DependsOn<SmemA, KSteps>, ts::DependsOn<SmemB, KSteps>,
                                ts::DependsOn<GmemD, SmemA, SmemB>>,
                      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;
  static_assert(Manager::smem_bytes <= 227 * 1024, "the tiles exceed 227 KiB of shared memory");

  // ---- Name ------------------------------------------------------------------------------------
  static constexpr ts::ScheduleText kNameText = ts::schedule_text("merge_gemm");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr ts::ScheduleText kDescriptionText = ts::schedule_text(
      "tutorial 07: D = relu(A.B^T), A via load warps' registers, B by TMA, one ts::Merge; ",
      kStages, " stages x ", kStepsPerStage, " K steps of 128x64 tiles, a 128x128 D tile per CTA");
  static constexpr std::string_view kDescription = kDescriptionText.view();
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    merge_gemm_ts_kernel(__grid_constant__ typename Cfg::Params const p) {
  using Manager = typename Cfg::Manager;
  // 1024: the swizzled tiles repeat every 1024 bytes, and wgmma's descriptors and TMA's swizzle
  // take their pattern from the address.
  extern __shared__ __align__(1024) char smem[];
  k_major::prefetch_tma_descriptors<Cfg::LoadBTask::spec.warp_idx>(p.tma_b);

  auto const tile = Cfg::OutputTile::of_cta(static_cast<int>(blockIdx.x), p.n / Cfg::kTileN);
  // The stages: K steps of 64, kStepsPerStage a stage, the last one partly past K.
  int const k_steps = (p.k / Cfg::kTileK + Cfg::kStepsPerStage - 1) / Cfg::kStepsPerStage;
  typename Cfg::KSteps steps{.count = k_steps};
  typename Cfg::SmemB b{};
  b.p = &p;
  b.tile = tile;
  typename Cfg::SmemA a{};
  a.p = &p;
  a.tile = tile;
  a.k_steps = k_steps;
  a.b = &b;
  typename Cfg::AB ab{};
  typename Cfg::GmemD d{.p = &p, .tile = tile};

  Manager tm(smem, steps, a, b, ab, d);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

// The merge GEMM the tutorial runs, a schedule unit (kernels/CMakeLists.txt): 2 stages of 3 K
// steps, each step a 128 x 64 tile of A and of B (16 KiB each: 192 KiB in all).
using TutorialMergeGemm = MergeGemm</*stages=*/2, /*K steps a stage=*/3>;

}  // namespace warploom::tutorial
