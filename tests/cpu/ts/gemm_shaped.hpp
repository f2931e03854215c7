// tests/cpu/ts/gemm_shaped.hpp
//
// A TaskManager shaped like a persistent warp-specialised Hopper GEMM, for the model checker's
// tests and its benchmark: five tasks (epilogue warps 0-3, TMA load warp 4, tile scheduler warps
// 5-7, two MMA warpgroups on warps 8-15), an 8-stage TMA -> wgmma pipeline with lagged release,
// a 2-stage accumulator hand-off to the epilogue, and a persistent tile loop around the k-loop.
// `kMmaRelease` picks the MMA task's release discipline (the correct lagged one, or bugs).
#pragma once

#include "warploom/ts/ts.hpp"

namespace gemm_shaped {

namespace ts = warploom::ts;

inline constexpr int kStages = 8;

struct Tiles {
  static constexpr ts::ResourceSpec spec{.name = "tiles"};
  int num_tiles = 0;
  int k_tiles = 0;
  int next(ts::Consume const& s) const { return s.loop_offset; }
};

struct GmemAB {
  static constexpr ts::ResourceSpec spec{.name = "gmem_ab"};
  int coords(ts::Consume const& s) const { return s.loop_offset; }
};

struct SmemAB {
  static constexpr ts::ResourceSpec spec{
      .name = "smem_ab",
      .pipeline =
          ts::tma_wgmma(kStages, 16384, ts::threads(1), ts::threads(256)).with_advance_on_wait()};
  ts::SmemBuffer<char, kStages * 16384> ab;  // (STAGES, A+B tile)
  using smem_buffers = ts::buffers<&SmemAB::ab>;
  void tma_load(ts::Produce const&, int) {}
  int mma(ts::Consume const&, int acc) const { return acc; }
};

struct Accum {
  static constexpr ts::ResourceSpec spec{
      .name = "accum", .pipeline = ts::async_async(2, ts::threads(256), ts::threads(128))};
  ts::SmemBuffer<char, 2 * 32768> staging;  // (STAGES, C tile)
  using smem_buffers = ts::buffers<&Accum::staging>;
  void put(ts::Produce const&, int) {}
  int get(ts::Consume const&) const { return 0; }
};

struct GmemD {
  static constexpr ts::ResourceSpec spec{.name = "gmem_d"};
  void store(ts::Produce const&, int) {}
};

struct Load {
  static constexpr ts::TaskSpec spec{
      .name = "load", .warp_idx = 4, .num_warps = 1, .num_registers = 40};
  using src = ts::list<Tiles, GmemAB>;
  using dst = ts::list<SmemAB>;
  static constexpr void schedule(auto& ctx, auto& tiles, auto& gmem, auto& smem) {
    ctx.domain_loop(tiles->num_tiles, [&](auto&) {
      ts::work<&Tiles::next>(tiles);
      ctx.domain_loop(tiles->k_tiles, [&](auto&) {
        auto c = ts::work<&GmemAB::coords>(gmem);
        smem.acquire();
        ts::work<&SmemAB::tma_load>(smem, c);
        smem.commit();
      });
    });
  }
};

enum class MmaRelease { Lagged, NoWgmmaWait, WaitOneThenReleaseCurrent };

template <MmaRelease kMmaRelease>
struct Mma {
  static constexpr ts::TaskSpec spec{
      .name = "mma", .warp_idx = 8, .num_warps = 8, .num_registers = 208};
  using src = ts::list<Tiles, SmemAB>;
  using dst = ts::list<Accum>;
  static constexpr void schedule(auto& ctx, auto& tiles, auto& smem, auto& acc) {
    ctx.domain_loop(tiles->num_tiles, [&](auto&) {
      ts::work<&Tiles::next>(tiles);
      auto a = ctx.local(0);
      ctx.domain_loop(tiles->k_tiles, [&](auto& k) {
        smem.wait();
        a = ts::work<&SmemAB::mma>(smem, a);
        if constexpr (kMmaRelease == MmaRelease::Lagged) {
          ts::wgmma_wait<1>(ctx);                     // the previous stage's reads retired
          k.not_first_iter([&] { smem.release(); });  // ... so release it
          k.last_iter([&] {
            ts::wgmma_wait<0>(ctx);
            smem.release();
          });
        } else if constexpr (kMmaRelease == MmaRelease::NoWgmmaWait) {
          smem.release();
        } else {
          ts::wgmma_wait<1>(ctx);
          smem.release();  // releases the stage whose reads may still be in flight
        }
      });
      ts::wgmma_wait<0>(ctx);
      acc.acquire();
      ts::work<&Accum::put>(acc, a);
      acc.commit();
    });
  }
};

struct Epilogue {
  static constexpr ts::TaskSpec spec{
      .name = "epilogue", .warp_idx = 0, .num_warps = 4, .num_registers = 40};
  using src = ts::list<Tiles, Accum>;
  using dst = ts::list<GmemD>;
  static constexpr void schedule(auto& ctx, auto& tiles, auto& acc, auto& d) {
    ctx.domain_loop(tiles->num_tiles, [&](auto&) {
      ts::work<&Tiles::next>(tiles);
      acc.wait();
      auto v = ts::work<&Accum::get>(acc);
      acc.release();
      ts::work<&GmemD::store>(d, v);
    });
  }
};

struct Scheduler {
  static constexpr ts::TaskSpec spec{
      .name = "scheduler", .warp_idx = 5, .num_warps = 3, .num_registers = 40};
  using src = ts::list<Tiles>;
  using dst = ts::list<>;
  static constexpr void schedule(auto& ctx, auto& tiles) {
    ctx.domain_loop(tiles->num_tiles, [&](auto&) { ts::work<&Tiles::next>(tiles); });
  }
};

template <MmaRelease kMmaRelease = MmaRelease::Lagged>
using Manager =
    ts::TaskManager<ts::Tasks<Epilogue, Load, Scheduler, Mma<kMmaRelease>>,
                    ts::Graph<ts::DependsOn<SmemAB, GmemAB, Tiles>, ts::DependsOn<Accum, SmemAB>,
                              ts::DependsOn<GmemD, Accum>>>;

}  // namespace gemm_shaped
