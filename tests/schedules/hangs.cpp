// tests/schedules/hangs.cpp — the hangs and races users of warp-specialized kernels report
// (/work/shared/reference/peers.md §5), written as TS schedules, each next to its fixed twin where
// one exists:
//
//   - a branch that exits after only arriving (vLLM #26026), a task that stops after its first
//     tile while the load still fills the ring (marin #8870), a consumer that waits only once;
//   - loops of different lengths on the two sides of a ring, in every form: a longer producer
//     loop, a consumer assuming another stage count ("the phase derived from the loop index",
//     TileLang #2927 / PR #3087), a dropped unaligned tail (TileLang #2567), two consumer groups
//     with different K-loop lengths (DeepGEMM #429);
//   - the single-iteration pipelined loop (TileLang #2566);
//   - register budgets: over-subscription (CUTLASS #2007, TileLang PR #2406) and a warp range
//     straddling two warpgroups with different budgets;
//   - arrival counts: a group size that does not match the arriving threads (R-D15) and an extra
//     arrival the counts cannot see (R-M6); overlapping warp ranges (R-W1); ping-pong in which
//     both sides wait first (with pipelines of their own, and with ts::Turn); a tile loaded twice
//     into one stage.

#include "corpus.hpp"
#include "warploom/ts/turn.hpp"

namespace corpus {
namespace {

// ---- Exits and waits that happen once
// -------------------------------------------------------------

// Waits in the first iteration only, then reads and releases every iteration.
struct WaitOnceStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n, [&](auto& loop) {
      loop.first_iter([&] { smem.wait(); });
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    });
  }
};

// Processes its first tile, then has "no more work": every later iteration does nothing.
struct FirstTileOnlyStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n, [&](auto& loop) {
      loop.first_iter([&] {
        smem.wait();
        auto v = ts::work<&Smem::take>(smem);
        smem.release();
        ts::work<&Output::store>(out, v);
      });
    });
  }
};

// After its loop, the exit path arrives once more (a release without a wait).
struct ArriveOnExitStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    });
    smem.release();
  }
};

// A second consumer that only waits and reads (it never releases).
struct PeekStore : Store<Smem, kRuntime, false, 5, 1, 0, "peek"> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      smem.wait();
      ts::work<&Output::store>(out, ts::work<&Smem::take>(smem));
    });
  }
};

// A monitor: waits on every stage of a ring it never releases (the store releases them), to pace
// itself; kRead: it also reads each stage. The ring advances its wait cursor on wait.
using Watched = Ring<"smem", tma(2).with_advance_on_wait()>;
template <int kTrips, bool kRead>
struct Monitor {
  static constexpr ts::TaskSpec spec{.name = "monitor", .warp_idx = 5, .num_warps = 1};
  using src = ts::list<Watched>;
  using dst = std::conditional_t<kRead, ts::list<Output>, ts::list<>>;
  static constexpr void schedule(auto& ctx, auto& smem, auto&... out) {
    ctx.domain_loop(trips<kTrips>(smem), [&](auto&) {
      smem.wait();
      if constexpr (kRead) ts::work<&Output::store>(out..., ts::work<&Watched::take>(smem));
    });
  }
};
template <int kTrips, bool kRead>
using Monitored =
    Copy<Watched, Load<Watched, kTrips>, Store<Watched, kTrips>, Monitor<kTrips, kRead>>;

// ---- Loops of different lengths
// --------------------------------------------------------------------

// One item more than the store, with a run-time bound: n + 1 against n.
struct OneMoreLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(in->n + 1, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};

// Sizes read from the data: how many items the load and the store take is a consumer work's
// result (as a grouped GEMM reads each problem's K tiles), `kCount` on each side.
struct Counts {
  static constexpr ts::ResourceSpec spec{.name = "counts"};
  int rows(ts::Consume const&) const { return 0; }
  int cols(ts::Consume const&) const { return 0; }
};

template <auto kCount>
struct CountedLoad : Load<Smem> {
  using src = ts::list<Coords, Counts>;
  static constexpr void schedule(auto& ctx, auto& in, auto& counts, auto& smem) {
    auto items = ts::work<kCount>(counts);
    ctx.domain_loop(items, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};

template <auto kCount>
struct CountedStore : Store<Smem> {
  using src = ts::list<Smem, Counts>;
  static constexpr void schedule(auto& ctx, auto& smem, auto& counts, auto& out) {
    auto items = ts::work<kCount>(counts);
    ctx.domain_loop(items, [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    });
  }
};

template <auto kLoadCount, auto kStoreCount>
using CountedCopy = ts::TaskManager<
    ts::Tasks<CountedLoad<kLoadCount>, CountedStore<kStoreCount>>,
    ts::Graph<ts::DependsOn<Smem, Coords, Counts>, ts::DependsOn<Output, Smem, Counts>>>;

// Per tile (run-time), kItems items: the load and the store each assume their own count.
template <class R, int kItems>
struct TileLoad : Load<R> {
  static constexpr void schedule(auto& ctx, auto& in, auto& ring) {
    ctx.domain_loop(in->n, [&](auto&) {
      ctx.domain_loop(ts::c<kItems>, [&](auto&) {
        auto c = ts::work<&Coords::coord>(in);
        ring.acquire();
        ts::work<&R::put>(ring, c);
        ring.commit();
      });
    });
  }
};
template <class R, int kItems>
struct TileStore : Store<R> {
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      ctx.domain_loop(ts::c<kItems>, [&](auto&) {
        ring.wait();
        auto v = ts::work<&R::take>(ring);
        ring.release();
        ts::work<&Output::store>(out, v);
      });
    });
  }
};

// 250 rows in tiles of 64: the load covers [0, 250) (4 tiles), the store only the whole tiles of
// [0, 192) (3 tiles) or all of [0, 250).
using Smem3 = Ring<"smem", tma(3)>;
template <int kEnd>
struct RowLoad : Load<Smem3> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(ts::c<0>, ts::c<kEnd>, ts::c<64>, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem3::put>(smem, c);
      smem.commit();
    });
  }
};
template <int kEnd>
struct RowStore : Store<Smem3> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(ts::c<0>, ts::c<kEnd>, ts::c<64>, [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem3::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    });
  }
};

// Two consumer warpgroups on one ring (the consumer group counts both).
using SplitRing = Ring<"smem", tma(2, ts::threads(1), ts::threads(256))>;
template <int kLoTrips, int kHiTrips, int kLoadTrips = kLoTrips>
using TwoGroups = Copy<SplitRing, Load<SplitRing, kLoadTrips, false, 8>,
                       Store<SplitRing, kLoTrips, false, 0, 4, 0, "mma_lo">,
                       Store<SplitRing, kHiTrips, false, 4, 4, 0, "mma_hi">>;

// ---- Register budgets
// ---------------------------------------------------------------------------------

// 12 warps (entered with 168 registers each): two consumer warpgroups with kMma registers, the
// load warpgroup (the load and the padding the TaskManager derives for warps 9-11) with kLoad.
template <int kLoad, int kMma>
using Budgets = Copy<SplitRing, Load<SplitRing, kRuntime, false, 8, 1, kLoad>,
                     Store<SplitRing, kRuntime, false, 0, 4, kMma, "mma_lo">,
                     Store<SplitRing, kRuntime, false, 4, 4, kMma, "mma_hi">>;

// Tasks without a pipeline (coords -> out) on warps [kWarp, kWarp + kWarps) with kRegisters.
template <int kWarp, int kWarps, int kRegisters, FixedName kName>
struct Elementwise {
  static constexpr ts::TaskSpec spec{
      .name = kName.view(), .warp_idx = kWarp, .num_warps = kWarps, .num_registers = kRegisters};
  using src = ts::list<Coords>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& in, auto& out) {
    ctx.domain_loop(in->n,
                    [&](auto&) { ts::work<&Output::store>(out, ts::work<&Coords::coord>(in)); });
  }
};
// Warps 0-1, 2-5 (straddling warpgroups 0 and 1) and 6-7; the last task's budget is kLast.
template <int kLast>
using Straddle =
    ts::TaskManager<ts::Tasks<Elementwise<0, 2, 232, "left">, Elementwise<2, 4, 232, "pair">,
                              Elementwise<6, 2, kLast, "right">>,
                    ts::Graph<ts::DependsOn<Output, Coords>>>;

// ---- Arrivals
// -----------------------------------------------------------------------------------------

using HalfCountedRing = Ring<"smem", tma(2, ts::threads(1), ts::threads(64))>;

// Acquires twice before committing twice: the second acquire arms the same stage again.
struct DoubleAcquireLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
      smem.commit();
    });
  }
};

// Issues the tile's TMA twice into the stage it acquired.
struct TwiceLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};

// Its passing twins: the stage loaded in two parts, by one work in two iterations of an inner
// loop (each call sees its own loop offset), by two calls with different coordinates, or by two
// works of one name and different template arguments at one coordinate (A's and B's tiles).
enum class Parts { InnerLoop, TwoCoordinates, TwoTemplateWorks };
template <Parts kParts>
struct TwoPartLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      if constexpr (kParts == Parts::InnerLoop) {
        ctx.domain_loop(ts::c<2>, [&](auto&) { ts::work<&Smem::put>(smem, c); });
      } else if constexpr (kParts == Parts::TwoCoordinates) {
        auto half = ts::work<&Coords::prefetch>(in);
        ts::work<&Smem::put>(smem, c);
        ts::work<&Smem::put>(smem, half);
      } else {
        ts::work<&Smem::template put_part<0>>(smem, c);
        ts::work<&Smem::template put_part<1>>(smem, c);
      }
      smem.commit();
    });
  }
};

// ---- Ping-pong where both sides wait for the other first
// ---------------------------------------------

using Ping = Ring<"ping", async(1, ts::threads(128), ts::threads(128))>;
using Pong = Ring<"pong", async(1, ts::threads(128), ts::threads(128))>;
template <class Mine, class Theirs, int kWarp, FixedName kName>
struct WaitFirstPlayer {
  static constexpr ts::TaskSpec spec{.name = kName.view(), .warp_idx = kWarp, .num_warps = 4};
  using src = ts::list<Theirs>;
  using dst = ts::list<Mine, Output>;
  static constexpr void schedule(auto& ctx, auto& theirs, auto& mine, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      theirs.wait();
      ts::work<&Output::store>(out, ts::work<&Theirs::take>(theirs));
      theirs.release();
      mine.acquire();
      ts::work<&Mine::put>(mine, 0);
      mine.commit();
    });
  }
};
using DeadPingPong = ts::TaskManager<
    ts::Tasks<WaitFirstPlayer<Ping, Pong, 0, "math0">, WaitFirstPlayer<Pong, Ping, 4, "math1">>,
    ts::Graph<ts::DependsOn<Pong, Ping>, ts::DependsOn<Ping, Pong>,
              ts::DependsOn<Output, Ping, Pong>>>;

// The same two players with ts::Turn (include/warploom/ts/turn.hpp), as the attention and GEMM
// ping-pong kernels take turns: player 1 hands over one turn before its loop so that player 0
// starts, and player 0 takes the one left after its last; without that first turn both wait.
template <int kSlot, bool kFirstTurnGiven>
struct TurnPlayer {
  static constexpr std::string_view kNames[] = {"math0", "math1"};
  static constexpr ts::TaskSpec spec{.name = kNames[kSlot], .warp_idx = 4 * kSlot, .num_warps = 4};
  using src = ts::list<ts::Turn<1 - kSlot>>;
  using dst = ts::list<ts::Turn<kSlot>, Output>;
  static constexpr void schedule(auto& ctx, auto& my_turn, auto& next_turn, auto& out) {
    if constexpr (kSlot == 1 && kFirstTurnGiven) ts::give_turn(next_turn);
    ctx.domain_loop(out->n, [&](auto&) {
      ts::take_turn(my_turn);
      ts::work<&Output::store>(out, kSlot);
      ts::give_turn(next_turn);
    });
    if constexpr (kSlot == 0 && kFirstTurnGiven) ts::take_turn(my_turn);
  }
};
template <bool kFirstTurnGiven>
using TurnPingPong = ts::TaskManager<
    ts::Tasks<TurnPlayer<0, kFirstTurnGiven>, TurnPlayer<1, kFirstTurnGiven>>,
    ts::Graph<ts::DependsOn<ts::Turn<0>, ts::Turn<1>>, ts::DependsOn<ts::Turn<1>, ts::Turn<0>>,
              ts::DependsOn<Output, ts::Turn<0>, ts::Turn<1>>>>;

Entry hang(std::string_view name, std::string_view description,
           ts::ManagerModel (*model)(std::string_view), std::vector<std::string_view> expected,
           std::vector<std::string_view> controls = {}) {
  return {.name = name,
          .theme = kHangs,
          .description = description,
          .expected = std::move(expected),
          .model = model,
          .controls = std::move(controls)};
}

}  // namespace

void add_hangs(Corpus& c) {
  c.push_back(hang("consumer_waits_only_first_iteration",
                   "The store waits in its first iteration only, then reads and releases every "
                   "iteration: from the second on it reads a stage it never waited for",
                   model_of<Copy<Smem, Load<Smem>, WaitOnceStore>>, {"R-D10"}));
  c.push_back(hang("consumer_exits_after_first_tile",
                   "The store handles its first tile and treats the rest as 'no more work' while "
                   "the load keeps filling the ring: the load waits on an empty barrier forever "
                   "(marin #8870)",
                   model_of<Copy<Smem, Load<Smem>, FirstTileOnlyStore>>, {"R-D1", "R-M1"}));
  c.push_back(hang("exit_path_arrives_without_waiting",
                   "After its loop the store's exit path releases once more without a wait: an "
                   "arrival nobody accounts for (vLLM #26026)",
                   model_of<Copy<Smem, Load<Smem>, ArriveOnExitStore>>, {"R-D10"}));
  c.push_back(hang("split_consumer_never_releases",
                   "A second consumer (peek) waits and reads every stage but never releases: its "
                   "waits fall behind the ring",
                   model_of<Copy<Smem, Load<Smem>, Store<Smem>, PeekStore>>, {"R-D10"}));
  c.push_back(hang("monitor_paces_itself",
                   "A monitor waits on both fills of a 2-stage ring (advance_on_wait) and never "
                   "releases; the store releases them. Two fills cannot lap it",
                   model_of<Monitored<2, false>>, {}, {"R-D10"}));
  c.push_back(hang("monitor_reads_refilled_stage",
                   "A monitor waits and reads every stage but never releases: once the store "
                   "released a stage the load refills it under the monitor's read",
                   model_of<Monitored<kRuntime, true>>, {"R-M1", "R-M4", "R-M5"}));
  c.push_back(hang("producer_loop_longer",
                   "The load runs ts::c<5> iterations, the store ts::c<4>: the load's last stage "
                   "is never released and its exit drain waits forever",
                   model_of<Copy<Smem, Load<Smem, 5>, Store<Smem, 4>>>, {"R-D1", "R-M1"}));
  c.push_back({.name = "producer_loop_longer_runtime",
               .theme = kHangs,
               .description = "The load loops n + 1 times, the store n times (both run-time): it "
                              "hangs for every n",
               .expected = {"R-D1", "R-M1"},
               .model = model_of<Copy<Smem, OneMoreLoad, Store<Smem>>>});
  c.push_back(hang("consumer_loops_over_another_size",
                   "The load loops over n items, the store over m (two fields of the resources, "
                   "both run-time, both 0 by default): it hangs whenever n != m",
                   model_of<Copy<Smem, Load<Smem>, Store<Smem, kRuntimeM>>>, {"R-D1", "R-M1"}));
  c.push_back(hang("consumer_loops_over_the_same_size",
                   "The load loops over the coordinates' m, the store over the output's m, which "
                   "the output declares the same size (ts::same_size)",
                   model_of<Copy<Smem, Load<Smem, kRuntimeM>, Store<Smem, kRuntimeM>>>, {},
                   {"R-D1", "R-M1"}));
  c.push_back(hang("data_bounds_from_two_works",
                   "The load loops over counts.rows(), the store over counts.cols() (two consumer "
                   "works, both read from the data): it hangs whenever they differ",
                   model_of<CountedCopy<&Counts::rows, &Counts::cols>>, {"R-D1", "R-M1"}));
  c.push_back(hang("data_bounds_from_one_work",
                   "The load and the store each call counts.rows() and loop over its result: the "
                   "same work on the same arguments, so the same count",
                   model_of<CountedCopy<&Counts::rows, &Counts::rows>>, {}, {"R-D1", "R-M1"}));
  c.push_back(hang("consumer_loop_longer",
                   "The store runs ts::c<5> iterations, the load ts::c<4>: the store waits for a "
                   "fifth stage that never comes",
                   model_of<Copy<Smem, Load<Smem, 4>, Store<Smem, 5>>>, {"R-D1", "R-M1"}));
  c.push_back(hang("phase_from_loop_index",
                   "Per tile the load fills 2 stages (the ring's stage count), the store drains 3 "
                   "(it assumes another stage count): the phase a side waits on no longer follows "
                   "the barrier (TileLang #2927, PR #3087)",
                   model_of<Copy<Smem, TileLoad<Smem, 2>, TileStore<Smem, 3>>>, {"R-D1", "R-M1"}));
  c.push_back(hang("inner_loop_not_a_multiple_of_stages",
                   "Both sides move 3 items per tile through a 2-stage ring: every tile starts "
                   "on another stage and phase, and TS's per-barrier cursors follow",
                   model_of<Copy<Smem, TileLoad<Smem, 3>, TileStore<Smem, 3>>>, {}));
  c.push_back(hang("single_iteration_pipelined_loop",
                   "A 2-stage ring with try_ probes whose loops run exactly once "
                   "(TileLang #2566: hung on the H100, compiled cleanly)",
                   model_of<Copy<Smem, Load<Smem, 1, true>, Store<Smem, 1, true>>>, {}));
  c.push_back(hang("unaligned_tail_dropped",
                   "250 rows in tiles of 64: the load covers the partial last tile, the store "
                   "only the whole ones ([0, 192)): the last stage is never released "
                   "(TileLang #2567)",
                   model_of<Copy<Smem3, RowLoad<250>, RowStore<192>>>, {"R-D1", "R-M1"}));
  c.push_back(hang("unaligned_tail_kept",
                   "250 rows in tiles of 64 through 3 stages on both sides, the partial tile "
                   "included",
                   model_of<Copy<Smem3, RowLoad<250>, RowStore<250>>>, {}));
  c.push_back(hang("two_consumer_groups_different_k_loops",
                   "Two consumer warpgroups share one ring but run 4 and 3 iterations: the "
                   "shorter one stops releasing and the ring stalls (DeepGEMM #429: a CTA pair "
                   "straddling two groups with different K-loops)",
                   model_of<TwoGroups<4, 3>>, {"R-D1", "R-M1"}));
  c.push_back(hang("register_oversubscription",
                   "12 warps: two consumer warpgroups at 256 registers and the load warpgroup at "
                   "40 need 70656 registers; setmaxnreg.inc waits forever "
                   "(CUTLASS #2007, TileLang PR #2406)",
                   model_of<Budgets<40, 256>>, {"R-D3"}));
  c.push_back(hang("register_budgets_fill_the_pool",
                   "12 warps entered with 168 registers: 232 + 232 + 40 per thread (CUTLASS's "
                   "split) exactly fill the 64512 registers the CTA owns",
                   model_of<Budgets<40, 232>>, {}, {"R-D3"}));
  c.push_back({.name = "register_oversubscription_launch_pool",
               .theme = kHangs,
               .description =
                   "12 warps entered with 168 registers (64512 per CTA): 240 + 240 + 32 per "
                   "thread need 65536, more than the CTA's pool; setmaxnreg.inc blocks forever",
               .expected = {"R-D3"},
               .model = model_of<Budgets<32, 240>>});
  c.push_back(hang("warp_range_straddles_warpgroups",
                   "A task on warps 2-5 (232 registers) straddles warpgroups 0 and 1; warps 6-7 "
                   "run at 40: warpgroup 1 would need two setmaxnreg values",
                   model_of<Straddle<40>>, {"R-D2"}));
  c.push_back(hang("warp_range_straddles_one_budget",
                   "The same straddling task with one budget (232) on both warpgroups",
                   model_of<Straddle<232>>, {}, {"R-D2"}));
  c.push_back(hang("arrival_count_mismatch",
                   "The consumer group says 64 threads release each stage; the store's 128 do: "
                   "every phase completes early",
                   model_of<SimpleCopy<HalfCountedRing>>, {"R-D15"}));
  c.push_back(hang("acquire_twice_over_arrival",
                   "The load acquires twice before committing twice: the second acquire arms the "
                   "same full barrier again, one arrival more than its phase expects",
                   model_of<Copy<Smem, DoubleAcquireLoad, Store<Smem>>>, {"R-D1", "R-M6"}));
  c.push_back(hang("overlapping_warps", "The load on warp 3 lies inside the store's warps 0-3",
                   model_of<Copy<Smem, Load<Smem, kRuntime, false, 3>, Store<Smem>>>, {"R-W1"}));
  c.push_back(hang("ping_pong_both_wait_first",
                   "Ping-pong in which both math tasks wait for the other's turn before taking "
                   "their own",
                   model_of<DeadPingPong>, {"R-M1"}));
  c.push_back(hang("turns_without_the_first_turn",
                   "Two tasks taking turns with ts::Turn, neither handing over a first turn: each "
                   "waits for the other's",
                   model_of<TurnPingPong<false>>, {"R-M1"}));
  c.push_back(hang("turns_with_the_first_turn",
                   "The same, the second task handing over one turn before its loop and the first "
                   "taking the last one after its own (the attention ping-pong's order)",
                   model_of<TurnPingPong<true>>, {}, {"R-M1"}));
  c.push_back({.name = "tma_tile_loaded_twice",
               .theme = kHangs,
               .description =
                   "The load issues the tile's TMA twice into the stage it acquired: the barrier "
                   "expects one tile, so the phase completes with a copy still landing, the next "
                   "phase completes before its copy lands, and bytes are left over at exit",
               .expected = {"R-M2", "R-M4", "R-M5"},
               .model = model_of<Copy<Smem, TwiceLoad, Store<Smem>>>});
  c.push_back(hang("tma_tile_loaded_in_two_parts",
                   "The load fills the stage with one TMA work called in the two iterations of "
                   "an inner ts::c<2> loop: two parts of one stage, one transaction group",
                   model_of<Copy<Smem, TwoPartLoad<Parts::InnerLoop>, Store<Smem>>>, {},
                   {"R-M2", "R-M4", "R-M5"}));
  c.push_back(hang("tma_tile_loaded_in_two_calls",
                   "The load fills the stage with two calls of one TMA work at different "
                   "coordinates (two data-flow values): two parts, not the same copy twice",
                   model_of<Copy<Smem, TwoPartLoad<Parts::TwoCoordinates>, Store<Smem>>>, {},
                   {"R-M2", "R-M4", "R-M5"}));
  c.push_back(hang("tma_tile_loaded_by_two_template_works",
                   "The load fills the stage with put_part<0> and put_part<1> at one coordinate: "
                   "two works that share a name, not the same copy twice",
                   model_of<Copy<Smem, TwoPartLoad<Parts::TwoTemplateWorks>, Store<Smem>>>, {},
                   {"R-M2", "R-M4", "R-M5"}));
}

}  // namespace corpus
