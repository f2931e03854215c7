// tests/cpu/ts/fixtures.hpp
//
// Host-only resources and tasks shaped like the TMA-copy tutorial, for the CPU tests of capture,
// verification, allocation and printing. Work bodies are trivial: capture never runs them.
//
// Below the tutorial set: the same copy with every knob a template parameter (pipeline config,
// warp ranges, registers), so a test can turn one knob of a good manager into a violation, and a
// thread-written ring (AsyncAsync) and a work queue.
#pragma once

#include <string>
#include <vector>

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
  int rows = 0;  // the rows both tasks loop over (a run-time bound): the input's
  ts::SmemBuffer<short, kStages * kTileElems> tiles;
  using smem_buffers = ts::buffers<&SmemTiles::tiles>;
  using same_sizes = ts::same_sizes<ts::same_size<&SmemTiles::rows, &InputGmem::rows>>;

  void init_load_state(ts::ProduceAux const&) {}
  void tma_load(ts::Produce const&, int row) { (void)row; }
  short read_smem(ts::Consume const& s) const { return static_cast<short>(s.stage_idx); }
};

struct OutputGmem {
  static constexpr ts::ResourceSpec spec{.name = "output_gmem"};
  void store(ts::Produce const&, short v) { (void)v; }
};

struct LoadTask {
  static constexpr ts::TaskSpec spec{
      .name = "load", .warp_idx = 4, .num_warps = 1, .num_registers = 40};
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
  static constexpr ts::TaskSpec spec{
      .name = "store", .warp_idx = 0, .num_warps = 4, .num_registers = 160};
  using src = ts::list<SmemTiles>;
  using dst = ts::list<OutputGmem>;
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    // Same domain as the load task's loop (rows): loops over different domains deadlock.
    ctx.domain_loop(0, smem->rows, 1, [&](auto&) {
      smem.try_wait();
      smem.wait();
      auto v = ts::work<&SmemTiles::read_smem>(smem);
      smem.release();
      ts::work<&OutputGmem::store>(out, v);
    });
  }
};

using CopyGraph =
    ts::Graph<ts::DependsOn<SmemTiles, InputGmem>, ts::DependsOn<OutputGmem, SmemTiles>>;
// Warps 5-7 are the load warpgroup's padding, derived by the TaskManager (model task 2).
using CopyManager = ts::TaskManager<ts::Tasks<LoadTask, StoreTask>, CopyGraph>;

// ---- The copy with knobs ----------------------------------------------------------------------

inline constexpr ts::PipelineConfig kCopyPipeline =
    ts::tma_async(kStages, kTileBytes, ts::threads(1), ts::threads(128));

// SmemTiles with its pipeline as a parameter. The buffer keeps its size whatever the pipeline
// says, so a config with 0 stages still declares a valid buffer.
template <ts::PipelineConfig kPipeline = kCopyPipeline>
struct Tiles {
  static constexpr ts::ResourceSpec spec{.name = "smem", .pipeline = kPipeline};
  int rows = 0;                                       // the rows both tasks loop over
  ts::SmemBuffer<short, kStages * kTileElems> tiles;  // (STAGES*TILE)
  using smem_buffers = ts::buffers<&Tiles::tiles>;
  using same_sizes = ts::same_sizes<ts::same_size<&Tiles::rows, &InputGmem::rows>>;

  void init_load_state(ts::ProduceAux const&) {}
  void tma_load(ts::Produce const&, int row) { (void)row; }
  short read_smem(ts::Consume const& s) const { return static_cast<short>(s.stage_idx); }
};

// LoadTask on `Smem` (a Tiles) at any warps and registers.
template <class Smem = Tiles<>, int kWarpIdx = 4, int kNumWarps = 1, int kRegisters = 0>
struct Load {
  static constexpr ts::TaskSpec spec{
      .name = "load", .warp_idx = kWarpIdx, .num_warps = kNumWarps, .num_registers = kRegisters};
  using src = ts::list<InputGmem>;
  using dst = ts::list<Smem>;
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ts::work<&Smem::init_load_state>(smem);
    ctx.domain_loop(0, in->rows, 1, [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      smem.try_acquire();
      smem.acquire();
      ts::work<&Smem::tma_load>(smem, row);
      smem.commit();
    });
  }
};

// StoreTask on `Smem` at any warps and registers.
template <class Smem = Tiles<>, int kWarpIdx = 0, int kNumWarps = 4, int kRegisters = 0>
struct Store {
  static constexpr ts::TaskSpec spec{
      .name = "store", .warp_idx = kWarpIdx, .num_warps = kNumWarps, .num_registers = kRegisters};
  using src = ts::list<Smem>;
  using dst = ts::list<OutputGmem>;
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    // Same domain as the load task's loop (rows): loops over different domains deadlock.
    ctx.domain_loop(0, smem->rows, 1, [&](auto&) {
      smem.try_wait();
      smem.wait();
      auto v = ts::work<&Smem::read_smem>(smem);
      smem.release();
      ts::work<&OutputGmem::store>(out, v);
    });
  }
};

// A task that uses no resource and does nothing, at any warps and registers: a second task in a
// warpgroup, or a whole warpgroup of work, where a test needs one.
template <int kWarpIdx, int kNumWarps = 1, int kRegisters = 0>
struct Idle {
  static constexpr ts::TaskSpec spec{
      .name = "idle", .warp_idx = kWarpIdx, .num_warps = kNumWarps, .num_registers = kRegisters};
  using src = ts::list<>;
  using dst = ts::list<>;
  static constexpr void schedule(auto&) {}
};

template <class Smem = Tiles<>>
using CopyGraphOf = ts::Graph<ts::DependsOn<Smem, InputGmem>, ts::DependsOn<OutputGmem, Smem>>;

// A manager over `Tasks...` with the copy's graph on `Smem`.
template <class Smem, class... Tasks>
using CopyOf = ts::TaskManager<ts::Tasks<Tasks...>, CopyGraphOf<Smem>>;

// ---- A ring written by threads (AsyncAsync) ---------------------------------------------------

template <ts::PipelineConfig kPipeline =
              ts::async_async(kStages, ts::threads(32), ts::threads(128))>
struct Ring {
  static constexpr ts::ResourceSpec spec{.name = "ring", .pipeline = kPipeline};
  ts::SmemBuffer<float, kStages * 32> slots;  // (STAGES*32)
  using smem_buffers = ts::buffers<&Ring::slots>;

  void put(ts::Produce const&, int row) { (void)row; }
  short take(ts::Consume const& s) const { return static_cast<short>(s.stage_idx); }
};

template <class R, int kWarpIdx = 4, int kNumWarps = 1>
struct RingWriter {
  static constexpr ts::TaskSpec spec{
      .name = "writer", .warp_idx = kWarpIdx, .num_warps = kNumWarps};
  using src = ts::list<InputGmem>;
  using dst = ts::list<R>;
  static constexpr void schedule(auto& ctx, auto& in, auto& ring) {
    ctx.domain_loop(ts::c<4>, [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      ring.acquire();
      ts::work<&R::put>(ring, row);
      ring.commit();
    });
  }
};

template <class R, int kWarpIdx = 0, int kNumWarps = 4>
struct RingReader {
  static constexpr ts::TaskSpec spec{
      .name = "reader", .warp_idx = kWarpIdx, .num_warps = kNumWarps};
  using src = ts::list<R>;
  using dst = ts::list<OutputGmem>;
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(ts::c<4>, [&](auto&) {
      ring.wait();
      auto v = ts::work<&R::take>(ring);
      ring.release();
      ts::work<&OutputGmem::store>(out, v);
    });
  }
};

template <class R>
using RingGraph = ts::Graph<ts::DependsOn<R, InputGmem>, ts::DependsOn<OutputGmem, R>>;

// ---- A work queue -------------------------------------------------------------------------------

template <int kId = 0>
struct TileQueue {
  static constexpr ts::ResourceSpec spec{.name = kId == 0 ? "tile_queue" : "tile_queue_b",
                                         .kind = ts::ResourceKind::WorkQueue};
  ts::WorkTile next_tile(ts::Consume const&) const { return {}; }
  void push_tile(ts::Produce const&) {}
};

// ---- Reading reports and schedules --------------------------------------------------------------

// "R-D2", ... for each violation, in report order.
inline std::vector<std::string> rule_ids(ts::Report const& r) {
  std::vector<std::string> out;
  for (auto const& v : r.violations) out.emplace_back(v.id());
  return out;
}

// The first violation of `rule`; when there is none, a stand-in whose fields all read
// "<missing>", so a test's field checks fail (instead of crashing on a null pointer).
inline ts::Violation const* first_of(ts::Report const& r, ts::Rule rule) {
  for (auto const& v : r.violations)
    if (v.rule == rule) return &v;
  static ts::Violation missing{rule, "<missing>", "<missing>", "<missing>", "<missing>", {}};
  missing.rule = rule;
  return &missing;
}

template <class Manager>
ts::Report verify_manager() {
  return ts::verify_structure(Manager::model());
}

}  // namespace fixtures
