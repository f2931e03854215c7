// kernels/gemm/simt/schedule.hpp
//
// The SIMT GEMM's schedule: D = alpha * (A . B) + beta * C with FMA on the CUDA cores, no tensor
// cores. The fallback of warploom::gemm::gemm for what the sm90 tensor-core GEMM cannot run: fp32
// and fp64 inputs, fp8 inputs that are not both K-major (wgmma reads 8-bit operands K-major only),
// and 16-bit or fp8 inputs whose pointers, leading dimensions or batch strides break TMA's 16-byte
// rules (a packed fp16 K = 17, an fp8 K = 40). Its only alignment rule is the element's own. fp8
// values are widened to fp32 in the stages, so products and sums are exact fp32 FMA.
//
//   Tiles ──tile──▶ LoadTask ──frag──▶ SmemAB (threads -> threads) ──▶ MathTask ──acc──▶ GmemD
//   (raster order)  warps 8-11:        STAGES x (A as K x M,            warps 0-7: wait,
//                   global loads,      B as K x N), in the compute      FMA from smem into
//                   acquire, store,    type, rows padded by 16 bytes    registers, release;
//                   commit                                              after the last K tile
//                                                                       store (alpha, beta)
//
// Every CTA walks output tiles blockIdx.x, blockIdx.x + gridDim.x, ... in the raster order of
// `TileRaster`. For each tile the load task reads the K tiles of A and B from global memory with
// plain predicated loads (zero outside the matrix, so partial tiles need no other care), *then*
// acquires a stage, widens the values to the compute type, stores them K-major and commits: the
// loads are in flight while the task waits for a free stage. The math task (8 warps, a 4 x 2 grid
// of warp tiles) multiplies each stage into a per-thread block of kThreadM x kThreadN accumulators
// (a task-local variable the fma work updates in place) and releases the stage as soon as the work
// returns: it read the stage into registers, so nothing asynchronous still reads it. After the
// last K tile the math warps write their blocks of D, predicated on M and N, while the load task
// already fills the stages with the next tile.
//
// Tiles: 128 x 128 (fp32 accumulation: 8 x 8 outputs per math thread) or 128 x 64 (fp64: 8 x 4);
// the K tile and stage count are the shape's (shape.hpp).
//
// Warps: math on warps 0-7, load on warps 8-11; no setmaxnreg: every warp keeps the kernel's
// budget, 168 registers under __launch_bounds__(384, 1), which the math threads need (64
// accumulators plus the operands of the next k in flight) and the load threads use for the values
// of a whole stage in flight. One CTA per SM.
//
// This file is the schedule only: the same for every type pair with one accumulator size, verified
// once in its schedule unit. `W` supplies the work bodies (works.cuh, or schedule_only.hpp for the
// verifier).
#pragma once

#include <string_view>

#include "gemm/simt/resources.hpp"
#include "gemm/simt/schedule_only.hpp"
#include "gemm/simt/shape.hpp"

namespace warploom::gemm::simt {

template <class S, class W = ScheduleOnly>
struct Schedule {
  static constexpr ScheduleText kNameText = schedule_name<S>();
  static constexpr std::string_view kName = kNameText.view();
  static constexpr ScheduleText kDescriptionText = [] {
    ScheduleText d;
    d.append("GEMM without tensor cores, ");
    d.append(S::kAccBytes == 8 ? "fp64" : "fp32");
    d.append(" FMA: persistent, ");
    d.append(S::kLoadThreads / 32);
    d.append(" load warps -> ");
    d.append(S::kStages);
    d.append("-stage smem, K tile ");
    d.append(S::kTileK);
    d.append(" (threads -> threads) -> ");
    d.append(S::kMathWarps);
    d.append(" FMA warps");
    return d;
  }();
  static constexpr std::string_view kDescription = kDescriptionText.view();

  using Tiles = simt::Tiles<W>;
  using GmemAB = simt::GmemAB<S, W>;
  using SmemAB = simt::SmemAB<S, W>;
  using GmemD = simt::GmemD<W>;
  using Accumulator = typename W::Accumulator;

  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = S::kLoadWarp, .num_warps = S::kLoadThreads / 32};
    using src = ts::list<Tiles, GmemAB>;
    using dst = ts::list<SmemAB>;
    // The global loads come before acquire(): they are in flight while the task waits for the
    // math warps to free the stage, and only the store into it waits for them.
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& gmem, auto& smem) {
      ctx.domain_loop(ctx.block_idx(), tiles->num_tiles, ctx.grid_dim(), [&](auto&) {
        auto tile = ts::work<&Tiles::next>(tiles);
        ctx.domain_loop(tiles->k_tiles, [&](auto&) {
          auto fragment = ts::work<&GmemAB::load>(gmem, tile);
          smem.acquire();
          ts::work<&SmemAB::store>(smem, fragment);
          smem.commit();
        });
      });
    }
  };

  struct MathTask {
    static constexpr ts::TaskSpec spec{.name = "math", .warp_idx = 0, .num_warps = S::kMathWarps};
    using src = ts::list<Tiles, SmemAB>;
    using dst = ts::list<GmemD>;
    // The FMA work reads the stage into registers as it goes, so the stage is released right
    // after it (no asynchronous reader to retire first, unlike wgmma).
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& smem, auto& d) {
      auto acc = ctx.local(Accumulator{});
      ctx.domain_loop(ctx.block_idx(), tiles->num_tiles, ctx.grid_dim(), [&](auto&) {
        auto tile = ts::work<&Tiles::next>(tiles);
        ctx.domain_loop(tiles->k_tiles, [&](auto&) {
          smem.wait();
          ts::work<&SmemAB::fma>(smem, acc);
          smem.release();
        });
        ts::work<&GmemD::store>(d, tile, acc);
      });
    }
  };

  using Manager = ts::TaskManager<
      ts::Tasks<MathTask, LoadTask>,
      ts::Graph<ts::DependsOn<SmemAB, GmemAB, Tiles>, ts::DependsOn<GmemD, SmemAB, Tiles>>,
      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;

#if defined(__CUDACC__)
  // The kernel body: this CTA's resources, the schedule, run.
  static WL_DEVICE void run(typename W::Params const& p, char* smem) {
    Tiles tiles{.p = &p, .num_tiles = p.num_tiles, .k_tiles = p.k_tiles};
    GmemAB ab{.p = &p};
    SmemAB stages{};
    stages.p = &p;
    GmemD d{.p = &p};
    Manager tm(smem, tiles, ab, stages, d);
    tm.setup_resources_and_tasks().fence_and_sync_cta().run();
  }
#endif
};

}  // namespace warploom::gemm::simt
