// tests/schedules/loops.cpp — loop structure: run-time and compile-time bounds,
// first/last-iteration blocks, nested and sibling loops, zero-trip, single-iteration and unaligned
// loops, negative steps, unrolling, a persistent tile loop around a k-loop.
//
// How the verifier sees loops (verify/program.hpp, check_model.hpp): a compile-time loop runs its
// exact trip count; every run-time loop is tried with 0, 1, 2 and stages+1 iterations, and the
// k-th run-time loop of one task is assumed to run as often as the k-th run-time loop of every
// other task. The known misses below are schedules where that assumption is wrong.

#include "corpus.hpp"

namespace corpus {
namespace {

// ---- Run-time step ------------------------------------------------------------------------------

struct StepLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(in->m, in->n, in->k, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};
struct StepStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->m, out->n, out->k, [&](auto&) {
      smem.wait();
      ts::work<&Output::store>(out, ts::work<&Smem::take>(smem));
      smem.release();
    });
  }
};

// ---- First/last-iteration blocks
// -----------------------------------------------------------------

// Sets up its descriptor in the first iteration (auxiliary work).
template <int kTrips = kRuntime>
struct InitOnceLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(trips<kTrips>(in), [&](auto& loop) {
      loop.first_iter([&] { ts::work<&Smem::init>(smem); });
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};
// Accumulates in a task-local variable, stores it in the last iteration (an epilogue).
template <int kTrips = kRuntime>
struct AccumulateStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    auto acc = ctx.local(0);
    ctx.domain_loop(trips<kTrips>(out), [&](auto& loop) {
      smem.wait();
      acc = ts::work<&Smem::take>(smem);
      smem.release();
      loop.last_iter([&] { ts::work<&Output::store>(out, acc); });
    });
  }
};

// One stage of a thread-written ring filled over the whole loop: acquired in the first iteration,
// committed in the last.
struct WholeLoopLoad : Load<Queue> {
  static constexpr void schedule(auto& ctx, auto& in, auto& ring) {
    ctx.domain_loop(in->n, [&](auto& loop) {
      loop.first_iter([&] { ring.acquire(); });
      ts::work<&Queue::put>(ring, ts::work<&Coords::coord>(in));
      loop.last_iter([&] { ring.commit(); });
    });
  }
};
// Reads that one stage after the loop, unconditionally.
struct OneStageStore : Store<Queue> {
  static constexpr void schedule(auto&, auto& ring, auto& out) {
    ring.wait();
    ts::work<&Output::store>(out, ts::work<&Queue::take>(ring));
    ring.release();
  }
};
// Reads it with the same guards, so an empty loop reads nothing either.
struct WholeLoopStore : Store<Queue> {
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(out->n, [&](auto& loop) {
      loop.first_iter([&] { ring.wait(); });
      auto v = ts::work<&Queue::take>(ring);
      loop.last_iter([&] {
        ring.release();
        ts::work<&Output::store>(out, v);
      });
    });
  }
};

// ---- Nested loops
// ---------------------------------------------------------------------------------

// kOuter/kInner: trip counts (kRuntime: the handle's `n`).
template <int kOuter, int kInner>
struct NestedLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(trips<kOuter>(in), [&](auto&) {
      ctx.domain_loop(trips<kInner>(in), [&](auto&) {
        auto c = ts::work<&Coords::coord>(in);
        smem.acquire();
        ts::work<&Smem::put>(smem, c);
        smem.commit();
      });
    });
  }
};
template <int kOuter, int kInner>
struct NestedStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(trips<kOuter>(out), [&](auto&) {
      ctx.domain_loop(trips<kInner>(out), [&](auto&) {
        smem.wait();
        auto v = ts::work<&Smem::take>(smem);
        smem.release();
        ts::work<&Output::store>(out, v);
      });
    });
  }
};

// ---- Sibling loops
// ---------------------------------------------------------------------------------

// A 2-iteration prologue loop, then the main loop (run-time).
struct PrologueLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    auto body = [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    };
    ctx.domain_loop(ts::c<2>, body);
    ctx.domain_loop(in->n, body);
  }
};
struct PrologueStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    auto body = [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    };
    ctx.domain_loop(ts::c<2>, body);
    ctx.domain_loop(out->n, body);
  }
};

// Three run-time loops in a row (n, m, k items) on both sides: with more than two run-time loop
// positions the verifier runs them all alike (0, 1, 2, stages+1).
struct ThreePhaseLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    auto body = [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    };
    ctx.domain_loop(in->n, body);
    ctx.domain_loop(in->m, body);
    ctx.domain_loop(in->k, body);
  }
};
struct ThreePhaseStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    auto body = [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    };
    ctx.domain_loop(out->n, body);
    ctx.domain_loop(out->m, body);
    ctx.domain_loop(out->k, body);
  }
};

// One load task fills ring `a` for n items, then ring `b` for m items; a store task drains each.
using SibA = Ring<"a", tma(2)>;
using SibB = Ring<"b", tma(2)>;
struct SiblingLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 8, .num_warps = 1};
  using src = ts::list<Coords>;
  using dst = ts::list<SibA, SibB>;
  static constexpr void schedule(auto& ctx, auto& in, auto& a, auto& b) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      a.acquire();
      ts::work<&SibA::put>(a, c);
      a.commit();
    });
    ctx.domain_loop(in->m, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      b.acquire();
      ts::work<&SibB::put>(b, c);
      b.commit();
    });
  }
};
using StoreB = Store<SibB, kRuntimeM, false, 4, 4, 0, "store_b">;
using SiblingRings = ts::TaskManager<
    ts::Tasks<SiblingLoad, Store<SibA, kRuntime, false, 0, 4, 0, "store_a">, StoreB>,
    ts::Graph<ts::DependsOn<SibA, Coords>, ts::DependsOn<SibB, Coords>,
              ts::DependsOn<Output, SibA, SibB>>>;

// A load that first prefetches m descriptors (auxiliary work, no pipeline), then loads n items.
struct PrefetchingLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(in->m, [&](auto&) { ts::work<&Coords::prefetch>(in); });
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};

// ---- Steps
// -----------------------------------------------------------------------------------------

// 8 iterations counting down: 7, 6, ..., 0.
struct CountdownLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(ts::c<7>, ts::c<-1>, ts::c<-1>, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};

// The load produces one item per iteration over [0, 2n); the store takes two per iteration over
// [0, 2n) with step 2: n iterations. Both move 2n items, given the promise that the extent is even
// (kEven: ts::multiple_of<2>): without it the checker cannot tell 2n from any n, and an odd
// extent leaves the store's last iteration waiting for an item that never comes — the bug of a
// store over [0, n) with step 2 (kEven = false, against a load over [0, n)).
struct OnePerIterationLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(0, 2 * in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};
template <bool kEven>
struct TwoPerIterationStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    auto body = [&](auto&) {
      ctx.domain_loop(ts::c<2>, [&](auto&) {
        smem.wait();
        auto v = ts::work<&Smem::take>(smem);
        smem.release();
        ts::work<&Output::store>(out, v);
      });
    };
    if constexpr (kEven) {
      ctx.domain_loop(0, ts::multiple_of<2>(2 * out->n), ts::c<2>, body);
    } else {
      ctx.domain_loop(0, out->n, ts::c<2>, body);
    }
  }
};

// Unrolled by 4 (the verifier ignores unrolling: it changes code, not order).
struct UnrolledLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(in->n, ts::unroll<4>, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};
struct UnrolledStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(0, out->n, 1, ts::unroll<4>, [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    });
  }
};

// ---- Persistent kernels: a tile loop (work queue) around a k-loop ------------------------------

// A static work queue (ts/work_queue.hpp) whose tile index the tasks also store.
struct TileQueue : ts::StaticTileQueue {
  int index(ts::ConsumeAux const&, ts::WorkTile tile) const { return tile.m; }
};

// For each tile: take it from the queue, load its k-blocks.
struct PersistentLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 8, .num_warps = 1};
  using src = ts::list<TileQueue, Coords>;
  using dst = ts::list<Smem>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& in, auto& smem) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      auto tile = take_tile(queue);
      tiles.if_valid(tile, [&] {
        ctx.domain_loop(in->k, [&](auto&) {  // the tile's k-blocks
          auto k = ts::work<&Coords::coord>(in);
          smem.acquire();
          ts::work<&Smem::put>(smem, k);
          smem.commit();
        });
      });
    });
  }
};
// For each tile: take it, accumulate its k-blocks, then store the tile (epilogue).
struct PersistentMma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<TileQueue, Smem>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& smem, auto& out) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      auto tile = take_tile(queue);
      tiles.if_valid(tile, [&] {
        auto acc = ctx.local(0);
        ctx.domain_loop(out->k, [&](auto&) {  // the tile's k-blocks
          smem.wait();
          acc = ts::work<&Smem::take>(smem);
          smem.release();
        });
        ts::work<&Output::store>(out, acc);
        ts::work<&Output::store>(out, ts::work<&TileQueue::index>(queue, tile));
      });
    });
  }
};
using PersistentGraph =
    ts::Graph<ts::DependsOn<Smem, Coords, TileQueue>, ts::DependsOn<Output, Smem, TileQueue>>;
// Without an epilogue task the load sits next to the mma, on warp 4 (no idle warpgroup: R-W3).
struct PersistentLoadOnWarp4 : PersistentLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 1};
};
using Persistent =
    ts::TaskManager<ts::Tasks<PersistentLoadOnWarp4, PersistentMma>, PersistentGraph>;

// The same with the epilogue in its own task: the mma hands each finished tile to an epilogue
// task through a second ring (accumulators -> staging), the epilogue stores it.
using Staging = Ring<"staging", async(2, ts::threads(128), ts::threads(128))>;
struct PersistentMmaToStaging {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<TileQueue, Smem>;
  using dst = ts::list<Staging>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& smem, auto& staging) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      auto tile = take_tile(queue);
      tiles.if_valid(tile, [&] {
        auto acc = ctx.local(0);
        ctx.domain_loop(smem->k, [&](auto&) {  // the tile's k-blocks
          smem.wait();
          acc = ts::work<&Smem::take>(smem);
          smem.release();
        });
        staging.acquire();
        ts::work<&Staging::put>(staging, acc);
        ts::work<&Staging::put>(staging, ts::work<&TileQueue::index>(queue, tile));
        staging.commit();
      });
    });
  }
};
struct PersistentEpilogue {
  static constexpr ts::TaskSpec spec{.name = "epilogue", .warp_idx = 4, .num_warps = 4};
  using src = ts::list<TileQueue, Staging>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& staging, auto& out) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      auto tile = take_tile(queue);
      tiles.if_valid(tile, [&] {
        staging.wait();
        auto v = ts::work<&Staging::take>(staging);
        staging.release();
        ts::work<&Output::store>(out, v);
      });
    });
  }
};
using PersistentWithEpilogue = ts::TaskManager<
    ts::Tasks<PersistentLoad, PersistentMmaToStaging, PersistentEpilogue>,
    ts::Graph<ts::DependsOn<Smem, Coords, TileQueue>, ts::DependsOn<Staging, Smem, TileQueue>,
              ts::DependsOn<Output, Staging, TileQueue>>>;

// The GEMM shape at scale: persistent tiles around a k-loop over two 4-stage operand rings, the
// mma handing each tile to an epilogue task through a 2-stage staging ring.
using OperandA4 = Ring<"smem_a", tma(4)>;
using OperandB4 = Ring<"smem_b", tma(4)>;
struct GemmLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 8, .num_warps = 1};
  using src = ts::list<TileQueue, Coords>;
  using dst = ts::list<OperandA4, OperandB4>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& in, auto& a, auto& b) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      auto tile = take_tile(queue);
      tiles.if_valid(tile, [&] {
        ctx.domain_loop(in->k, [&](auto&) {
          auto k = ts::work<&Coords::coord>(in);
          a.acquire();
          ts::work<&OperandA4::put>(a, k);
          a.commit();
          b.acquire();
          ts::work<&OperandB4::put>(b, k);
          b.commit();
        });
      });
    });
  }
};
struct GemmMma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<TileQueue, OperandA4, OperandB4>;
  using dst = ts::list<Staging>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& a, auto& b, auto& staging) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      auto tile = take_tile(queue);
      tiles.if_valid(tile, [&] {
        auto acc = ctx.local(0);
        ctx.domain_loop(a->k, [&](auto&) {  // the tile's k-blocks
          a.wait();
          b.wait();
          acc = ts::work<&OperandA4::take>(a);
          acc = ts::work<&OperandB4::take>(b);
          a.release();
          b.release();
        });
        staging.acquire();
        ts::work<&Staging::put>(staging, acc);
        ts::work<&Staging::put>(staging, ts::work<&TileQueue::index>(queue, tile));
        staging.commit();
      });
    });
  }
};
using PersistentGemm =
    ts::TaskManager<ts::Tasks<GemmLoad, GemmMma, PersistentEpilogue>,
                    ts::Graph<ts::DependsOn<OperandA4, Coords, TileQueue>,
                              ts::DependsOn<OperandB4, Coords, TileQueue>,
                              ts::DependsOn<Staging, OperandA4, OperandB4, TileQueue>,
                              ts::DependsOn<Output, Staging, TileQueue>>>;

// ---- Ordering tokens and one domain split by offset ---------------------------------------------

// A one-stage signal between two tasks, carrying no data: an ordering token (ResourceKind::Barrier,
// no producer drain at exit) or, for the violating twins, a data ring of the same shape (Memory:
// its producer drains it, so a last fill nobody takes hangs).
template <FixedName kName, ts::ResourceKind kKind>
struct Signal {
  static constexpr ts::ResourceSpec spec{
      .name = kName.view(),
      .pipeline = ts::async_async(1, ts::threads(32), ts::threads(32)),
      .kind = kKind};
};

// Stores item i after the other task signalled item i - 1, then signals item i itself; handles
// the items [kStart, n) with step kStep, written ts::c<k> or, with kPlain, as plain integers.
template <int kStart, int kStep, class Mine, class Theirs, int kWarp, FixedName kName,
          bool kPlain = false>
struct TurnTaker {
  static constexpr ts::TaskSpec spec{.name = kName.view(), .warp_idx = kWarp, .num_warps = 1};
  using src = ts::list<Coords, Theirs>;
  using dst = ts::list<Output, Mine>;
  static constexpr void schedule(auto& ctx, auto& in, auto& theirs, auto& out, auto& mine) {
    auto body = [&](auto& loop) {
      auto turn = [&] {
        theirs.wait();
        theirs.release();
      };
      if constexpr (kStart == 0)
        loop.not_first_iter(turn);  // item 0 waits for nobody
      else
        turn();
      ts::work<&Output::store>(out, ts::work<&Coords::coord>(in));
      mine.acquire();
      mine.commit();
    };
    if constexpr (kPlain)
      ctx.domain_loop(kStart, in->n, kStep, body);
    else
      ctx.domain_loop(ts::c<kStart>, in->n, ts::c<kStep>, body);
  }
};

// The even items (0, n, 2) and the odd ones (1, n, kOddStep) in two tasks, in turns.
template <ts::ResourceKind kKind, int kOddStep = 2, bool kPlain = false>
using EvenOdd = ts::TaskManager<
    ts::Tasks<
        TurnTaker<0, 2, Signal<"even_done", kKind>, Signal<"odd_done", kKind>, 0, "even", kPlain>,
        TurnTaker<1, kOddStep, Signal<"odd_done", kKind>, Signal<"even_done", kKind>, 1, "odd",
                  kPlain>>,
    ts::Graph<ts::DependsOn<Signal<"even_done", kKind>, Coords>,
              ts::DependsOn<Signal<"odd_done", kKind>, Coords>,
              ts::DependsOn<Output, Signal<"even_done", kKind>, Signal<"odd_done", kKind>>>>;

// The store may start item i once the load finished item i - 1: the load signals every item, the
// store waits from its second item on, so the load's last signal is never waited for.
template <ts::ResourceKind kKind>
struct SignalEveryItem {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 1};
  using src = ts::list<Coords>;
  using dst = ts::list<Output, Signal<"loaded", kKind>>;
  static constexpr void schedule(auto& ctx, auto& in, auto& out, auto& loaded) {
    ctx.domain_loop(in->n, [&](auto&) {
      ts::work<&Output::store>(out, ts::work<&Coords::coord>(in));
      loaded.acquire();
      loaded.commit();
    });
  }
};
template <ts::ResourceKind kKind>
struct FollowPreviousItem {
  static constexpr ts::TaskSpec spec{.name = "store", .warp_idx = 0, .num_warps = 1};
  using src = ts::list<Coords, Signal<"loaded", kKind>>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& in, auto& loaded, auto& out) {
    ctx.domain_loop(in->n, [&](auto& loop) {
      loop.not_first_iter([&] {
        loaded.wait();
        loaded.release();
      });
      ts::work<&Output::store>(out, ts::work<&Coords::coord>(in));
    });
  }
};
template <ts::ResourceKind kKind>
using LastSignalUnwaited =
    ts::TaskManager<ts::Tasks<SignalEveryItem<kKind>, FollowPreviousItem<kKind>>,
                    ts::Graph<ts::DependsOn<Signal<"loaded", kKind>, Coords>,
                              ts::DependsOn<Output, Coords, Signal<"loaded", kKind>>>>;

// ---- Independent trip counts per loop
// ------------------------------------------------------------

// Per tile the load acquires one stage of a thread-written ring and fills it over an inner
// run-time loop of k-blocks; kCommitInLastIter: the commit sits in the inner loop's last
// iteration, which a tile with no k-block never reaches (the outer loop runs, the inner one not)
// — unless kAtLeastOne: the inner bound is promised at least one trip (ts::at_least<1>, as a
// GEMM's K tiles are). It fills one stage per tile of n, as many as the store takes.
template <bool kCommitInLastIter, bool kAtLeastOne = false>
struct TileBracketLoad : Load<Queue> {
  static constexpr void schedule(auto& ctx, auto& in, auto& ring) {
    ctx.domain_loop(in->n, [&](auto&) {
      ring.acquire();
      auto body = [&](auto& kblock) {
        ts::work<&Queue::put>(ring, ts::work<&Coords::coord>(in));
        if constexpr (kCommitInLastIter) kblock.last_iter([&] { ring.commit(); });
      };
      if constexpr (kAtLeastOne) {
        ctx.domain_loop(ts::at_least<1>(in->k), body);
      } else {
        ctx.domain_loop(in->k, body);
      }
      if constexpr (!kCommitInLastIter) ring.commit();
    });
  }
};

Entry loop_entry(std::string_view name, std::string_view description,
                 ts::ManagerModel (*model)(std::string_view),
                 std::vector<std::string_view> expected = {}) {
  return {.name = name,
          .theme = kLoops,
          .description = description,
          .expected = std::move(expected),
          .model = model};
}

}  // namespace

void add_loops(Corpus& c) {
  c.push_back(loop_entry("static_bounds", "Both tasks loop ts::c<6> times over a 2-stage ring",
                         model_of<Copy<Smem, Load<Smem, 6>, Store<Smem, 6>>>));
  c.push_back(loop_entry("runtime_start_end_step",
                         "Loops over [m, n) with a run-time step k on both sides",
                         model_of<Copy<Smem, StepLoad, StepStore>>));
  c.push_back(loop_entry(
      "fixed_producer_runtime_consumer",
      "The load runs ts::c<4> iterations, the store a run-time n: it hangs whenever n != 4 "
      "(the verifier shows n = 0, 1, 2 and 3)",
      model_of<Copy<Smem, Load<Smem, 4>, Store<Smem>>>, {"R-D1", "R-M1"}));
  c.push_back(loop_entry("first_last_iteration_blocks",
                         "The load sets up its descriptor in first_iter (auxiliary work); the "
                         "store accumulates in a task-local and stores it in last_iter",
                         model_of<Copy<Smem, InitOnceLoad<>, AccumulateStore<>>>));
  c.push_back(loop_entry(
      "bracket_across_loop_zero_trip",
      "One stage of a thread-written ring filled over a whole run-time loop (acquire in "
      "first_iter, commit in last_iter) "
      "and read once after it: with 0 iterations nothing is committed and the store waits "
      "forever",
      model_of<Copy<Queue, WholeLoopLoad, OneStageStore>>, {"R-D1", "R-M1"}));
  c.push_back(loop_entry("bracket_across_loop_matched",
                         "The same stage read under the same first_iter/last_iter guards: an "
                         "empty loop reads nothing either",
                         model_of<Copy<Queue, WholeLoopLoad, WholeLoopStore>>));
  c.push_back(loop_entry("nested_runtime_outer_static_inner",
                         "Nested loops: a run-time outer loop around ts::c<3> items on both sides",
                         model_of<Copy<Smem, NestedLoad<kRuntime, 3>, NestedStore<kRuntime, 3>>>));
  c.push_back(loop_entry("nested_static_outer_runtime_inner",
                         "Nested loops: ts::c<2> outer iterations around a run-time inner loop",
                         model_of<Copy<Smem, NestedLoad<2, kRuntime>, NestedStore<2, kRuntime>>>));
  c.push_back(loop_entry("sibling_static_then_runtime",
                         "Sibling loops: a ts::c<2> prologue loop, then the run-time main loop, on "
                         "both sides",
                         model_of<Copy<Smem, PrologueLoad, PrologueStore>>));
  c.push_back(loop_entry("three_runtime_loops",
                         "Three sibling run-time loops (n, m, k items) on both sides",
                         model_of<Copy<Smem, ThreePhaseLoad, ThreePhaseStore>>));
  c.push_back({.name = "sibling_runtime_loops_two_consumers",
               .theme = kLoops,
               .description =
                   "One load task fills ring a for n items, then ring b for m items; store_a "
                   "drains a (n), store_b drains b (m). Balanced for every n and m",
               .expected = {},
               .model = model_of<SiblingRings>});
  c.push_back({.name = "prefetch_loop_before_mainloop",
               .theme = kLoops,
               .description =
                   "The load first prefetches m descriptors in a run-time loop (auxiliary work, no "
                   "pipeline), then loads n items; the store drains n items",
               .expected = {},
               .model = model_of<Copy<Smem, PrefetchingLoad, Store<Smem>>>});
  c.push_back(loop_entry("zero_trip_static", "Both loops are ts::c<0>: nothing runs, nothing waits",
                         model_of<Copy<Smem, Load<Smem, 0>, Store<Smem, 0>>>));
  c.push_back(loop_entry("single_iteration_first_is_last",
                         "ts::c<1> loops: the first_iter and the last_iter blocks run in the same "
                         "iteration",
                         model_of<Copy<Smem, InitOnceLoad<1>, AccumulateStore<1>>>));
  c.push_back(loop_entry("unaligned_5_items_2_stages",
                         "ts::c<5> items through 2 stages: the loops end mid-lap",
                         model_of<Copy<Smem, Load<Smem, 5>, Store<Smem, 5>>>));
  c.push_back(loop_entry("negative_step",
                         "The load counts down from 7 to 0 (step -1, 8 iterations), the store up "
                         "ts::c<8>",
                         model_of<Copy<Smem, CountdownLoad, Store<Smem, 8>>>));
  c.push_back(loop_entry("unrolled_loops", "Both run-time loops unrolled by ts::unroll<4>",
                         model_of<Copy<Smem, UnrolledLoad, UnrolledStore>>));
  c.push_back({.name = "token_last_signal_unwaited",
               .theme = kLoops,
               .description = "The load signals an ordering token (ResourceKind::Barrier) after "
                              "every item, the store waits for it from its second item on: the "
                              "last signal is never waited for, and a token is not drained at exit",
               .expected = {},
               .model = model_of<LastSignalUnwaited<ts::ResourceKind::Barrier>>,
               .controls = {"R-D1", "R-M1"}});
  c.push_back(loop_entry("ring_last_fill_unconsumed",
                         "The same signals through a data ring (ResourceKind::Memory): its last "
                         "fill is never consumed, so the load's drain at exit waits forever",
                         model_of<LastSignalUnwaited<ts::ResourceKind::Memory>>, {"R-D1", "R-M1"}));
  c.push_back({.name = "even_odd_turns",
               .theme = kLoops,
               .description = "Two tasks take the even items (ts::c<0>, n, ts::c<2>) and the odd "
                              "ones (ts::c<1>, n, ts::c<2>) in turns through two ordering tokens: "
                              "one domain, so ceil(n/2) and floor(n/2) trips from the same n",
               .expected = {},
               .model = model_of<EvenOdd<ts::ResourceKind::Barrier>>,
               .controls = {"R-M1"}});
  c.push_back({.name = "even_odd_turns_plain_int",
               .theme = kLoops,
               .description = "The even/odd turns with plain integer offsets and step, (0, n, 2) "
                              "and (1, n, 2): one domain as with ts::c<k>",
               .expected = {},
               .model = model_of<EvenOdd<ts::ResourceKind::Barrier, 2, true>>,
               .controls = {"R-M1"}});
  c.push_back(loop_entry("even_odd_turns_plain_int_odd_step_one",
                         "The plain-integer turns with the odd task stepping by 1 from item 1: it "
                         "waits for a turn the even task never gives",
                         model_of<EvenOdd<ts::ResourceKind::Barrier, 1, true>>, {"R-D1", "R-M1"}));
  c.push_back(loop_entry("even_odd_turns_odd_step_one",
                         "The odd task steps by 1 from item 1 (n - 1 items) while the even task "
                         "takes ceil(n/2): it waits for a turn the even task never gives",
                         model_of<EvenOdd<ts::ResourceKind::Barrier, 1>>, {"R-D1", "R-M1"}));
  c.push_back(loop_entry("bracket_commit_in_inner_last_iter",
                         "Per tile: acquire, an inner k-loop of puts, the commit in the inner "
                         "loop's last iteration: a tile with no k-block leaves its stage "
                         "acquired (the outer loop running, the inner one not)",
                         model_of<Copy<Queue, TileBracketLoad<true>, Store<Queue>>>, {"R-D10"}));
  c.push_back({.name = "bracket_commit_in_inner_last_iter_at_least_one",
               .theme = kLoops,
               .description = "The commit in the inner loop's last iteration, its bound promised "
                              "at least one trip (ts::at_least<1>): every tile reaches it",
               .expected = {},
               .model = model_of<Copy<Queue, TileBracketLoad<true, true>, Store<Queue>>>,
               .controls = {"R-D10"}});
  c.push_back({.name = "bracket_commit_after_inner_loop",
               .theme = kLoops,
               .description = "The same load with the commit after the inner loop",
               .expected = {},
               .model = model_of<Copy<Queue, TileBracketLoad<false>, Store<Queue>>>,
               .controls = {"R-D10"}});
  c.push_back({.name = "step_two_consumer_takes_two",
               .theme = kLoops,
               .description =
                   "The load produces one item per iteration over [0, 2n); the store loops over "
                   "[0, ts::multiple_of<2>(2n)) with step 2 and takes two items per iteration. "
                   "One domain, an even extent: both move 2n items",
               .expected = {},
               .model = model_of<Copy<Smem, OnePerIterationLoad, TwoPerIterationStore<true>>>,
               .controls = {"R-D1", "R-M1"}});
  c.push_back(loop_entry("step_two_consumer_takes_two_odd_extent",
                         "The load produces n items one per iteration, the store takes two per "
                         "iteration over [0, n) with step 2: for an odd n its last iteration "
                         "waits for an item that never comes",
                         model_of<Copy<Smem, Load<Smem>, TwoPerIterationStore<false>>>,
                         {"R-D1", "R-M1"}));
  c.push_back(loop_entry("persistent_tiles_k_loop",
                         "Persistent kernel: both tasks loop over tiles from a work queue "
                         "(run-time) around a run-time k-loop; the mma stores each tile",
                         model_of<Persistent>));
  c.push_back(loop_entry("persistent_gemm_4_stages",
                         "The GEMM shape at scale: persistent tiles around a k-loop over two "
                         "4-stage operand rings (load, mma), the mma handing each tile to an "
                         "epilogue task through a staging ring",
                         model_of<PersistentGemm>));
  c.push_back(loop_entry("persistent_with_epilogue_task",
                         "Persistent kernel with a separate epilogue task: load -> mma (k-loop) "
                         "-> staging ring -> epilogue, all three looping over the tiles",
                         model_of<PersistentWithEpilogue>));
}

}  // namespace corpus
