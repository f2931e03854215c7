// tests/cpu/ts/fixtures.hpp
//
// Host-only resources and tasks shaped like the TMA-copy tutorial, for the CPU tests of capture,
// verification, allocation and printing. Work bodies are trivial: capture never runs them.
#pragma once

#include "warploom/ts/ts.hpp"

namespace fixtures {

namespace ts = warploom::ts;

inline constexpr int kStages = 2;
inline constexpr int kTileElems = 128;
inline constexpr int kTileBytes = kTileElems * 2;

struct InputGmem {
  static constexpr ts::ResourceSpec spec{.name = "input_gmem"};
  int rows = 0;
  int compute_coords(ts::Consume const& s) const { return s.loop_offset; }
};

struct SmemTiles {
  static constexpr ts::ResourceSpec spec{
      .name = "smem",
      .pipeline = ts::tma_async(kStages, kTileBytes, ts::threads(1), ts::threads(128))};
  ts::SmemBuffer<short, kStages * kTileElems> tiles;
  using smem_buffers = ts::buffers<&SmemTiles::tiles>;

  void init_load_state(ts::ProduceAux const&) {}
  void tma_load(ts::Produce const&, int row) { (void)row; }
  short read_smem(ts::Consume const& s) const { return static_cast<short>(s.stage_idx); }
};

struct OutputGmem {
  static constexpr ts::ResourceSpec spec{.name = "output_gmem"};
  void store(ts::Produce const&, short v) { (void)v; }
};

struct LoadTask {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 1, .num_registers = 40};
  using src = ts::list<InputGmem>;
  using dst = ts::list<SmemTiles>;
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ts::work<&SmemTiles::init_load_state>(smem);
    ctx.domain_loop(0, in->rows, 1, [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      smem.try_acquire();
      smem.acquire();
      ts::work<&SmemTiles::tma_load>(smem, row);
      smem.commit();
    });
  }
};

struct StoreTask {
  static constexpr ts::TaskSpec spec{.name = "store", .warp_idx = 0, .num_warps = 4, .num_registers = 160};
  using src = ts::list<SmemTiles>;
  using dst = ts::list<OutputGmem>;
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(0, 7, 1, [&](auto&) {
      smem.try_wait();
      smem.wait();
      auto v = ts::work<&SmemTiles::read_smem>(smem);
      smem.release();
      ts::work<&OutputGmem::store>(out, v);
    });
  }
};

using CopyGraph = ts::Graph<ts::DependsOn<SmemTiles, InputGmem>, ts::DependsOn<OutputGmem, SmemTiles>>;
using CopyManager =
    ts::TaskManager<ts::Tasks<LoadTask, StoreTask, ts::PaddingTask<5, 3, 40>>, CopyGraph>;

}  // namespace fixtures
