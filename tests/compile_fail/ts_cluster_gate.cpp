// tests/compile_fail/ts_cluster_gate.cpp — the compile-time gate models a cluster CTA by CTA.
//
// A copy on a 2-CTA cluster: each CTA's load task fills its slice of a ring multicast to both
// CTAs, each CTA's store task reads every stage, and every stage's empty barrier counts the
// releases of both CTAs' stores. Without a CASE_ define the tiles are dealt per cluster (every CTA
// runs the same count) and the manager compiles; tests/cpu/ts/compile_time_check_test.cpp includes
// this file, so that control is compiled in the normal build. CASE_GATE_CLUSTER_TILES_PER_CTA deals
// them to the CTAs one by one (ts::per_cta): one CTA may run a tile fewer, and its peer's next
// fill then waits for that CTA's slice and releases forever (DeepGEMM #429). Modelled as one CTA
// (a peer assumed to do what this CTA does) the hang is invisible; the gate must refuse it.

#include "warploom/ts/ts.hpp"

namespace cf_cluster {

namespace ts = warploom::ts;

struct Tiles {
  static constexpr ts::ResourceSpec spec{.name = "tiles"};
  int count = 4;  // tiles of the cluster (or of each CTA: ts::per_cta)
  int coords(ts::Consume const& s) const { return s.loop_offset; }
};

struct Ring {
  static constexpr ts::ResourceSpec spec{
      .name = "ring",
      .pipeline = ts::tma_async(2, 256, ts::threads(1), ts::threads(128)).with_multicast(2)};
  ts::SmemBuffer<short, 256> tiles;  // (STAGES*TILE)
  using smem_buffers = ts::buffers<&Ring::tiles>;
  void load(ts::Produce const&, int row) { (void)row; }
  short read(ts::Consume const& s) const { return static_cast<short>(s.stage_idx); }
};

struct Out {
  static constexpr ts::ResourceSpec spec{.name = "out"};
  int count = 4;  // the same tiles, as the store task sees them (same_sizes)
  void store(ts::Produce const&, short v) { (void)v; }
  using same_sizes = ts::same_sizes<ts::same_size<&Out::count, &Tiles::count>>;
};

// How many tiles a CTA runs: the cluster's count in every CTA of it, or a count of its own.
constexpr auto tile_count(auto const& h) {
#if defined(CASE_GATE_CLUSTER_TILES_PER_CTA)
  return ts::per_cta(h->count);
#else
  return h->count;
#endif
}

struct LoadTask {
  static constexpr ts::TaskSpec spec{
      .name = "load", .warp_idx = 4, .num_warps = 1, .num_registers = 40};
  using src = ts::list<Tiles>;
  using dst = ts::list<Ring>;
  static constexpr void schedule(auto& ctx, auto& tiles, auto& ring) {
    ctx.domain_loop(tile_count(tiles), [&](auto&) {
      auto row = ts::work<&Tiles::coords>(tiles);
      ring.acquire();
      ts::work<&Ring::load>(ring, row);
      ring.commit();
    });
  }
};

struct StoreTask {
  static constexpr ts::TaskSpec spec{
      .name = "store", .warp_idx = 0, .num_warps = 4, .num_registers = 232};
  using src = ts::list<Ring>;
  using dst = ts::list<Out>;
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(tile_count(out), [&](auto&) {
      ring.wait();
      auto v = ts::work<&Ring::read>(ring);
      ring.release();
      ts::work<&Out::store>(out, v);
    });
  }
};

using Manager = ts::TaskManager<ts::Tasks<LoadTask, StoreTask>,
                                ts::Graph<ts::DependsOn<Ring, Tiles>, ts::DependsOn<Out, Ring>>>;
static_assert(Manager::cluster_size == 2);

// The compile-time gate, as TaskManager::setup_resources_and_tasks() applies it on the device.
static_assert(ts::verified_at_compile_time<Manager::traits>());

}  // namespace cf_cluster
