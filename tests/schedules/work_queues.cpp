// tests/schedules/work_queues.cpp — persistent kernels over work queues (ts/work_queue.hpp,
// ts/work_tile_loop.hpp): the rules R-A10, R-A11, R-A13 and R-D12, each broken and kept, and the
// dynamic queue's ring (a scheduler warp broadcasting tiles to every task) checked like any other
// pipeline, in kept and skipped tiles. Entries are named wq_<what>.
//
// Every persistent task runs the queue's handshake once per fetch (wait; next_tile; release) and
// its tile's work inside if_valid; a dynamic queue's scheduler fills each entry first (acquire;
// fetch_tile; commit). The static queue computes its tiles (no pipeline, the ops are no-ops).

#include <string_view>
#include <type_traits>

#include "corpus.hpp"
#include "warploom/ts/turn.hpp"

namespace corpus {
namespace {

// ---- Queues -------------------------------------------------------------------------------------

// A static queue with a skip predicate (tiles a mask keeps out).
struct StaticTiles : ts::StaticTileQueue {
  bool masked(ts::WorkTile const& t) const { return t.m < 0; }
  void fill(ts::Produce const&) {}  // for a scheduler that has nothing to fill
};

// Dynamic queues: two entries, released by every warp that takes tiles (the scheduler's too).
template <int kConsumerWarps>
struct DynamicTiles : ts::DynamicTileQueue<2, kConsumerWarps> {
  bool masked(ts::WorkTile const& t) const { return t.m < 0; }
};

// ---- Building blocks ----------------------------------------------------------------------------

// The queue a schedule's handle walks.
template <class Handle>
using queue_of = typename std::remove_cvref_t<Handle>::resource;

// ctx.work_tile_loop over `queue`, with the queue's skip predicate when kSkip.
template <bool kSkip>
constexpr void tile_loop(auto& ctx, auto& queue, auto&& body) {
  using Q = queue_of<decltype(queue)>;
  if constexpr (kSkip) {
    ctx.work_tile_loop(queue, ts::skip_if<&Q::masked>, body);
  } else {
    ctx.work_tile_loop(queue, body);
  }
}

// Runs `body` in tiles.skippable(...) when kSkip, else directly.
template <bool kSkip>
constexpr void maybe_skippable(auto& tiles, auto&& body) {
  if constexpr (kSkip) {
    tiles.skippable(body);
  } else {
    body();
  }
}

// ---- Tasks --------------------------------------------------------------------------------------

// What the persistent copy does wrong (or nothing).
enum class CopyFault {
  Good,
  TwoTileLoops,       // R-A10: walks its tiles twice, in two loops
  InsideDomainLoop,   // R-A10: the tile loop inside a domain loop
  StoreOutside,       // R-A10: a store after the tile loop
  NestedSkippable,    // R-A13
  HandshakeSkipped,   // R-A13 (and R-D12): the handshake inside skippable()
  FetchInDomainLoop,  // R-D12: the handshake inside a domain loop of the body
  ReadBeforeWait,     // reads the entry before waiting on it
  NeverReleases,      // keeps every entry it waited on
};

// Copies each tile's k items from coords to out, on warps 0-3.
template <class Q, bool kSkip = false, CopyFault kHow = CopyFault::Good>
struct TileCopy {
  static constexpr ts::TaskSpec spec{.name = "copy", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<Q, Coords>;
  using dst = ts::list<Output>;
  static constexpr void copy_items(auto& ctx, auto& in, auto& out) {
    ctx.domain_loop(in->k,
                    [&](auto&) { ts::work<&Output::store>(out, ts::work<&Coords::coord>(in)); });
  }
  static constexpr void walk(auto& ctx, auto& queue, auto& in, auto& out) {
    tile_loop<kSkip>(ctx, queue, [&](auto& tiles) {
      if constexpr (kHow == CopyFault::HandshakeSkipped) {
        tiles.skippable(
            [&] { tiles.if_valid(take_tile(queue), [&] { copy_items(ctx, in, out); }); });
      } else if constexpr (kHow == CopyFault::FetchInDomainLoop) {
        ctx.domain_loop(ts::c<1>, [&](auto&) {
          tiles.if_valid(take_tile(queue), [&] { copy_items(ctx, in, out); });
        });
      } else {
        ts::Token<ts::WorkTile> tile{};
        if constexpr (kHow == CopyFault::ReadBeforeWait) {
          tile = ts::work<&Q::next_tile>(queue);
          queue.wait();
          queue.release();
        } else if constexpr (kHow == CopyFault::NeverReleases) {
          queue.wait();
          tile = ts::work<&Q::next_tile>(queue);
        } else {
          tile = take_tile(queue);
        }
        tiles.if_valid(tile, [&] {
          maybe_skippable<kSkip>(tiles, [&] {
            if constexpr (kHow == CopyFault::NestedSkippable) {
              tiles.skippable([&] { copy_items(ctx, in, out); });
            } else {
              copy_items(ctx, in, out);
            }
          });
        });
      }
    });
  }
  static constexpr void schedule(auto& ctx, auto& queue, auto& in, auto& out) {
    if constexpr (kHow == CopyFault::TwoTileLoops) {
      walk(ctx, queue, in, out);
      walk(ctx, queue, in, out);
    } else if constexpr (kHow == CopyFault::InsideDomainLoop) {
      ctx.domain_loop(ts::c<1>, [&](auto&) { walk(ctx, queue, in, out); });
    } else {
      walk(ctx, queue, in, out);
    }
    if constexpr (kHow == CopyFault::StoreOutside) ts::work<&Output::store>(out, 0);
  }
};

// The same copy without a tile loop: the store of a non-persistent kernel.
struct PlainStore {
  static constexpr ts::TaskSpec spec{.name = "plain_store", .warp_idx = 4, .num_warps = 1};
  using src = ts::list<Coords>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& in, auto& out) {
    ctx.domain_loop(in->n,
                    [&](auto&) { ts::work<&Output::store>(out, ts::work<&Coords::coord>(in)); });
  }
};

// What the deferred copy does wrong (or nothing).
enum class DeferFault {
  Good,
  IfInvalidTwice,  // R-D12: two blocks after the last tile
};

// Stores each tile's item one fetch late, as the attention kernel stores a tile's O under the next
// tile's first GEMM: the tile before's item in every fetch but the first (not_first_iter), the
// last tile's once the queue ran dry (if_invalid).
template <DeferFault kHow = DeferFault::Good>
struct DeferredCopy {
  static constexpr ts::TaskSpec spec{.name = "copy", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<StaticTiles, Coords>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& in, auto& out) {
    auto kept = ctx.local(0);  // the tile before's item
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      auto tile = take_tile(queue);
      tiles.if_valid(tile, [&] {
        tiles.not_first_iter([&] { ts::work<&Output::store>(out, kept); });
        kept = ts::work<&Coords::coord>(in);
      });
      tiles.if_invalid(tile, [&] { ts::work<&Output::store>(out, kept); });
      if constexpr (kHow == DeferFault::IfInvalidTwice)
        tiles.if_invalid(tile, [&] { ts::work<&Output::store>(out, kept); });
    });
  }
};

// The scheduler warp of a dynamic queue: fills an entry, then takes it like every task.
template <class Q, FixedName kName = "scheduler", int kWarp = 5, bool kWaitFirst = false>
struct Scheduler {
  static constexpr ts::TaskSpec spec{.name = kName.view(), .warp_idx = kWarp, .num_warps = 1};
  using src = ts::list<Q>;
  using dst = ts::list<Q>;
  static constexpr void schedule(auto& ctx, auto& queue, auto&) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      if constexpr (kWaitFirst) {
        auto tile = take_tile(queue);
        fetch_tile(queue);
        tiles.if_valid(tile, [] {});
      } else {
        fetch_tile(queue);
        tiles.if_valid(take_tile(queue), [] {});
      }
    });
  }
};

// The TMA producer of a persistent GEMM-like manager: each tile's k-blocks into the smem ring.
template <class Q, bool kSkip = false>
struct TileLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 1};
  using src = ts::list<Q, Coords>;
  using dst = ts::list<Smem>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& in, auto& smem) {
    tile_loop<kSkip>(ctx, queue, [&](auto& tiles) {
      tiles.if_valid(take_tile(queue), [&] {
        maybe_skippable<kSkip>(tiles, [&] {
          ctx.domain_loop(in->k, [&](auto&) {
            auto k = ts::work<&Coords::coord>(in);
            smem.acquire();
            ts::work<&Smem::put>(smem, k);
            smem.commit();
          });
        });
      });
    });
  }
};

// Its consumer: each tile's k-blocks from the ring, then the tile's store. kSkipConsumer: it
// skips like the load; without, it waits for the k-blocks of a tile the load skipped.
template <class Q, bool kSkip = false, bool kSkipConsumer = kSkip>
struct TileMma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<Q, Smem>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& smem, auto& out) {
    tile_loop<kSkip>(ctx, queue, [&](auto& tiles) {
      tiles.if_valid(take_tile(queue), [&] {
        maybe_skippable<kSkipConsumer>(tiles, [&] {
          auto acc = ctx.local(0);
          ctx.domain_loop(out->k, [&](auto&) {
            smem.wait();
            acc = ts::work<&Smem::take>(smem);
            smem.release();
          });
          ts::work<&Output::store>(out, acc);
        });
      });
    });
  }
};

// ---- Managers -----------------------------------------------------------------------------------

template <class Q>
using CopyGraph = ts::Graph<ts::DependsOn<Output, Coords, Q>>;

template <class Q, bool kSkip = false, CopyFault kHow = CopyFault::Good>
using StaticCopy = ts::TaskManager<ts::Tasks<TileCopy<Q, kSkip, kHow>>, CopyGraph<Q>>;

// Copy (4 warps) and scheduler (1): five warps take the tiles.
using Dynamic5 = DynamicTiles<5>;
template <bool kSkip = false, CopyFault kHow = CopyFault::Good,
          class SchedulerT = Scheduler<Dynamic5>>
using DynamicCopy =
    ts::TaskManager<ts::Tasks<TileCopy<Dynamic5, kSkip, kHow>, SchedulerT>, CopyGraph<Dynamic5>>;
using TwoSchedulers =
    ts::TaskManager<ts::Tasks<TileCopy<DynamicTiles<6>>, Scheduler<DynamicTiles<6>>,
                              Scheduler<DynamicTiles<6>, "scheduler_b", 6>>,
                    CopyGraph<DynamicTiles<6>>>;
// The dynamic queue's copy without its scheduler.
using Unfilled = ts::TaskManager<ts::Tasks<TileCopy<DynamicTiles<4>>>, CopyGraph<DynamicTiles<4>>>;
// A static queue with a scheduler filling it.
struct StaticScheduler {
  static constexpr ts::TaskSpec spec{.name = "scheduler", .warp_idx = 5, .num_warps = 1};
  using src = ts::list<StaticTiles>;
  using dst = ts::list<StaticTiles>;
  static constexpr void schedule(auto& ctx, auto& queue, auto&) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      ts::work<&StaticTiles::fill>(queue);
      tiles.if_valid(take_tile(queue), [] {});
    });
  }
};
using FilledStatic =
    ts::TaskManager<ts::Tasks<TileCopy<StaticTiles>, StaticScheduler>, CopyGraph<StaticTiles>>;
template <DeferFault kHow = DeferFault::Good>
using Deferred = ts::TaskManager<ts::Tasks<DeferredCopy<kHow>>, CopyGraph<StaticTiles>>;
// One persistent task and one that is not.
using HalfPersistent =
    ts::TaskManager<ts::Tasks<TileCopy<StaticTiles>, PlainStore>, CopyGraph<StaticTiles>>;

// Scheduler (warp 5), TMA load (warp 4), consumer (warps 0-3): six warps take the tiles.
using Dynamic6 = DynamicTiles<6>;
using ManagerGraph =
    ts::Graph<ts::DependsOn<Smem, Coords, Dynamic6>, ts::DependsOn<Output, Smem, Dynamic6>>;
template <bool kSkip = false, bool kSkipConsumer = kSkip, bool kSchedulerWaitsFirst = false>
using DynamicManager =
    ts::TaskManager<ts::Tasks<Scheduler<Dynamic6, "scheduler", 5, kSchedulerWaitsFirst>,
                              TileLoad<Dynamic6, kSkip>, TileMma<Dynamic6, kSkip, kSkipConsumer>>,
                    ManagerGraph>;

// Two tasks taking turns at a shared unit over a dynamic queue's tiles (the ping-pong GEMM over a
// queue of tile pairs, kernels/gemm/sm90/pingpong_dynamic.hpp), where no task knows its last valid
// fetch until it reads the invalid one: the second hands the turn back at every valid fetch, the
// first takes it back at every fetch but the first — the invalid one included, which consumes the
// last hand-over. kTakeOnlyInValidFetches: the first takes it back inside if_valid only, and the
// last hand-over is never taken.
using Dynamic9 = DynamicTiles<9>;  // both players (4 warps each) and the scheduler
template <int kSlot, bool kTakeOnlyInValidFetches = false>
struct QueueTurnPlayer {
  static constexpr std::string_view kNames[] = {"math0", "math1"};
  static constexpr ts::TaskSpec spec{.name = kNames[kSlot], .warp_idx = 4 * kSlot, .num_warps = 4};
  using src = ts::list<Dynamic9, ts::Turn<1 - kSlot>>;
  using dst = ts::list<ts::Turn<kSlot>, Output>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& my_turn, auto& next_turn,
                                 auto& out) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      auto tile = take_tile(queue);
      auto const take = [&] { ts::take_turn(my_turn); };
      if constexpr (kSlot == 0 && !kTakeOnlyInValidFetches) tiles.not_first_iter(take);
      tiles.if_valid(tile, [&] {
        if constexpr (kSlot == 0 && kTakeOnlyInValidFetches) tiles.not_first_iter(take);
        if constexpr (kSlot == 1) take();
        ts::work<&Output::store>(out, kSlot);
        ts::give_turn(next_turn);
      });
    });
  }
};
template <bool kTakeOnlyInValidFetches = false>
using QueueTurns = ts::TaskManager<
    ts::Tasks<QueueTurnPlayer<0, kTakeOnlyInValidFetches>,
              QueueTurnPlayer<1, kTakeOnlyInValidFetches>, Scheduler<Dynamic9, "scheduler", 8>>,
    ts::Graph<ts::DependsOn<ts::Turn<0>, Dynamic9>, ts::DependsOn<ts::Turn<1>, Dynamic9>,
              ts::DependsOn<Output, Dynamic9, ts::Turn<0>, ts::Turn<1>>>>;

// ---- Hand-built edits ---------------------------------------------------------------------------

// The skip-if copy with its predicate taken from another resource (coords): in C++ a compile
// error (R-A11), here what a tool building models without C++ could produce.
ts::ManagerModel skip_if_of_coords(std::string_view name) {
  ts::ManagerModel m = StaticCopy<StaticTiles, true>::model(name);
  int coords = -1;
  for (int i = 0; i < static_cast<int>(m.resources.size()); ++i)
    if (m.resources[i].name == "coords") coords = i;
  for (auto& n : m.tasks[0].schedule.nodes)
    if (ts::is_tile_loop(n)) n.skip_if = coords;
  return m;
}

// The skip-if copy with the predicate removed but its skippable() section kept (in C++:
// skippable() does not compile without ts::skip_if, R-A13).
ts::ManagerModel skippable_without_skip_if(std::string_view name) {
  ts::ManagerModel m = StaticCopy<StaticTiles, true>::model(name);
  for (auto& n : m.tasks[0].schedule.nodes)
    if (ts::is_tile_loop(n)) n.skip_if = -1;
  return m;
}

// ---- Entry helpers ------------------------------------------------------------------------------

Entry entry(std::string_view name, std::string_view description,
            ts::ManagerModel (*model)(std::string_view), std::vector<std::string_view> expected,
            std::vector<std::string_view> controls = {}, std::string_view note = {}) {
  return {.name = name,
          .theme = kWorkQueues,
          .description = description,
          .expected = std::move(expected),
          .model = model,
          .controls = std::move(controls),
          .known_miss = false,
          .note = note};
}

constexpr std::string_view kA11Note =
    "Edited from a captured model: in C++ a skip predicate that is not a member of the loop's "
    "queue is a compile error (R-A11's static_assert in work_tile_loop.hpp).";
constexpr std::string_view kA13Note =
    "Edited from a captured model: in C++ tiles.skippable() does not compile in a loop without "
    "ts::skip_if.";

}  // namespace

void add_work_queues(Corpus& c) {
  // Passing managers.
  c.push_back(entry("wq_static_copy",
                    "A persistent copy over a static queue: each CTA walks tiles b, b + grid, ... "
                    "until the first index past the end",
                    model_of<StaticCopy<StaticTiles>>, {}, {"R-A10", "R-D12"}));
  c.push_back(entry("wq_static_skip",
                    "The same copy with the queue's skip predicate: a skipped tile's items are "
                    "left alone (skippable), its handshake still runs",
                    model_of<StaticCopy<StaticTiles, true>>, {}, {"R-A11", "R-A13"}));
  c.push_back(entry("wq_dynamic_copy",
                    "The copy over a dynamic queue: a scheduler warp fetches each tile from a "
                    "global counter into a 2-entry ring, and takes it like the copy",
                    model_of<DynamicCopy<>>, {}, {"R-B4", "R-D12"}));
  c.push_back(
      entry("wq_dynamic_copy_library_scheduler",
            "The same copy with the library's scheduler task (ts::TileSchedulerTask, "
            "ts/tile_scheduler.hpp), the one the GEMM and attention kernels use",
            model_of<DynamicCopy<false, CopyFault::Good, ts::TileSchedulerTask<Dynamic5, 5>>>, {},
            {"R-B4", "R-D12"}));
  c.push_back(entry("wq_dynamic_manager",
                    "A persistent manager over a dynamic queue: scheduler warp, TMA load of each "
                    "tile's k-blocks, consumer accumulating and storing the tile",
                    model_of<DynamicManager<>>, {}, {"R-D12"}));
  c.push_back(entry("wq_dynamic_manager_skip",
                    "The manager with the queue's skip predicate: load and consumer both leave a "
                    "skipped tile's k-blocks out",
                    model_of<DynamicManager<true>>, {}, {"R-A13"}));
  c.push_back(entry("wq_deferred_store",
                    "Each tile's item stored by the next fetch (not_first_iter), the last tile's "
                    "after the queue ran dry (if_invalid)",
                    model_of<Deferred<>>, {}, {"R-D12"}));
  // R-A10
  c.push_back(entry("wq_a10_two_tile_loops",
                    "The copy walks the queue twice, in two tile loops: the second finds it "
                    "drained",
                    model_of<StaticCopy<StaticTiles, false, CopyFault::TwoTileLoops>>, {"R-A10"}));
  c.push_back(
      entry("wq_a10_tile_loop_in_a_domain_loop", "The copy's tile loop sits inside a domain loop",
            model_of<StaticCopy<StaticTiles, false, CopyFault::InsideDomainLoop>>, {"R-A10"}));
  c.push_back(entry("wq_a10_store_after_the_tile_loop",
                    "The copy stores once more after its tile loop: work of no tile",
                    model_of<StaticCopy<StaticTiles, false, CopyFault::StoreOutside>>, {"R-A10"}));
  // R-A11
  c.push_back(entry("wq_a11_skip_predicate_of_another_resource",
                    "The tile loop takes its skip predicate from coords, not from its queue",
                    skip_if_of_coords, {"R-A11"}, {}, kA11Note));
  // R-A13
  c.push_back(entry("wq_a13_nested_skippable", "A skippable section inside another",
                    model_of<StaticCopy<StaticTiles, true, CopyFault::NestedSkippable>>,
                    {"R-A13"}));
  c.push_back(entry("wq_a13_handshake_in_skippable",
                    "The queue's handshake inside skippable(): a skipped tile would miss it",
                    model_of<StaticCopy<StaticTiles, true, CopyFault::HandshakeSkipped>>,
                    {"R-A13", "R-D12"}));
  c.push_back(entry("wq_a13_skippable_without_skip_if",
                    "A skippable section in a tile loop without a skip predicate",
                    skippable_without_skip_if, {"R-A13"}, {}, kA13Note));
  // R-D12
  c.push_back(entry("wq_d12_one_task_not_persistent",
                    "The copy is persistent, a second store task runs a plain loop once",
                    model_of<HalfPersistent>, {"R-D12"}));
  c.push_back(entry(
      "wq_d12_fetch_in_a_domain_loop", "The handshake inside a domain loop of the tile loop's body",
      model_of<StaticCopy<StaticTiles, false, CopyFault::FetchInDomainLoop>>, {"R-D12"}));
  c.push_back(entry("wq_d12_static_queue_with_a_scheduler",
                    "A task fills a static queue (no pipeline): its tiles are computed",
                    model_of<FilledStatic>, {"R-D12"}));
  c.push_back(entry("wq_d12_dynamic_queue_without_a_scheduler",
                    "A dynamic queue that no task fills: the copy waits for its first tile "
                    "forever",
                    model_of<Unfilled>, {"R-D12"}));
  c.push_back(entry("wq_d12_if_invalid_twice",
                    "Two if_invalid blocks after the last tile: one holds the work after it",
                    model_of<Deferred<DeferFault::IfInvalidTwice>>, {"R-D12"}));
  // The dynamic queue's ring.
  c.push_back(entry("wq_two_schedulers",
                    "Two scheduler warps fill one dynamic queue: the tasks would see both fetch "
                    "sequences interleaved",
                    model_of<TwoSchedulers>, {"R-B4", "R-D15"}));
  c.push_back(entry("wq_reads_the_entry_before_waiting",
                    "The copy reads its tile from the queue's ring before waiting for the "
                    "scheduler's fill (a read of an entry being written)",
                    model_of<DynamicCopy<false, CopyFault::ReadBeforeWait>>, {"R-D10"}));
  c.push_back(entry("wq_never_releases_its_tile",
                    "The copy never releases the entries it waited on: the scheduler's third "
                    "fetch would wait forever",
                    model_of<DynamicCopy<false, CopyFault::NeverReleases>>, {"R-D10", "R-D15"}));
  c.push_back(entry("wq_scheduler_waits_before_it_fetches",
                    "The scheduler takes its tile before fetching it: it waits for a fill only "
                    "it can make",
                    model_of<DynamicManager<false, false, true>>, {"R-M1"}));
  // Turns over a tile loop of unknown length.
  c.push_back(entry("wq_turns_over_a_dynamic_tile_loop",
                    "Two tasks take turns over a dynamic queue's tiles: the first takes the turn "
                    "back at every fetch but the first, the invalid last one included",
                    model_of<QueueTurns<>>, {}, {"R-D1"}));
  c.push_back(entry("wq_turn_taken_back_only_in_valid_fetches",
                    "The same turns with the first taking the turn back in valid fetches only: "
                    "one hand-over more than takes (R-D1), and a state no task leaves (R-M1)",
                    model_of<QueueTurns<true>>, {"R-D1", "R-M1"}));
  c.push_back(entry("wq_skipped_tile_still_consumed",
                    "The load skips a skipped tile's k-blocks, the consumer still waits for "
                    "them: a hang when a tile is skipped",
                    model_of<DynamicManager<true, false>>, {"R-D1", "R-M1"}));
}

}  // namespace corpus
