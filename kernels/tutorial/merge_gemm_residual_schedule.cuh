// kernels/tutorial/merge_gemm_residual_schedule.cuh
//
// Tutorial 07, GEMM + residual through two Merge groups (the seed's 07/03): D = A . B^T + R.
//
// A (M x K) and B (N x K) are bf16 and K-major (row-major A, B stored N x K: the "tn" layout); R
// and D (M x N) are bf16, row-major. Each CTA computes one 128 x 128 tile of D in K steps of 64.
// Two consumers each need a stage of two pipelines filled by different producers, so each pair is
// a ts::Merge: the members keep their own full barriers and share one array of empty barriers,
// which their consumer arrives on once for all of them.
//
//     KSteps ──k──▶ load_a: TMA A ──▶ SmemA ──┐ ab = ts::Merge       mma: wait A and B, wgmma,
//                                             ├──────────────────▶   release ab for the step
//     KSteps ──k──▶ load_b: TMA B ──▶ SmemB ──┘ (one release)        before (lag); then the
//                                                                    accumulator to AccTile
//                                   mma threads ──▶ AccTile ──┐ resadd = ts::Merge
//                                                             ├─────────────────▶ epilogue:
//     GmemR ──tile──▶ load_r: TMA R ──────────▶ SmemR   ──────┘ (one release)     D = acc + R
//
// On Blackwell the seed's accumulator lives in TMEM and reaches the epilogue warps through a
// UmmaAsync pipeline. Hopper has no TMEM: the accumulator is in the MMA warpgroup's registers, so
// its threads write it to shared memory (AccTile, an async_async pipeline: 128 thread arrivals
// fill the stage) for a second warpgroup, the epilogue, which waits for that tile and for R's
// (SmemR, TMA), adds them, releases `resadd` once and stores D. The MMA warpgroup never touches
// R or D.
//
// Why the hand-off is fp32. D = A . B^T + R is then rounded once, to bf16, where handing over a
// bf16 accumulator would round twice (the product, then the sum); the GPU test can hold D to half
// a bf16 ulp of the float64 result only with one rounding. The price is shared memory: 64 KiB for
// the fp32 tile where bf16 would take 32 (the 224 KiB in all below fit the 227 KiB a CTA may have).
//
// Why the hand-off keeps the MMA's fragment order. The tile in shared memory is not a matrix but
// 128 threads' fragments: float4 q of MMA thread t sits at AccTile[q * 128 + t], and epilogue
// thread t reads back what MMA thread t wrote. A warp's 16-byte stores and loads then cover 512
// contiguous bytes, the four wavefronts they need at least, where a row-major fp32 tile (512-byte
// rows, a multiple of the 128 bytes of the banks) would put the eight rows of a warp's store on
// the same banks. The epilogue thread then holds values at the MMA thread's (row, column)
// positions (Wgmma128x128::coordinates): it reads R there, as bf16 pairs, from R's tile in the
// 128-byte-swizzled layout (chunk c of row r at c ^ (r % 8)), in which the eight rows of a warp's
// read land on eight different 16-byte chunks, all 32 banks; and it stores D there as bf16 pairs
// from registers, as 07/04 stores D.
//
// The epilogue works in chunks of 16 accumulator values (a domain loop over kChunks, inside one
// wait..release of both members): a chunk's accumulator, residuals and sums are all it keeps in
// registers. The release comes after the last chunk's stores: each CTA computes one tile, so
// nobody refills the stages; the release lets the producers' tails (the MMA warpgroup and load_r)
// finish.
//
// `ab` holds A's and B's rings, 4 stages of 128 x 64 tiles each, both with separate wait and
// release cursors (`with_advance_on_wait`, on which a Merge's members must agree, R-C2): the MMA
// task keeps one wgmma batch in flight and releases the stages of the step before (the production
// GEMM's lagged release, kernels/gemm/sm90/resources.hpp, checked under R-D13), with one
// `ab.release()` where two pipelines would need two arrivals per warp. `resadd` holds one stage of
// each member: one accumulator tile and one R tile per CTA.
//
// Warps: mma on warps 0-3 (one warpgroup, 232 registers: its 128 x 128 fp32 accumulator is 128
// registers a thread), epilogue on warps 4-7 (160), load_a, load_b and load_r on warps 8-10 (40;
// the TaskManager pads warp 11): 128 x (232 + 160 + 40) = 55296 <= 65536 registers.
//
// The CuTe side is 07/04's (fork_gemm_relu_schedule.cuh), through k_major_tiles.cuh: each stage a
// K-major tile in the 128-byte-swizzled GMMA layout, which TMA writes and wgmma reads through
// descriptors (k_major::tma_load_tile, k_major::Wgmma128x128). R's tile is two 128 x 64 halves of
// the same layout, loaded by the same TMA load as an operand whose "K" is N. There is no
// hand-written baseline: the tutorial shows the two Merges, not an instruction count.
//
// This file is the schedule's one source: the kernel runs it and its schedule unit
// (kernels/CMakeLists.txt) verifies it while it compiles.
#pragma once

#include <cstdint>
#include <string_view>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cuda_bf16.h>  // __nv_bfloat162, __floats2bfloat162_rn

#include "tutorial/k_major_resources.cuh"    // k_major::KSteps, TmaRingB
#include "tutorial/k_major_tiles.cuh"        // k_major::Bf16, SwizzledLayout, Wgmma128x128
#include "tutorial/merge_gemm_residual.hpp"  // kMergeGemmResidualTileM, _N, _K
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

template <int kStages_>
struct MergeGemmResidual {
  // ---- Shape ---------------------------------------------------------------------------------
  using Mma = k_major::Wgmma128x128;
  static constexpr int kStages = kStages_;
  static constexpr int kTileM = kMergeGemmResidualTileM;
  static constexpr int kTileN = kMergeGemmResidualTileN;
  static constexpr int kTileK = kMergeGemmResidualTileK;
  static_assert(kTileM == Mma::kTileM && kTileN == Mma::kTileN, "one warpgroup's wgmma tile");
  static constexpr int kMmaThreads = Mma::kThreads;  // warps 0-3
  static constexpr int kEpilogueThread0 = 128;       // the epilogue's first thread (warp 4)
  static constexpr int kEpilogueThreads = 128;
  using Bf16 = k_major::Bf16;
  static constexpr int kStageBytesA = kTileM * kTileK * static_cast<int>(sizeof(Bf16));  // 16 KiB
  static constexpr int kStageBytesB = kTileN * kTileK * static_cast<int>(sizeof(Bf16));  // 16 KiB
  static constexpr int kTileBytesR = kTileM * kTileN * static_cast<int>(sizeof(Bf16));   // 32 KiB

  // ---- CuTe: layouts, TMA ----------------------------------------------------------------------
  using SmemLayoutA = k_major::SwizzledLayout<kTileM, kTileK, kStages>;  // (BLK_M, BLK_K, STAGES)
  using SmemLayoutB = k_major::SwizzledLayout<kTileN, kTileK, kStages>;  // (BLK_N, BLK_K, STAGES)
  // R's tile as two halves of 64 columns: a 128-byte-swizzled row holds 64 bf16.
  static constexpr int kHalfN = 64;
  using SmemLayoutR = k_major::SwizzledLayout<kTileM, kHalfN, 2>;  // (BLK_M, 64, HALVES)
  static_assert(cute::cosize_v<SmemLayoutA> * sizeof(Bf16) == kStages * kStageBytesA);
  static_assert(cute::cosize_v<SmemLayoutB> * sizeof(Bf16) == kStages * kStageBytesB);
  static_assert(cute::cosize_v<SmemLayoutR> * sizeof(Bf16) == kTileBytesR);

  // The TMA load of a matrix's (kRows x kCols) tiles into a stage of `Smem`.
  template <int kRows, int kCols, class Smem>
  static auto make_tma_load(Bf16 const* ptr, int rows, int cols) {
    return k_major::make_tma_load<kRows, kCols>(ptr, rows, cols, Smem{}(cute::_, cute::_, 0));
  }
  using TmaA = decltype(make_tma_load<kTileM, kTileK, SmemLayoutA>(nullptr, 0, 0));
  using TmaB = decltype(make_tma_load<kTileN, kTileK, SmemLayoutB>(nullptr, 0, 0));
  using TmaR = decltype(make_tma_load<kTileM, kHalfN, SmemLayoutR>(nullptr, 0, 0));

  using Accumulator = Mma::Accumulator;

  // The epilogue's unit of work: kChunkValues consecutive values of a thread's accumulator, in
  // 16-byte vectors (float4 q of the fragment holds values 4q .. 4q + 3).
  static constexpr int kChunkValues = 16;
  static constexpr int kChunks = Mma::kAccValues / kChunkValues;  // 8
  static constexpr int kVectorsPerChunk = kChunkValues / 4;
  static constexpr int kAccVectors = Mma::kAccValues / 4;  // 32 float4 a thread
  struct AccChunk {
    float4 v[kVectorsPerChunk];  // (VECTORS), values 16 c .. 16 c + 15 of the fragment
  };
  struct ResidualChunk {
    __nv_bfloat162 v[kChunkValues / 2];  // (PAIRS), R at the chunk's (row, column) pairs
  };

  // Everything the kernel gets from the host (a __grid_constant__ parameter: the TMA descriptors
  // must live in parameter, constant or global memory).
  struct Params {
    TmaA tma_a;
    TmaB tma_b;
    TmaR tma_r;
    __nv_bfloat16* d;
    int m, n, k;
  };

  using OutputTile = k_major::OutputTile;

  // ---- Resources -------------------------------------------------------------------------------

  using KSteps = k_major::KSteps;

  // B's tiles: filled by TMA, read by the wgmma that A's ring issues.
  using SmemB = k_major::TmaRingB<kStages, kTileN, kTileK, Params>;

  // A's tiles: filled by TMA, read by wgmma beside B's.
  using SmemA = k_major::TmaRingA<kStages, kTileK, Params, SmemB>;

  // The first group: one release by the MMA task frees a stage of A and of B.
  using AB = ts::Merge<"ab", SmemA, SmemB>;

  // The accumulator tile, handed from the MMA warpgroup's registers to the epilogue's: every MMA
  // thread writes its fragment and arrives (threads(128)), every epilogue thread reads its own.
  struct AccTile {
    static constexpr ts::ResourceSpec spec{
        .name = "acc_tile",
        .pipeline = ts::async_async(1, ts::threads(kMmaThreads), ts::threads(kEpilogueThreads))};
    ts::SmemBuffer<float4, kAccVectors * kMmaThreads, 128> tiles;  // (VECTORS, THREADS), 64 KiB
    using smem_buffers = ts::buffers<&AccTile::tiles>;

    // MMA thread t's float4 q at q * 128 + t (see the header: a warp's stores are 512 contiguous
    // bytes).
    WL_DEVICE void put(ts::Produce const&, Accumulator const& acc) {
      int const t = static_cast<int>(threadIdx.x) % kMmaThreads;
#pragma unroll
      for (int q = 0; q < kAccVectors; ++q)
        tiles[q * kMmaThreads + t] =
            make_float4(acc.v[4 * q], acc.v[4 * q + 1], acc.v[4 * q + 2], acc.v[4 * q + 3]);
    }
    // Chunk `stage.loop_offset` of the fragment of the MMA thread this epilogue thread mirrors.
    WL_DEVICE AccChunk read(ts::Consume const& stage) const {
      int const t = static_cast<int>(threadIdx.x) - kEpilogueThread0;
      AccChunk c;
#pragma unroll
      for (int e = 0; e < kVectorsPerChunk; ++e)
        c.v[e] = tiles[(stage.loop_offset * kVectorsPerChunk + e) * kMmaThreads + t];
      return c;
    }
  };

  // Where R's tile comes from (a coordinate-only resource): the CTA's output tile.
  struct GmemR {
    static constexpr ts::ResourceSpec spec{.name = "gmem_r"};
    OutputTile tile{};
    WL_DEVICE OutputTile tile_of(ts::Consume const&) const { return tile; }
  };

  // R's tile: filled by TMA (two copies, one per 64-column half, on one barrier), read by the
  // epilogue's threads.
  struct SmemR {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_r",
        .pipeline = ts::tma_async(1, kTileBytesR, ts::threads(1), ts::threads(kEpilogueThreads))};
    Params const* p = nullptr;
    ts::SmemBuffer<Bf16, kTileM * kTileN, 1024> tiles;  // (BLK_M, 64, HALVES)
    using smem_buffers = ts::buffers<&SmemR::tiles>;

    // R's tile `t`: to TMA, an M x N matrix is an operand whose K is N, and the tile's halves are
    // its K tiles 2 t.n and 2 t.n + 1.
    WL_DEVICE void tma_load(ts::Produce const& stage, OutputTile t) {
      if (!sm90::elect_one()) return;
#pragma unroll
      for (int h = 0; h < 2; ++h)
        k_major::tma_load_tile<SmemLayoutR>(p->tma_r, p->m, p->n, tiles.get(), t.m, 2 * t.n + h, h,
                                            stage.barrier);
    }
    // R at the (row, column) pairs of chunk `stage.loop_offset` of this thread's fragment, through
    // the swizzled layout (applied to the element offset, so that the pointer stays a
    // shared-memory one and the loads are LDS).
    WL_DEVICE ResidualChunk read(ts::Consume const& stage) const {
      auto sR = cute::as_position_independent_swizzle_tensor(cute::make_tensor(
          cute::make_smem_ptr(tiles.get()), SmemLayoutR{}));  // (BLK_M, 64, HALVES)
      auto coord = Mma::coordinates(static_cast<int>(threadIdx.x) - kEpilogueThread0);
      ResidualChunk c;
#pragma unroll
      for (int j = 0; j < kChunkValues / 2; ++j) {
        auto [row, col] = coord(stage.loop_offset * kChunkValues + 2 * j);
        c.v[j] = *reinterpret_cast<__nv_bfloat162 const*>(&sR(row, col % kHalfN, col / kHalfN));
      }
      return c;
    }
  };

  // The second group: one release by the epilogue frees the accumulator tile and R's.
  using ResAdd = ts::Merge<"resadd", AccTile, SmemR>;

  // D's tile, from the epilogue threads' registers.
  struct GmemD {
    static constexpr ts::ResourceSpec spec{.name = "gmem_d"};
    Params const* p = nullptr;
    OutputTile tile{};

    // D = acc + R at the chunk's (row, column) pairs, in fp32, rounded once: a bf16x2 store a
    // pair, a quad of lanes covering 16 contiguous bytes of a row (as 07/04 stores D).
    WL_DEVICE void store_sum(ts::Produce const& stage, AccChunk const& acc,
                             ResidualChunk const& res) {
      auto coord = Mma::coordinates(static_cast<int>(threadIdx.x) - kEpilogueThread0);
      float const* values = reinterpret_cast<float const*>(acc.v);
      __nv_bfloat16* const d = p->d + static_cast<std::int64_t>(tile.m) * kTileM * p->n +
                               static_cast<std::int64_t>(tile.n) * kTileN;
#pragma unroll
      for (int j = 0; j < kChunkValues / 2; ++j) {
        auto [row, col] = coord(stage.loop_offset * kChunkValues + 2 * j);
        float2 const r = __bfloat1622float2(res.v[j]);
        *reinterpret_cast<__nv_bfloat162*>(d + static_cast<std::int64_t>(row) * p->n + col) =
            __floats2bfloat162_rn(values[2 * j] + r.x, values[2 * j + 1] + r.y);
      }
    }
  };

  // ---- Schedules and tasks ---------------------------------------------------------------------

  // K step by K step: wait for both operands, issue the step's wgmma batch, keep it in flight and
  // give back the stages of the step before (their batch retired under wgmma_wait<1>); the last
  // stages once the last batch retired. Then the accumulator, to the epilogue.
  struct MmaTask {
    static constexpr ts::TaskSpec spec{
        .name = "mma", .warp_idx = 0, .num_warps = 4, .num_registers = 232};
    using src = ts::list<SmemA, SmemB, AB>;
    using dst = ts::list<AccTile>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& ab,
                                                  auto& acc_tile) {
      auto acc = ctx.local(Accumulator{});
      ctx.domain_loop(a->k_steps, [&](auto& k) {
        a.wait();
        b.wait();
        auto b_stage = ts::work<&SmemB::stage_of>(b);
        ts::work<&SmemA::mma>(a, acc, b_stage);
        ts::wgmma_wait<1>(ctx);  // the previous step's batch retired
        k.not_first_iter([&] { ab.release(); });
        k.last_iter([&] {
          ts::wgmma_wait<0>(ctx);
          ab.release();
        });
      });
      // Again, unconditionally: ptxas cannot tell that last_iter ran, and would otherwise wait
      // for every batch in every step to keep the hand-off from reading accumulators in flight
      // (C7517; kernels/gemm/sm90/resources.hpp, mma_k_tiles).
      ts::wgmma_wait<0>(ctx);
      acc_tile.acquire();
      ts::work<&AccTile::put>(acc_tile, acc);
      acc_tile.commit();  // every MMA thread arrives: its writes are visible to the epilogue
    }
  };

  // Both members of `resadd`, chunk by chunk; one release of the group for both.
  struct EpilogueTask {
    static constexpr ts::TaskSpec spec{
        .name = "epilogue", .warp_idx = 4, .num_warps = 4, .num_registers = 160};
    using src = ts::list<AccTile, SmemR, ResAdd>;
    using dst = ts::list<GmemD>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& acc, auto& r, auto& resadd,
                                                  auto& d) {
      acc.wait();  // the MMA threads' 128 arrivals
      r.wait();    // R's TMA bytes
      ctx.domain_loop(ts::c<kChunks>, ts::unroll<kChunks>, [&](auto&) {
        auto values = ts::work<&AccTile::read>(acc);
        auto residual = ts::work<&SmemR::read>(r);
        ts::work<&GmemD::store_sum>(d, values, residual);
      });
      resadd.release();  // one arrival per thread frees both tiles
    }
  };

  // Loads of A and B: one warp each, K step by K step, each acquiring on ab's shared empty
  // barrier.
  template <class Smem, ts::FixedName kName, int kWarp>
  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = kName.view(), .warp_idx = kWarp, .num_warps = 1, .num_registers = 40};
    using src = ts::list<KSteps>;
    using dst = ts::list<Smem>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& k_steps, auto& smem) {
      ctx.domain_loop(k_steps->count, [&](auto&) {
        auto k = ts::work<&KSteps::k_of>(k_steps);
        smem.acquire();
        ts::work<&Smem::tma_load>(smem, k);
        smem.commit();  // TMA: nothing to arrive, the copy's bytes complete the stage
      });
    }
  };
  using LoadATask = LoadTask<SmemA, "load_a", 8>;
  using LoadBTask = LoadTask<SmemB, "load_b", 9>;

  // R's one tile, on resadd's shared empty barrier.
  struct LoadRTask {
    static constexpr ts::TaskSpec spec{
        .name = "load_r", .warp_idx = 10, .num_warps = 1, .num_registers = 40};
    using src = ts::list<GmemR>;
    using dst = ts::list<SmemR>;
    WL_HOST_DEVICE static constexpr void schedule(auto&, auto& gmem_r, auto& r) {
      auto tile = ts::work<&GmemR::tile_of>(gmem_r);
      r.acquire();
      ts::work<&SmemR::tma_load>(r, tile);
      r.commit();
    }
  };

  // Verified in the schedule unit, not in the kernel's translation unit.
  using Manager =
      ts::TaskManager<ts::Tasks<MmaTask, EpilogueTask, LoadATask, LoadBTask, LoadRTask>,
                      ts::Graph<ts::DependsOn<SmemA, KSteps>, ts::DependsOn<SmemB, KSteps>,
                                ts::DependsOn<AccTile, SmemA, SmemB>, ts::DependsOn<SmemR, GmemR>,
                                ts::DependsOn<GmemD, AccTile, SmemR>>,
                      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;
  static_assert(Manager::smem_bytes <= 227 * 1024, "the tiles exceed 227 KiB of shared memory");

  // ---- Name ------------------------------------------------------------------------------------
  static constexpr ts::ScheduleText kNameText = ts::schedule_text("merge_gemm_residual");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr ts::ScheduleText kDescriptionText = ts::schedule_text(
      "tutorial 07: D = A.B^T + R, two ts::Merge groups (A+B for wgmma; fp32 acc+R for the "
      "epilogue); ",
      kStages, " stages of 128x64 tiles, a 128x128 D tile per CTA");
  static constexpr std::string_view kDescription = kDescriptionText.view();
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    merge_gemm_residual_ts_kernel(__grid_constant__ typename Cfg::Params const p) {
  using Manager = typename Cfg::Manager;
  // 1024: the swizzled tiles repeat every 1024 bytes, and wgmma's descriptors and TMA's swizzle
  // take their pattern from the address.
  extern __shared__ __align__(1024) char smem[];
  k_major::prefetch_tma_descriptors<Cfg::LoadATask::spec.warp_idx>(p.tma_a, p.tma_b, p.tma_r);

  auto const tile = Cfg::OutputTile::of_cta(static_cast<int>(blockIdx.x), p.n / Cfg::kTileN);
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
  typename Cfg::AB ab{};
  typename Cfg::AccTile acc_tile{};
  typename Cfg::GmemR gmem_r{.tile = tile};
  typename Cfg::SmemR r{};
  r.p = &p;
  typename Cfg::ResAdd resadd{};
  typename Cfg::GmemD d{.p = &p, .tile = tile};

  Manager tm(smem, steps, a, b, ab, acc_tile, gmem_r, r, resadd, d);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

// The GEMM + residual the tutorial runs, a schedule unit (kernels/CMakeLists.txt): 4 stages of
// 128 x 64 A and B tiles (16 KiB each per stage, 128 KiB in all), the 64 KiB fp32 accumulator
// tile and the 32 KiB R tile: 224 KiB.
using TutorialMergeGemmResidual = MergeGemmResidual</*stages=*/4>;

}  // namespace warploom::tutorial
