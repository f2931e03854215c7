// kernels/tutorial/fork_gemm_relu_schedule.cuh
//
// Tutorial 07, the Fork kernel with its GEMM (the seed's 07/04): D = A . B^T and R = max(A, 0)
// from one TMA read of every A tile.
//
// A (M x K) and B (N x K) are bf16 and K-major (row-major A, B stored N x K: the "tn" layout); D
// (M x N) is bf16 from an fp32 accumulator, R (M x K) bf16. Each CTA computes one 128 x 128 tile
// of D in K steps of 64. A's 128 x 64 tile of a step is read by two tasks: the MMA task multiplies
// it with B's, and the relu task writes max(a, +0) of it to R. Each releases the stage on its own
// schedule (wgmma only after its reads retired, the threads as soon as the tile is in registers),
// so each has its own empty barriers; the fill is one, so they share the full barriers:
//
//                                       ┌─ AForMma  ──▶ mma: wait A and B, wgmma, release the
//     KSteps ──k──▶ load_a: TMA A ──────┤  (ATile = ts::Fork,       previous step's stages (lag),
//                                       │   one buffer)             D from registers at the end
//                                       └─ AForRelu ──▶ relu: wait, read, release, R = max(a, 0)
//     KSteps ──k──▶ load_b: TMA B ──▶ SmemB ──────────▶ mma (beside AForMma)
//
// The two A members are two views of one buffer (ts::Alias on the TaskManager), as in fork relu
// (fork_relu_schedule.cuh, read it first): load_a acquires both — waits until the MMA and the relu
// task both released the stage — then issues one TMA copy into the primary member's stage (the MMA
// view, declared first in the Fork), whose bytes complete the shared full barrier, and publishes
// the tile with one `a_tile.commit()`. B has a pipeline of its own with its own load warp.
//
// R is written once per A tile: every CTA of a row of output tiles reads the same A tiles, so only
// the CTAs of the first column (n tile 0) write R. The others still run the relu task — wait and
// release every stage, reading and writing nothing — so that every CTA has the same schedule: the
// Fork's barrier counts are compile-time constants (128 relu threads arrive on each empty barrier),
// and a member no task released would hang the load. Leaving the relu task out of those CTAs would
// need a second TaskManager (and a second kernel) for what costs a wait and an arrival per step.
//
// Both A members and B advance on wait (`with_advance_on_wait`, which a Fork's members must agree
// on, R-C2): the MMA task keeps one wgmma batch in flight and releases the stages of the step
// before (the lagged release of the production GEMM, kernels/gemm/sm90/resources.hpp, checked
// under R-D13). The relu task waits and releases in turn, which the separate cursors allow.
//
// Warps: mma on warps 0-3 (one warpgroup, 232 registers: its 128 x 128 fp32 accumulator is 128
// registers a thread), relu on warps 4-7 (160; every relu thread arrives on the empty barrier
// itself, which compute-sanitizer's racecheck can follow, where it cannot follow a warp's
// __syncwarp before one elected lane's arrival), load_a on warp 8 and load_b on warp 9 (40; the
// TaskManager pads warps 10-11): 128 x (232 + 160 + 40) = 55296 <= 65536 registers.
//
// The CuTe side follows the production GEMM (kernels/gemm/sm90/config.cuh, mainloop.cuh): each
// stage is a 128 x 64 K-major tile in the 128-byte-swizzled GMMA layout, which TMA writes
// (CuTe derives the descriptor's swizzle from the layout) and wgmma reads through descriptors; the
// relu task reads the same bytes through the same layout. There is no hand-written baseline: the
// tutorial shows the Fork beside a wgmma consumer, not an instruction count.
//
// This file is the schedule's one source: the kernel runs it and its schedule unit
// (kernels/CMakeLists.txt) verifies it while it compiles.
#pragma once

#include <cstdint>
#include <string_view>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cuda_bf16.h>  // __nv_bfloat162, __hmax2
#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/mma_atom.hpp>

#include "tutorial/fork_gemm_relu.hpp"     // kForkGemmReluTileM, _N, _K
#include "tutorial/k_major_resources.cuh"  // k_major::OutputTile, KSteps, TmaRingB
#include "tutorial/k_major_tiles.cuh"      // k_major::Bf16, SwizzledLayout, make_tma_load
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

template <int kStages_>
struct ForkGemmRelu {
  // ---- Shape ---------------------------------------------------------------------------------
  static constexpr int kStages = kStages_;
  static constexpr int kTileM = kForkGemmReluTileM;
  static constexpr int kTileN = kForkGemmReluTileN;
  static constexpr int kTileK = kForkGemmReluTileK;
  static constexpr int kMmaThreads = 128;   // one warpgroup
  static constexpr int kReluThread0 = 128;  // the relu task's first thread (warp 4)
  static constexpr int kReluThreads = 128;
  using Bf16 = k_major::Bf16;
  static constexpr int kStageBytesA = kTileM * kTileK * static_cast<int>(sizeof(Bf16));  // 16 KiB
  static constexpr int kStageBytesB = kTileN * kTileK * static_cast<int>(sizeof(Bf16));  // 16 KiB

  // ---- CuTe: layouts, TMA, wgmma ------------------------------------------------------------
  using SmemLayoutA = k_major::SwizzledLayout<kTileM, kTileK, kStages>;  // (BLK_M, BLK_K, STAGES)
  using SmemLayoutB = k_major::SwizzledLayout<kTileN, kTileK, kStages>;  // (BLK_N, BLK_K, STAGES)
  static_assert(cute::cosize_v<SmemLayoutA> * sizeof(Bf16) == kStages * kStageBytesA);
  static_assert(cute::cosize_v<SmemLayoutB> * sizeof(Bf16) == kStages * kStageBytesB);

  // The TMA load of one operand's (kRows x 64) tiles into a stage of `Smem`.
  template <int kRows, class Smem>
  static auto make_tma_load(Bf16 const* ptr, int rows, int k) {
    return k_major::make_tma_load<kRows, kTileK>(ptr, rows, k, Smem{}(cute::_, cute::_, 0));
  }
  using TmaA = decltype(make_tma_load<kTileM, SmemLayoutA>(nullptr, 0, 0));
  using TmaB = decltype(make_tma_load<kTileN, SmemLayoutB>(nullptr, 0, 0));

  // One warpgroup issues m64n128k16 wgmma atoms, both operands K-major from shared memory; over
  // the 128 x 128 x 64 tile of a step that is 2 (M) x 4 (K) atoms. The accumulator stays in the
  // MMA threads' registers from the first K step to the store of D.
  using Mma = k_major::Wgmma128x128;
  static_assert(kTileM == Mma::kTileM && kTileN == Mma::kTileN && kMmaThreads == Mma::kThreads);
  using Accumulator = Mma::Accumulator;

  // Everything the kernel gets from the host (a __grid_constant__ parameter: the TMA descriptors
  // must live in parameter, constant or global memory).
  struct Params {
    TmaA tma_a;
    TmaB tma_b;
    __nv_bfloat16* d;
    __nv_bfloat16* r;
    int m, n, k;
  };

  using OutputTile = k_major::OutputTile;

  // One relu thread's share of an A tile: vectors t, t + 128, ... of the tile's 1024 16-byte
  // vectors (8 to a 64-wide row).
  static constexpr int kVecsPerRow = kTileK / 8;
  static constexpr int kVecsPerThread = kTileM * kVecsPerRow / kReluThreads;
  struct Fragment {
    uint4 v[kVecsPerThread];  // (VECS_PER_THREAD), 8 bf16 each
  };

  // ---- Resources -------------------------------------------------------------------------------

  using KSteps = k_major::KSteps;

  // B's tiles: filled by TMA, read by the wgmma that AForMma::mma issues.
  using SmemB = k_major::TmaRingB<kStages, kTileN, kTileK, Params>;

  // The members of the Fork: A's tiles as each reader task sees them. They alias one buffer
  // (ts::Alias below) and declare it alike — its bytes and its 1024-byte alignment (the swizzle
  // repeats every 8 rows of 128 bytes) — so that either view's addresses are the other's.
  using ATiles = ts::SmemBuffer<Bf16, kStages * kTileM * kTileK, 1024>;  // (BLK_M, BLK_K, STAGES)

  // The MMA's view: the primary member (declared first in the Fork). Its acquire arms the shared
  // full barrier with the tile's bytes, and the one fill is issued on it.
  struct AForMma {
    static constexpr ts::ResourceSpec spec{
        .name = "a_for_mma",
        .pipeline = ts::tma_wgmma(kStages, kStageBytesA, ts::threads(1), ts::warps(4))
                        .with_advance_on_wait()};
    ATiles tiles;
    using smem_buffers = ts::buffers<&AForMma::tiles>;
    int k_steps = 0;  // the MMA task's loop bound: KSteps::count, which the kernel copies
    Params const* p = nullptr;
    OutputTile tile{};
    SmemB const* b = nullptr;  // what the wgmma reads besides A
    using same_sizes = ts::same_sizes<ts::same_size<&AForMma::k_steps, &KSteps::count>>;

    // The fill, for both views: A's tile of K step `k`.
    WL_DEVICE void tma_load(ts::Produce const& stage, int k) {
      if (sm90::elect_one())
        k_major::tma_load_tile<SmemLayoutA>(p->tma_a, p->m, p->k, tiles.get(), tile.m, k,
                                            stage.stage_idx, stage.barrier);
    }

    // Issues (without waiting) the wgmma batch of one K step: acc (+)= A(stage) . B(b_stage)^T;
    // the first step overwrites acc.
    WL_DEVICE void mma(ts::Consume const& stage, Accumulator& acc, int b_stage) const {
      Mma::step<SmemLayoutA, SmemLayoutB>(tiles.get(), stage.stage_idx, b->tiles.get(), b_stage,
                                          acc, stage.loop_offset == stage.loop_start,
                                          static_cast<int>(threadIdx.x) % kMmaThreads);
    }
  };

  // The relu task's view. Its threads arrive one by one (threads(128), see the header).
  struct AForRelu {
    static constexpr ts::ResourceSpec spec{
        .name = "a_for_relu",
        .pipeline = ts::tma_async(kStages, kStageBytesA, ts::threads(1), ts::threads(kReluThreads))
                        .with_advance_on_wait()};
    ATiles tiles;
    using smem_buffers = ts::buffers<&AForRelu::tiles>;
    int k_steps = 0;        // the relu task's loop bound: KSteps::count, as in AForMma
    bool writes_r = false;  // this CTA writes R (n tile 0); the others read nothing either
    using same_sizes = ts::same_sizes<ts::same_size<&AForRelu::k_steps, &KSteps::count>>;

    // This thread's vectors of the stage, read through the swizzled layout: vector v is row
    // v / 8, elements 8 (v % 8) ... + 7, 16 contiguous bytes (the swizzle moves whole 16-byte
    // chunks). Eight threads read one 128-byte row, whose chunks the swizzle spreads over all
    // banks.
    WL_DEVICE Fragment read(ts::Consume const& stage) const {
      Fragment f{};
      if (!writes_r) return f;
      // The swizzle applied to the element offset, not to the address (the same thing: the buffer
      // is 1024-byte aligned), so that the compiler still sees a shared-memory pointer and issues
      // LDS rather than generic loads.
      auto sA = cute::as_position_independent_swizzle_tensor(cute::make_tensor(
          cute::make_smem_ptr(tiles.get()), SmemLayoutA{}));  // (BLK_M, BLK_K, PIPE)
      int const thread = static_cast<int>(threadIdx.x) - kReluThread0;
#pragma unroll
      for (int j = 0; j < kVecsPerThread; ++j) {
        int const v = j * kReluThreads + thread;
        f.v[j] = *reinterpret_cast<uint4 const*>(
            &sA(v / kVecsPerRow, (v % kVecsPerRow) * 8, stage.stage_idx));
      }
      return f;
    }
  };

  using ATile = ts::Fork<"a_tile", AForMma, AForRelu>;  // AForMma is the primary member

  // D's tile, from the MMA threads' registers.
  struct GmemD {
    static constexpr ts::ResourceSpec spec{.name = "gmem_d"};
    Params const* p = nullptr;
    OutputTile tile{};

    // Straight from registers (Wgmma128x128::store_d).
    WL_DEVICE void store(ts::Produce const&, Accumulator const& acc) {
      Mma::store_d(acc, p->d, p->m, p->n, tile.m, tile.n);
    }
  };

  // R's rows of the CTA's M tile, written by the relu task of the first column of CTAs.
  struct GmemR {
    static constexpr ts::ResourceSpec spec{.name = "gmem_r"};
    Params const* p = nullptr;
    OutputTile tile{};
    bool writes_r = false;

    // max(a, +0) of this thread's vectors of K step `stage.loop_offset`: a warp writes four
    // whole 128-byte rows a store.
    WL_DEVICE void store_relu(ts::Produce const& stage, Fragment const& f) {
      if (!writes_r) return;
      __nv_bfloat162 const zero = __float2bfloat162_rn(0.0f);
      int const thread = static_cast<int>(threadIdx.x) - kReluThread0;
      std::int64_t const row0 = static_cast<std::int64_t>(tile.m) * kTileM;
      int const col0 = stage.loop_offset * kTileK;
#pragma unroll
      for (int j = 0; j < kVecsPerThread; ++j) {
        int const v = j * kReluThreads + thread;
        uint4 x = f.v[j];
        auto* pairs = reinterpret_cast<__nv_bfloat162*>(&x);
#pragma unroll
        for (int i = 0; i < 4; ++i) pairs[i] = __hmax2(pairs[i], zero);
        *reinterpret_cast<uint4*>(p->r + (row0 + v / kVecsPerRow) * p->k + col0 +
                                  (v % kVecsPerRow) * 8) = x;
      }
    }
  };

  // ---- Schedules and tasks ---------------------------------------------------------------------

  // K step by K step: wait for both operands, issue the step's wgmma batch, keep it in flight and
  // give back the stages of the step before (their batch retired under wgmma_wait<1>); the last
  // stages once the last batch retired. Then D, from the registers.
  struct MmaTask {
    static constexpr ts::TaskSpec spec{
        .name = "mma", .warp_idx = 0, .num_warps = 4, .num_registers = 232};
    using src = ts::list<AForMma, SmemB>;
    using dst = ts::list<GmemD>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& d) {
      auto acc = ctx.local(Accumulator{});
      ctx.domain_loop(a->k_steps, [&](auto& k) {
        a.wait();
        b.wait();
        auto b_stage = ts::work<&SmemB::stage_of>(b);
        ts::work<&AForMma::mma>(a, acc, b_stage);
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

  // The stage goes back to load_a as soon as the tile is in registers; R is written after.
  struct ReluTask {
    static constexpr ts::TaskSpec spec{
        .name = "relu", .warp_idx = 4, .num_warps = 4, .num_registers = 160};
    using src = ts::list<AForRelu>;
    using dst = ts::list<GmemR>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& a, auto& r) {
      ctx.domain_loop(a->k_steps, [&](auto&) {
        a.wait();
        auto f = ts::work<&AForRelu::read>(a);
        a.release();
        ts::work<&GmemR::store_relu>(r, f);
      });
    }
  };

  // One fill of A for both readers.
  struct LoadATask {
    static constexpr ts::TaskSpec spec{
        .name = "load_a", .warp_idx = 8, .num_warps = 1, .num_registers = 40};
    using src = ts::list<KSteps>;
    using dst = ts::list<AForMma, AForRelu, ATile>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& k_steps, auto& for_mma,
                                                  auto& for_relu, auto& a_tile) {
      ctx.domain_loop(k_steps->count, [&](auto&) {
        auto k = ts::work<&KSteps::k_of>(k_steps);
        for_mma.acquire();  // both readers must have released the stage: one buffer
        for_relu.acquire();
        ts::work<&AForMma::tma_load>(for_mma, k);
        a_tile.commit();  // TMA: the copy's bytes complete the shared full barrier
      });
    }
  };

  struct LoadBTask {
    static constexpr ts::TaskSpec spec{
        .name = "load_b", .warp_idx = 9, .num_warps = 1, .num_registers = 40};
    using src = ts::list<KSteps>;
    using dst = ts::list<SmemB>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& k_steps, auto& b) {
      ctx.domain_loop(k_steps->count, [&](auto&) {
        auto k = ts::work<&KSteps::k_of>(k_steps);
        b.acquire();
        ts::work<&SmemB::tma_load>(b, k);
        b.commit();
      });
    }
  };

  // Verified in the schedule unit, not in the kernel's translation unit.
  using Manager =
      ts::TaskManager<ts::Tasks<MmaTask, ReluTask, LoadATask, LoadBTask>,
                      ts::Graph<ts::DependsOn<AForMma, KSteps>, ts::DependsOn<AForRelu, KSteps>,
                                ts::DependsOn<SmemB, KSteps>, ts::DependsOn<GmemD, AForMma, SmemB>,
                                ts::DependsOn<GmemR, AForRelu>>,
                      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit},
                      ts::Aliases<ts::Alias<&AForMma::tiles, &AForRelu::tiles>>>;
  static_assert(Manager::smem_bytes <= 227 * 1024, "the stages exceed 227 KiB of shared memory");

  // ---- Name ------------------------------------------------------------------------------------
  static constexpr ts::ScheduleText kNameText = ts::schedule_text("fork_gemm_relu");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr ts::ScheduleText kDescriptionText = ts::schedule_text(
      "tutorial 07: D = A.B^T (wgmma) and R = max(A, 0), each A tile read once by TMA through a "
      "ts::Fork; ",
      kStages, " stages of 128x64 tiles, a 128x128 D tile per CTA");
  static constexpr std::string_view kDescription = kDescriptionText.view();
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    fork_gemm_relu_ts_kernel(__grid_constant__ typename Cfg::Params const p) {
  using Manager = typename Cfg::Manager;
  // 1024: the swizzled stages repeat every 1024 bytes, and wgmma's descriptors and TMA's swizzle
  // take their pattern from the address.
  extern __shared__ __align__(1024) char smem[];
  k_major::prefetch_tma_descriptors<Cfg::LoadATask::spec.warp_idx>(p.tma_a, p.tma_b);

  auto const tile = Cfg::OutputTile::of_cta(static_cast<int>(blockIdx.x), p.n / Cfg::kTileN);
  bool const writes_r = tile.n == 0;  // one CTA per row of tiles writes R
  int const k_steps = p.k / Cfg::kTileK;
  typename Cfg::KSteps steps{.count = k_steps};
  typename Cfg::SmemB b{};
  b.p = &p;
  b.tile = tile;
  typename Cfg::AForMma for_mma{};
  for_mma.k_steps = k_steps;
  for_mma.p = &p;
  for_mma.tile = tile;
  for_mma.b = &b;
  typename Cfg::AForRelu for_relu{};
  for_relu.k_steps = k_steps;
  for_relu.writes_r = writes_r;
  typename Cfg::ATile a_tile{};
  typename Cfg::GmemD d{.p = &p, .tile = tile};
  typename Cfg::GmemR r{.p = &p, .tile = tile, .writes_r = writes_r};

  Manager tm(smem, steps, b, for_mma, for_relu, a_tile, d, r);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

// The fork GEMM the tutorial runs, a schedule unit (kernels/CMakeLists.txt): 4 stages of 128 x 64
// A and B tiles (16 KiB each per stage, 128 KiB in all; A's one buffer both views alias).
using TutorialForkGemmRelu = ForkGemmRelu</*stages=*/4>;

}  // namespace warploom::tutorial
