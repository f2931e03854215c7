// tests/schedules/rules.cpp — every rule of warploom/ts/verify/diagnostic.hpp (kRules) with a
// violating entry and its passing control: the same manager with the one thing that breaks the
// rule fixed. Entries are named r_<rule>_<what>.
//
// R-B3, R-B6, R-D5 and R-D20 cannot be broken by a C++ schedule: it does not compile
// (tests/compile_fail checks each error). Their violating entries are models built by hand or
// edited from a captured one — what a tool that builds models without C++ would hand the verifier.
// The compile-time-only rules R-A2, R-A5, R-A6, R-A12, R-B1 and R-B2 have no runtime check at all
// and so no entry (docs/verification/rules.md shows their compiler errors).

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../cpu/ts/model_builder.hpp"
#include "corpus.hpp"

namespace corpus {
namespace {

using fixtures::dynamic;
using fixtures::fixed;
using fixtures::ModelBuilder;
using fixtures::ScheduleBuilder;

// ---- Hand-built models
// ----------------------------------------------------------------------------

// One task "spin" on warps 0-3 reading coords (resource 0) and writing out (resource 1) in a loop
// with the given step, with an optional first_iter block placed inside or outside the loop.
enum class Block { None, Inside, Outside };
ts::ManagerModel spin_model(std::string_view name, ts::Bound step, int unroll, Block block,
                            std::string_view write_label = "write") {
  ScheduleBuilder s;
  int const loop = s.loop(0, fixed(0), dynamic(0), step);
  s.s.nodes[loop].unroll = unroll;
  s.work(loop, ts::Role::Consumer, 0, "read");
  s.work(loop, ts::Role::Producer, 1, write_label);
  if (block != Block::None) {
    int const guarded = s.block(block == Block::Inside ? loop : 0, ts::NodeKind::FirstIter, loop);
    s.work(guarded, ts::Role::Producer, 1, write_label);
  }
  ModelBuilder b;
  b.m.name = name;
  b.resource("coords");
  b.resource("out");
  b.task("spin", 0, 4, {0}, {1}, s.s);
  b.edge(1, 0);
  return b.m;
}

ts::ManagerModel b3_step_zero(std::string_view name) {
  return spin_model(name, fixed(0), 0, Block::None);
}
ts::ManagerModel b3_negative_unroll(std::string_view name) {
  return spin_model(name, fixed(1), -2, Block::None);
}
ts::ManagerModel b3_step_two(std::string_view name) {
  return spin_model(name, fixed(2), 4, Block::None);
}
ts::ManagerModel b6_block_outside(std::string_view name) {
  return spin_model(name, fixed(1), 0, Block::Outside);
}
ts::ManagerModel b6_block_inside(std::string_view name) {
  return spin_model(name, fixed(1), 0, Block::Inside);
}
ts::ManagerModel d20_unnamed_work(std::string_view name) {
  return spin_model(name, fixed(1), 0, Block::None, "");
}
ts::ManagerModel d20_named_work(std::string_view name) {
  return spin_model(name, fixed(1), 0, Block::None, "write");
}

// The captured model of the default TMA copy with one more work on `out` in the store task:
// `store` (producer side: out is in the store's dst) or `peek` (consumer side: it is not in src).
template <ts::Role kRole>
ts::ManagerModel copy_plus_work_on_out(std::string_view name) {
  ts::ManagerModel m = SimpleCopy<Smem>::model(name);
  int out = -1;
  for (int r = 0; r < static_cast<int>(m.resources.size()); ++r)
    if (m.resources[r].name == "out") out = r;
  for (auto& t : m.tasks) {
    if (t.spec.name != "store") continue;
    ts::Node n{};
    n.kind = ts::NodeKind::Op;
    n.parent = 0;
    n.op = ts::OpKind::Work;
    n.role = kRole;
    n.resource = out;
    n.label = kRole == ts::Role::Producer ? "store" : "peek";
    t.schedule.add(n);
  }
  return m;
}

// R-D23: the default copy with the load's loop body reordered so that its copy (put) comes
// before the coordinate work whose value it reads, as a model built without C++ could record it.
ts::ManagerModel d23_value_read_first(std::string_view name) {
  ts::ManagerModel m = SimpleCopy<Smem>::model(name);
  for (auto& t : m.tasks) {
    if (t.spec.name != "load") continue;
    for (auto& n : t.schedule.nodes) {
      if (n.kind != ts::NodeKind::Loop || n.children.empty()) continue;
      // [coord, acquire, put, commit] -> [acquire, put, commit, coord]
      n.children.push_back(n.children.front());
      n.children.erase(n.children.begin());
    }
  }
  return m;
}

// ---- C++ managers
// ---------------------------------------------------------------------------------

// R-B3 control in C++: loops over even items only (step ts::c<2>) on both sides.
struct EvenLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(0, in->n, ts::c<2>, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};
struct EvenStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(0, out->n, ts::c<2>, [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    });
  }
};

// R-D7: the load fills the ring with data the previous grid wrote (programmatic dependent launch:
// the graph makes the ring, and with kCoordsToo the coordinates, depend on ts::PdlWait); kAt is
// where it waits for that grid. The store signals the next grid after its last tile.
enum class PdlWaitAt { First, BeforeEachPut, AfterLoop, FromTheSecondItem };
template <PdlWaitAt kAt>
struct PdlLoad : Load<Smem> {
  using src = ts::list<Coords, ts::PdlWait>;
  static constexpr void schedule(auto& ctx, auto& in, auto& pdl, auto& smem) {
    if constexpr (kAt == PdlWaitAt::First) ts::work<&ts::PdlWait::wait_griddep>(pdl);
    if constexpr (kAt == PdlWaitAt::FromTheSecondItem)  // a loop that runs no trip for n = 1
      ctx.domain_loop(1, in->n, 1, [&](auto&) { ts::work<&ts::PdlWait::wait_griddep>(pdl); });
    ctx.domain_loop(0, in->n, 1, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      if constexpr (kAt == PdlWaitAt::BeforeEachPut) ts::work<&ts::PdlWait::wait_griddep>(pdl);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
    if constexpr (kAt == PdlWaitAt::AfterLoop) ts::work<&ts::PdlWait::wait_griddep>(pdl);
  }
};
struct PdlStore : Store<Smem> {
  using dst = ts::list<Output, ts::PdlLaunch>;
  static constexpr void schedule(auto& ctx, auto& smem, auto& out, auto& launch) {
    ctx.domain_loop(0, out->n, 1, [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    });
    ts::work<&ts::PdlLaunch::launch_griddep>(launch);
  }
};
// The store waits for the previous grid too (which a consumer of a ring need not).
struct WaitingPdlStore : PdlStore {
  using src = ts::list<Smem, ts::PdlWait>;
  static constexpr void schedule(auto& ctx, auto& smem, auto& pdl, auto& out, auto& launch) {
    ts::work<&ts::PdlWait::wait_griddep>(pdl);
    PdlStore::schedule(ctx, smem, out, launch);
  }
};
template <bool kCoordsToo>
using PdlGraph = std::conditional_t<
    kCoordsToo,
    ts::Graph<ts::DependsOn<Smem, Coords, ts::PdlWait>, ts::DependsOn<Coords, ts::PdlWait>,
              ts::DependsOn<Output, Smem>, ts::DependsOn<ts::PdlLaunch>>,
    ts::Graph<ts::DependsOn<Smem, Coords, ts::PdlWait>, ts::DependsOn<Output, Smem>,
              ts::DependsOn<ts::PdlLaunch>>>;
template <class LoadTask, bool kCoordsToo = false, class StoreTask = PdlStore>
using PdlCopy = ts::TaskManager<ts::Tasks<LoadTask, StoreTask>, PdlGraph<kCoordsToo>>;

// R-B4: work queues (ts/work_queue.hpp). A dynamic queue's scheduler is in work_queues.cpp.
template <int kId>
struct WorkQueue : ts::StaticTileQueue {
  static constexpr ts::ResourceSpec spec{.name = kId == 0 ? "tile_queue" : "tile_queue_b",
                                         .kind = ts::ResourceKind::WorkQueue};
};
using QueueA = WorkQueue<0>;
using QueueB = WorkQueue<1>;

// Takes its tiles from QueueA and stores their coordinates.
struct PersistentElementwise {
  static constexpr ts::TaskSpec spec{.name = "persistent", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<QueueA, Coords>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& in, auto& out) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      tiles.if_valid(take_tile(queue),
                     [&] { ts::work<&Output::store>(out, ts::work<&Coords::coord>(in)); });
    });
  }
};
// Takes a tile from each of QueueA and QueueB.
struct TwoQueueElementwise {
  static constexpr ts::TaskSpec spec{.name = "persistent", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<QueueA, QueueB, Coords>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& queue_a, auto& queue_b, auto& in, auto& out) {
    ctx.work_tile_loop(queue_a, [&](auto& tiles) {
      auto tile_b = take_tile(queue_b);
      tiles.if_valid(take_tile(queue_a), [&] {
        ts::work<&Output::store>(out, ts::work<&Coords::coord>(in));
        ts::work<&Output::store>(out, ts::work<&Coords::coord>(in));
      });
      (void)tile_b;
    });
  }
};
using OneQueue = ts::TaskManager<ts::Tasks<PersistentElementwise>,
                                 ts::Graph<ts::DependsOn<Output, Coords, QueueA>>>;
using TwoQueues = ts::TaskManager<ts::Tasks<TwoQueueElementwise>,
                                  ts::Graph<ts::DependsOn<Output, Coords, QueueA, QueueB>>>;

// R-B7 / R-D2: the tutorial's registers (store 160, load kLoad; the TaskManager pads warps 5-7
// with the load's budget), and `More...` tasks beside them.
template <int kLoad, class... More>
using Registers = Copy<Smem, Load<Smem, kRuntime, false, 4, 1, kLoad>,
                       Store<Smem, kRuntime, false, 0, 4, 160>, More...>;
// A task that uses no resource and does nothing: a second task in the load's warpgroup.
template <int kWarp, int kRegisters>
struct Idle {
  static constexpr ts::TaskSpec spec{
      .name = "idle", .warp_idx = kWarp, .num_warps = 1, .num_registers = kRegisters};
  using src = ts::list<>;
  using dst = ts::list<>;
  static constexpr void schedule(auto&) {}
};

// R-D3: 12 warps, three warpgroups; the consumer groups split one ring.
using SplitRing = Ring<"smem", tma(2, ts::threads(1), ts::threads(256))>;
template <int kLoad, int kMma>
using ThreeGroups = Copy<SplitRing, Load<SplitRing, kRuntime, false, 8, 1, kLoad>,
                         Store<SplitRing, kRuntime, false, 0, 4, kMma, "mma_lo">,
                         Store<SplitRing, kRuntime, false, 4, 4, kMma, "mma_hi">>;

// R-D6 / R-D8 / R-D9: graphs and declared resources.
using GraphWithShortcut =
    ts::TaskManager<ts::Tasks<Load<Smem>, Store<Smem>>,
                    ts::Graph<ts::DependsOn<Smem, Coords>, ts::DependsOn<Output, Smem>,
                              ts::DependsOn<Output, Coords>>>;  // out <- coords: no task reads
                                                                // coords, writes out
struct Unused {
  static constexpr ts::ResourceSpec spec{.name = "unused"};
};
using GraphWithUnused =
    ts::TaskManager<ts::Tasks<Load<Smem>, Store<Smem>>,
                    ts::Graph<ts::DependsOn<Smem, Coords>, ts::DependsOn<Output, Smem>,
                              ts::DependsOn<Unused, Coords>>>;
using GraphWithoutOut =
    ts::TaskManager<ts::Tasks<Load<Smem>, Store<Smem>>, ts::Graph<ts::DependsOn<Smem, Coords>>>;
using GraphOutWithoutUpstream =
    ts::TaskManager<ts::Tasks<Load<Smem>, Store<Smem>>,
                    ts::Graph<ts::DependsOn<Smem, Coords>, ts::DependsOn<Output>>>;

// Lists coords in src; kUses: reads it (the coordinate it stores), else never touches it.
template <bool kUses>
struct StoreWithCoords {
  static constexpr ts::TaskSpec spec{.name = "store", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<Smem, Coords>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& smem, auto& in, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
      if constexpr (kUses) ts::work<&Output::store>(out, ts::work<&Coords::coord>(in));
    });
  }
};
template <bool kUses>
using DeclaresCoords =
    ts::TaskManager<ts::Tasks<Load<Smem>, StoreWithCoords<kUses>>,
                    ts::Graph<ts::DependsOn<Smem, Coords>, ts::DependsOn<Output, Smem, Coords>>>;

// R-D10: the TMA issued before the stage is acquired.
struct LoadBeforeAcquire : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      ts::work<&Smem::put>(smem, c);
      smem.acquire();
      smem.commit();
    });
  }
};

// R-D11: probes the next stage at the end of each iteration; the last probe is never followed by
// an acquire.
struct ProbeAheadLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
      smem.try_acquire();
    });
  }
};

// R-D15: a thread-written ring whose producer group counts one thread; the writer has 32.
using UndercountedQueue = Ring<"ring", async(2, ts::threads(1))>;

// Consumers taking turns (skip()): the load fills two stages per iteration; "even" waits on and
// releases the first and skips the second, "odd" the other way round (kSkipInside: "even" skips
// while its stage is still open). Each stage is released by one 128-thread task.
template <class R>
struct TwoItemLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 8, .num_warps = 1};
  using src = ts::list<Coords>;
  using dst = ts::list<R>;
  static constexpr void schedule(auto& ctx, auto& in, auto& ring) {
    ctx.domain_loop(in->n, [&](auto&) {
      for (int item = 0; item < 2; ++item) {
        auto c = ts::work<&Coords::coord>(in);
        ring.acquire();
        ts::work<&R::put>(ring, c);
        ring.commit();
      }
    });
  }
};
template <class R, int kTurn, FixedName kName, bool kSkipInside = false>
struct TurnStore {
  static constexpr ts::TaskSpec spec{.name = kName.view(), .warp_idx = 4 * kTurn, .num_warps = 4};
  using src = ts::list<R>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      if constexpr (kTurn == 1) ring.skip();
      ring.wait();
      auto v = ts::work<&R::take>(ring);
      if constexpr (kSkipInside) ring.skip();
      ring.release();
      ts::work<&Output::store>(out, v);
      if constexpr (kTurn == 0 && !kSkipInside) ring.skip();
    });
  }
};
template <class R, bool kSkipInside = false>
using Turns = Copy<R, TwoItemLoad<R>, TurnStore<R, 0, "even", kSkipInside>, TurnStore<R, 1, "odd">>;
// One task's 128 threads release each stage; counting both tasks (256) is R-D15.
using TurnRing = Ring<"smem", tma(2)>;
using SummedTurnRing = Ring<"smem", tma(2, ts::threads(1), ts::threads(256))>;
// Three stages: "odd" skips ahead onto a stage whose previous lap ("even"'s item, two items
// back) the load may not have filled yet, and its wait passes on the stale phase parity.
using OddTurnRing = Ring<"smem", tma(3)>;

// R-D16: 4 KiB per stage in the buffer, 2 KiB in the pipeline's transaction count.
template <int kBytes>
struct Tiles16 {
  static constexpr ts::ResourceSpec spec{
      .name = "smem", .pipeline = ts::tma_async(2, kBytes, ts::threads(1), ts::threads(128))};
  ts::SmemBuffer<std::uint8_t, 2 * 4096> tiles;  // (STAGES, 4 KiB)
  using smem_buffers = ts::buffers<&Tiles16::tiles>;
  void put(ts::Produce const&, int coord) { (void)coord; }
  int take(ts::Consume const& s) const { return s.stage_idx; }
};

// R-D21: kStages stages of 32 KiB.
template <int kStages>
using BigRing = Ring<"smem", tma(kStages, ts::threads(1), ts::threads(128), 32768)>;

// R-D22: stages multicast to a cluster of two CTAs; only a TMA producer can write into the peer.
using MulticastQueue = Ring<"ring", async(2).with_multicast(2)>;
using MulticastSmem = Ring<"smem", tma(2).with_multicast(2)>;

// R-W2: the block launched with kBlockWarps warps.
template <int kBlockWarps>
using Launched = ts::TaskManager<ts::Tasks<Load<Smem>, Store<Smem>>, CopyGraph<Smem>,
                                 ts::ManagerOptions{.block_warps = kBlockWarps}>;

// R-M3: waits twice (the same stage: the cursor moves at release), releases, then reads — the
// read is of the next stage, which it never waited for.
struct ReadAfterReleaseStore : Store<Queue> {
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      ring.wait();
      ring.wait();
      ring.release();
      auto v = ts::work<&Queue::take>(ring);
      ring.release();
      ts::work<&Output::store>(out, v);
    });
  }
};
struct WaitReadReleaseStore : Store<Queue> {
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      ring.wait();
      auto v = ts::work<&Queue::take>(ring);
      ring.release();
      ts::work<&Output::store>(out, v);
    });
  }
};

// R-M5: acquires twice, commits twice (thread-written ring): the second commit publishes the next
// stage without having acquired it.
struct DoubleAcquireWriter : Load<Queue> {
  static constexpr void schedule(auto& ctx, auto& in, auto& ring) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      ring.acquire();
      ring.acquire();
      ts::work<&Queue::put>(ring, c);
      ring.commit();
      ring.commit();
    });
  }
};
// R-M6: the same on a TMA ring: the second acquire arms the same stage again.
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

// R-D13: a wgmma consumer that releases a stage while its wgmma may still read it.
using WgmmaRing = Ring<"smem", ts::tma_wgmma(2, 4096, ts::threads(1), ts::warps(4))>;
template <bool kRetire>
struct WgmmaMma : Store<WgmmaRing, kRuntime, false, 0, 4, 0, "mma"> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      smem.wait();
      auto acc = ts::work<&WgmmaRing::take>(smem);  // issues wgmma reading the stage
      if constexpr (kRetire) ts::wgmma_wait<0>(ctx);
      smem.release();
      ts::work<&Output::store>(out, acc);
    });
  }
};
template <bool kRetire>
using Wgmma = Copy<WgmmaRing, Load<WgmmaRing>, WgmmaMma<kRetire>>;

// R-M7: a 4-stage GEMM-shaped manager over 6 k-blocks: about 2000 states.
using OperandA4 = Ring<"smem_a", tma(4)>;
using OperandB4 = Ring<"smem_b", tma(4)>;
struct BigLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 1};
  using src = ts::list<Coords>;
  using dst = ts::list<OperandA4, OperandB4>;
  static constexpr void schedule(auto& ctx, auto& in, auto& a, auto& b) {
    ctx.domain_loop(ts::c<6>, [&](auto&) {
      auto k = ts::work<&Coords::coord>(in);
      a.acquire();
      ts::work<&OperandA4::put>(a, k);
      a.commit();
      b.acquire();
      ts::work<&OperandB4::put>(b, k);
      b.commit();
    });
  }
};
struct BigMma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<OperandA4, OperandB4>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& out) {
    ctx.domain_loop(ts::c<6>, [&](auto&) {
      a.wait();
      b.wait();
      auto x = ts::work<&OperandA4::take>(a);
      auto y = ts::work<&OperandB4::take>(b);
      a.release();
      b.release();
      ts::work<&Output::store>(out, x);
      ts::work<&Output::store>(out, y);
    });
  }
};
using Big =
    ts::TaskManager<ts::Tasks<BigLoad, BigMma>,
                    ts::Graph<ts::DependsOn<OperandA4, Coords>, ts::DependsOn<OperandB4, Coords>,
                              ts::DependsOn<Output, OperandA4, OperandB4>>>;

ts::ModelCheckOptions tiny_budget() {
  ts::ModelCheckOptions o;
  o.max_states = 20;  // below what the grown sets decide it in (64 states; 201 without them)
  return o;
}

// R-D24: counts computed from the thread index. The store (warps 0-3) and the load (warp 4, one
// warp) read ctx.task_thread_idx() / ctx.warp_idx() in a loop bound or a guard around their
// pipeline ops; a warp-dependent count is uniform inside the one-warp load, divergent elsewhere.
// Lane-dependent loop end: each thread of the store waits a different number of stages (the
// varlen pattern of a per-thread row count used as the stage count).
struct LaneBoundStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n + ctx.task_thread_idx() % 2, [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    });
  }
};
// Warp-dependent loop end in the four-warp store: warp w takes n + w stages.
struct WarpBoundStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n + ctx.warp_idx(), [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    });
  }
};
// An elect-one guard around the release: one thread of 128 arrives, the phase never completes.
struct ElectedReleaseStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      if (ctx.task_thread_idx() == 0) smem.release();
      ts::work<&Output::store>(out, v);
    });
  }
};
// Controls: the one-warp load's count from its warp index (uniform: one warp), and an elect-one
// guard around a work only (the store of the value), not around a pipeline op.
struct WarpBoundLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(in->n + ctx.warp_idx() % 4, [&](auto&) {  // warp 4: + 0
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};
struct ElectedStoreWork : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      if (ctx.task_thread_idx() == 0) ts::work<&Output::store>(out, v);
    });
  }
};
using LaneBoundCopy = Copy<Smem, Load<Smem>, LaneBoundStore>;
using WarpBoundCopy = Copy<Smem, Load<Smem>, WarpBoundStore>;
using ElectedReleaseCopy = Copy<Smem, Load<Smem>, ElectedReleaseStore>;
using WarpBoundLoadCopy = Copy<Smem, WarpBoundLoad, Store<Smem>>;
using ElectedStoreWorkCopy = Copy<Smem, Load<Smem>, ElectedStoreWork>;

// Warp roles (TaskSpec::warp_roles): a two-warp load whose warps branch on their index around
// their pipeline ops, warp 4 filling A's ring and warp 5 B's (kTripsB times; the mma takes 3
// stages of each). Without the flag the branch is R-D24; with it each warp is a one-warp task.
template <bool kRoles, int kTripsB = 3, class B = OperandB>
struct RoleLoad {
  static constexpr ts::TaskSpec spec{
      .name = "load", .warp_idx = 4, .num_warps = 2, .warp_roles = kRoles};
  using src = ts::list<Coords>;
  using dst = ts::list<OperandA, B>;
  static constexpr void schedule(auto& ctx, auto& in, auto& a, auto& b) {
    if (ctx.warp_idx() % 2 == 0) {
      ctx.domain_loop(ts::c<3>, [&](auto&) {
        auto k = ts::work<&Coords::coord>(in);
        a.acquire();
        ts::work<&OperandA::put>(a, k);
        a.commit();
      });
    } else {
      ctx.domain_loop(ts::c<kTripsB>, [&](auto&) {
        auto k = ts::work<&Coords::coord>(in);
        b.acquire();
        ts::work<&B::put>(b, k);
        b.commit();
      });
    }
  }
};
template <bool kRoles, int kTripsB = 3, class B = OperandB>
using RoleOperands =
    ts::TaskManager<ts::Tasks<RoleLoad<kRoles, kTripsB, B>, OperandMma<B>>,
                    ts::Graph<ts::DependsOn<OperandA, Coords>, ts::DependsOn<B, Coords>,
                              ts::DependsOn<Output, OperandA, B>>>;
// B's ring counting both warps of the load as its producers: only warp 5 arms a stage.
using BothWarpsB = Ring<"smem_b", tma(2, ts::threads(2))>;

// A violating entry and its passing control.
Entry bad(std::string_view name, std::string_view description,
          ts::ManagerModel (*model)(std::string_view), std::vector<std::string_view> expected,
          std::string_view note = {}) {
  return {.name = name,
          .theme = kRules,
          .description = description,
          .expected = std::move(expected),
          .model = model,
          .controls = {},
          .known_miss = false,
          .note = note};
}
Entry good(std::string_view name, std::string_view description,
           ts::ManagerModel (*model)(std::string_view), std::vector<std::string_view> controls) {
  return {.name = name,
          .theme = kRules,
          .description = description,
          .expected = {},
          .model = model,
          .controls = std::move(controls)};
}

constexpr std::string_view kB3Note =
    "Hand-built model: in C++ a static step of 0 or ts::unroll<0> is a compile error "
    "(tests/compile_fail: ts_cf_r_b3_static_step_zero, ts_cf_r_b3_unroll_zero) and a run-time "
    "step of 0 traps on the device (the launch fails instead of hanging).";
constexpr std::string_view kB6Note =
    "Hand-built model: in C++ a loop's first_iter/last_iter exist only on the loop object its body "
    "receives, so the block cannot be opened outside the loop.";
constexpr std::string_view kD5Note =
    "Edited from a captured model: in C++ an op on the wrong side of a resource is a compile error "
    "(tests/compile_fail: ts_cf_r_d5_*).";
constexpr std::string_view kD20Note =
    "Hand-built model: in C++ a work is named by its member pointer, so an unnamed or undeclared "
    "work does not compile (tests/compile_fail: ts_cf_r_d20_undeclared_work).";

}  // namespace

void add_rules(Corpus& c) {
  // R-B3
  c.push_back(bad("r_b3_static_step_zero", "A loop whose compile-time step is 0 never ends",
                  b3_step_zero, {"R-B3"}, kB3Note));
  c.push_back(bad("r_b3_negative_unroll", "A loop unrolled by a negative factor",
                  b3_negative_unroll, {"R-B3"}, kB3Note));
  c.push_back(good("r_b3_step_two_hand_built", "The hand-built loop with step 2, unrolled by 4",
                   b3_step_two, {"R-B3"}));
  c.push_back(good("r_b3_step_two", "Both tasks loop over [0, n) with step ts::c<2>",
                   model_of<Copy<Smem, EvenLoad, EvenStore>>, {"R-B3"}));
  // R-B4
  c.push_back(bad("r_b4_two_work_queues",
                  "A persistent task lists two work queues in src: whose tiles does it take? (It "
                  "takes queue b's outside a tile loop over b: R-D12)",
                  model_of<TwoQueues>, {"R-B4", "R-D12"}));
  c.push_back(good("r_b4_one_work_queue", "A persistent task takes its tiles from one work queue",
                   model_of<OneQueue>, {"R-B4"}));
  // R-D7
  c.push_back(good("r_d7_waits_first",
                   "The load waits for the previous grid (PDL) before its loop fills the ring "
                   "with that grid's data; the store signals the next grid at its end",
                   model_of<PdlCopy<PdlLoad<PdlWaitAt::First>>>, {"R-D7"}));
  c.push_back(bad("r_d7_waits_after_the_loop",
                  "The load waits for the previous grid only after it filled the ring: every "
                  "tile may read that grid's data before it is written",
                  model_of<PdlCopy<PdlLoad<PdlWaitAt::AfterLoop>>>, {"R-D7"}));
  c.push_back(bad("r_d7_waits_in_a_loop_that_may_run_no_trip",
                  "The load waits in a loop over items 1 to n: for one item it never waits",
                  model_of<PdlCopy<PdlLoad<PdlWaitAt::FromTheSecondItem>>>, {"R-D7"}));
  c.push_back(bad("r_d7_the_consumer_waits_not_the_producer",
                  "The store waits for the previous grid, the load that fills the ring with its "
                  "data does not",
                  model_of<PdlCopy<Load<Smem>, false, WaitingPdlStore>>, {"R-D7"}));
  c.push_back(good("r_d7_waits_before_each_put",
                   "The load waits in its loop, after reading its coordinates and before each put: "
                   "the coordinates are not the previous grid's",
                   model_of<PdlCopy<PdlLoad<PdlWaitAt::BeforeEachPut>>>, {"R-D7"}));
  c.push_back(bad("r_d7_reads_coordinates_before_the_wait",
                  "The same load when the coordinates (no pipeline) are the previous grid's too: "
                  "it reads them before it waits",
                  model_of<PdlCopy<PdlLoad<PdlWaitAt::BeforeEachPut>, true>>, {"R-D7"}));
  c.push_back(good("r_d7_reads_coordinates_after_the_wait",
                   "The coordinates are the previous grid's and the load waits before its loop",
                   model_of<PdlCopy<PdlLoad<PdlWaitAt::First>, true>>, {"R-D7"}));
  // R-B6
  c.push_back(bad("r_b6_first_iter_outside_loop",
                  "A first_iter block placed after its loop, at the schedule's root",
                  b6_block_outside, {"R-B6"}, kB6Note));
  c.push_back(good("r_b6_first_iter_inside_loop", "The same block inside its loop", b6_block_inside,
                   {"R-B6"}));
  // R-B7
  c.push_back(bad("r_b7_registers_not_a_multiple_of_8",
                  "The load warpgroup (the load, and the padding derived from it) asks for 42 "
                  "registers",
                  model_of<Registers<42>>, {"R-B7"}));
  c.push_back(good("r_b7_registers_40", "The tutorial's 40 registers for the load warpgroup",
                   model_of<Registers<40>>, {"R-B7", "R-D2"}));
  // R-D2
  c.push_back(good("r_d2_derived_padding",
                   "The load (warp 4) sets 40 registers; the TaskManager pads warps 5-7 of its "
                   "warpgroup with 40",
                   model_of<Registers<40>>, {"R-D2"}));
  c.push_back(bad("r_d2_two_budgets_in_a_warpgroup",
                  "A second task on warp 5 asks for 48 registers, the load on warp 4 for 40",
                  model_of<Registers<40, Idle<5, 48>>>, {"R-D2"}));
  c.push_back(bad("r_d2_unset_budget_in_a_warpgroup",
                  "A second task on warp 5 sets no registers, the load on warp 4 sets 40",
                  model_of<Registers<40, Idle<5, 0>>>, {"R-D2"}));
  c.push_back(good("r_d2_one_budget_in_a_warpgroup",
                   "The second task on warp 5 asks for the load's 40; warps 6-7 are padded",
                   model_of<Registers<40, Idle<5, 40>>>, {"R-D2"}));
  // R-D3
  c.push_back(bad("r_d3_three_warpgroups_at_232",
                  "Three warpgroups at 232 registers: 89088 registers on a 65536-register SM",
                  model_of<ThreeGroups<232, 232>>, {"R-D3"}));
  c.push_back(good("r_d3_232_232_40", "Two consumer warpgroups at 232, the load warpgroup at 40",
                   model_of<ThreeGroups<40, 232>>, {"R-D3"}));
  // R-D5
  c.push_back(bad("r_d5_consumer_work_on_destination",
                  "The store calls a consumer work (peek) on `out`, which it lists only in dst",
                  copy_plus_work_on_out<ts::Role::Consumer>, {"R-D5"}, kD5Note));
  c.push_back(good("r_d5_producer_work_on_destination",
                   "The same store calls a producer work (store) on `out`",
                   copy_plus_work_on_out<ts::Role::Producer>, {"R-D5"}));
  // R-D23
  c.push_back(bad("r_d23_value_read_before_its_work",
                  "A hand-built load whose copy reads the coordinate its loop computes only "
                  "later in the iteration",
                  d23_value_read_first, {"R-D23"},
                  "Not writable in C++: a work's value is a variable the schedule can only read "
                  "after the call that returns it; the entry is a model built any other way."));
  c.push_back(good("r_d23_value_read_after_its_work", "The captured copy: coord, then put(coord)",
                   model_of<SimpleCopy<Smem>>, {"R-D23"}));
  // R-D24
  c.push_back(bad("r_d24_lane_dependent_loop_bound",
                  "The store waits n + task_thread_idx() % 2 stages: a per-thread stage count",
                  model_of<LaneBoundCopy>, {"R-D24"}));
  c.push_back(bad("r_d24_warp_dependent_loop_bound",
                  "The four-warp store waits n + warp_idx() stages: a per-warp stage count",
                  model_of<WarpBoundCopy>, {"R-D24"}));
  c.push_back(bad("r_d24_elected_release",
                  "The store releases only when task_thread_idx() == 0: 1 of 128 arrivals",
                  model_of<ElectedReleaseCopy>, {"R-D24"}));
  c.push_back(good("r_d24_warp_bound_in_one_warp_task",
                   "The one-warp load's loop bound reads warp_idx(): uniform in one warp",
                   model_of<WarpBoundLoadCopy>, {"R-D24"}));
  c.push_back(good("r_d24_elected_work_only",
                   "The store's global store (a work, no pipeline op) runs on thread 0 only",
                   model_of<ElectedStoreWorkCopy>, {"R-D24"}));
  // R-D24 and warp roles
  c.push_back(bad("r_d24_warp_branch_without_roles",
                  "The two-warp load branches on warp_idx() around its pipeline ops (warp 4 fills "
                  "A, warp 5 B) without declaring its warps as roles",
                  model_of<RoleOperands<false>>, {"R-D15", "R-D16", "R-D24", "R-D9"}));
  c.push_back(good("warp_roles_split_operand_loads",
                   "The same load with .warp_roles: each warp a one-warp task, warp 4 filling and "
                   "draining A's ring, warp 5 B's",
                   model_of<RoleOperands<true>>, {"R-D24"}));
  c.push_back(bad("warp_roles_one_role_short",
                  "Warp roles: warp 5 fills B's ring twice, the mma takes three stages of it",
                  model_of<RoleOperands<true, 2>>, {"R-D1", "R-M1"}));
  c.push_back(bad("warp_roles_group_counts_both_warps",
                  "Warp roles: B's ring expects both warps of the load to arm a stage, only warp 5 "
                  "does",
                  model_of<RoleOperands<true, 3, BothWarpsB>>, {"R-D15"}));
  // R-D6
  c.push_back(bad("r_d6_edge_no_task_realises",
                  "The graph says out <- coords, but no task reads coords and writes out",
                  model_of<GraphWithShortcut>, {"R-D6"}));
  c.push_back(bad("r_d6_resource_no_task_uses",
                  "The graph names a resource (unused) that no task uses",
                  model_of<GraphWithUnused>, {"R-D6"}));
  // R-D8
  c.push_back(bad("r_d8_resource_missing_from_graph",
                  "The store writes `out`, which the graph does not mention",
                  model_of<GraphWithoutOut>, {"R-D8"}));
  c.push_back(good("r_d8_node_without_upstream",
                   "`out` is in the graph with no upstream (ts::DependsOn<Output>)",
                   model_of<GraphOutWithoutUpstream>, {"R-D6", "R-D8"}));
  // R-D9
  c.push_back(bad("r_d9_declared_resource_unused",
                  "The store lists coords in src but never uses it",
                  model_of<DeclaresCoords<false>>, {"R-D9"}));
  c.push_back(good("r_d9_declared_resource_used", "The store reads coords and stores it too",
                   model_of<DeclaresCoords<true>>, {"R-D9"}));
  // R-D10
  c.push_back(bad("r_d10_tma_before_acquire", "The load issues its TMA before acquiring the stage",
                  model_of<Copy<Smem, LoadBeforeAcquire, Store<Smem>>>, {"R-D10"}));
  c.push_back(good("r_d10_tma_inside_bracket", "acquire, TMA, commit", model_of<SimpleCopy<Smem>>,
                   {"R-D10", "R-D11"}));
  c.push_back(bad("r_d10_skip_inside_bracket",
                  "Two stores take turns on a ring (skip()), but \"even\" skips the next stage "
                  "before releasing its own: release() would then free the wrong stage",
                  model_of<Turns<TurnRing, true>>, {"R-D10"}));
  c.push_back(good("r_d10_turns",
                   "Two stores take turns: each waits on, releases and skips "
                   "whole stages",
                   model_of<Turns<TurnRing>>, {"R-D10", "R-D15", "R-M5"}));
  // R-D11
  c.push_back(bad("r_d11_probe_never_followed",
                  "The load probes the next stage (try_acquire) at the end of each iteration; the "
                  "last probe is never followed by an acquire",
                  model_of<Copy<Smem, ProbeAheadLoad, Store<Smem>>>, {"R-D11"}));
  c.push_back(good("r_d11_probe_then_acquire", "try_acquire then acquire, try_wait then wait",
                   model_of<Copy<Smem, Load<Smem, kRuntime, true>, Store<Smem, kRuntime, true>>>,
                   {"R-D11"}));
  // R-D15
  c.push_back(bad("r_d15_producer_group_too_small",
                  "A thread-written ring whose producer group is threads(1); the 1-warp writer "
                  "commits with 32 threads",
                  model_of<SimpleCopy<UndercountedQueue>>, {"R-D15"}));
  c.push_back(good("r_d15_producer_group_matches", "The producer group is threads(32)",
                   model_of<SimpleCopy<Queue>>, {"R-D15"}));
  c.push_back(bad("r_d15_turns_group_counts_both",
                  "Two 128-thread stores take turns (skip()) on a ring whose consumer group is "
                  "threads(256): each stage gets 128 arrivals and its phase never completes",
                  model_of<Turns<SummedTurnRing>>, {"R-D15"}));
  // R-D16
  c.push_back(bad("r_d16_tma_bytes_half_the_stage",
                  "4 KiB stages but the pipeline expects 2 KiB of TMA bytes per stage: the "
                  "consumer would be released halfway through the copy",
                  model_of<SimpleCopy<Tiles16<2048>>>, {"R-D16"}));
  c.push_back(good("r_d16_tma_bytes_match", "4 KiB stages, 4096 TMA bytes per stage",
                   model_of<SimpleCopy<Tiles16<4096>>>, {"R-D16"}));
  // R-D13
  c.push_back(bad("r_d13_release_before_wgmma_wait",
                  "A wgmma consumer releases the stage right after issuing wgmma on it: the load "
                  "may overwrite it while wgmma still reads",
                  model_of<Wgmma<false>>, {"R-D13"}));
  c.push_back(good("r_d13_wgmma_wait_then_release", "ts::wgmma_wait<0> before the release",
                   model_of<Wgmma<true>>, {"R-D13"}));
  // R-D20
  c.push_back(bad("r_d20_unnamed_work", "A work call that names no declared work", d20_unnamed_work,
                  {"R-D20"}, kD20Note));
  c.push_back(good("r_d20_named_work", "The same call naming its work", d20_named_work, {"R-D20"}));
  // R-D21
  c.push_back(bad("r_d21_smem_over_capacity",
                  "8 stages of 32 KiB: 256 KiB of shared memory, more than a block's 227 KiB",
                  model_of<SimpleCopy<BigRing<8>>>, {"R-D21"}));
  c.push_back(good("r_d21_smem_fits", "6 stages of 32 KiB: 192 KiB",
                   model_of<SimpleCopy<BigRing<6>>>, {"R-D21"}));
  // R-D22
  c.push_back(bad("r_d22_thread_producer_multicasts",
                  "A thread-written ring declared with_multicast(2): threads cannot write into "
                  "the other CTA's stages, whose consumers would wait forever",
                  model_of<SimpleCopy<MulticastQueue>>, {"R-D22"}));
  c.push_back(good("r_d22_tma_multicast", "A TMA ring multicast to a 2-CTA cluster",
                   model_of<SimpleCopy<MulticastSmem>>, {"R-D22"}));
  // R-W1
  c.push_back(bad("r_w1_load_inside_store_warps", "The load on warp 3, inside the store's 0-3",
                  model_of<Copy<Smem, Load<Smem, kRuntime, false, 3>, Store<Smem>>>, {"R-W1"}));
  c.push_back(good("r_w1_disjoint_warps", "The load on warp 4, the store on warps 0-3",
                   model_of<SimpleCopy<Smem>>, {"R-W1", "R-W2"}));
  // R-W2
  c.push_back(bad("r_w2_block_too_small",
                  "The block is launched with 4 warps (ManagerOptions::block_warps) but the load "
                  "runs on warp 4",
                  model_of<Launched<4>>, {"R-W2"}));
  c.push_back(good("r_w2_block_of_8_warps", "The same with block_warps = 8", model_of<Launched<8>>,
                   {"R-W2"}));
  // R-W3
  c.push_back(bad("r_w3_gap_below_the_load",
                  "The store on warps 0-3, the load on warp 8: warps 4-7 hold no task, and the "
                  "block would launch them only to pad them",
                  model_of<Copy<Smem, Load<Smem, kRuntime, false, 8>, Store<Smem>>>, {"R-W3"}));
  c.push_back(good("r_w3_load_next_to_the_store", "The load on warp 4, next to the store's 0-3",
                   model_of<SimpleCopy<Smem>>, {"R-W3"}));
  // R-M1
  c.push_back(bad("r_m1_store_waits_for_a_third_stage",
                  "The load fills 2 stages, the store waits for 3: it waits forever",
                  model_of<Copy<Smem, Load<Smem, 2>, Store<Smem, 3>>>, {"R-D1", "R-M1"}));
  c.push_back(good("r_m1_three_and_three", "Both sides move 3 items",
                   model_of<Copy<Smem, Load<Smem, 3>, Store<Smem, 3>>>, {"R-D1", "R-M1", "R-M2"}));
  // R-M2, R-M4, R-M5
  c.push_back(bad("r_m5_turn_skips_onto_stale_phase",
                  "Two stores take turns on a 3-stage ring: \"odd\" skips onto a stage whose "
                  "previous lap holds an item of \"even\" the load has not filled yet, and its "
                  "wait passes on the stale phase parity (an even number of stages, or a turn "
                  "handed over between the consumers, prevents it)",
                  model_of<Turns<OddTurnRing>>, {"R-M5"}));
  c.push_back(bad("r_m4_copy_lands_while_read",
                  "A GEMM load acquires both operand stages, then issues A's TMA twice (the same "
                  "call: one work, the same coordinates): the second copy of a phase lands after "
                  "the barrier completed (R-M5), while the mma reads the stage (R-M4), and its "
                  "bytes are left over at exit (R-M2)",
                  model_of<Operands<2>>, {"R-M2", "R-M4", "R-M5"}));
  c.push_back(good("r_m4_one_copy_per_stage", "The same GEMM load with one TMA per operand",
                   model_of<Operands<1>>, {"R-M2", "R-M4", "R-M5"}));
  // R-M3
  c.push_back(bad("r_m3_read_after_release",
                  "The store waits twice (the same stage), releases, then reads: the read is of "
                  "the next stage, never waited for, and the stage waited twice stays held "
                  "when the load comes back to it (R-M5)",
                  model_of<Copy<Queue, Load<Queue>, ReadAfterReleaseStore>>,
                  {"R-D1", "R-M3", "R-M5"}));
  c.push_back(good("r_m3_wait_read_release", "wait, read, release",
                   model_of<Copy<Queue, Load<Queue>, WaitReadReleaseStore>>, {"R-M3"}));
  // R-M5
  c.push_back(bad("r_m5_commit_without_acquire",
                  "A thread-written ring's writer acquires twice and commits twice: the second "
                  "commit publishes the next stage, which it never acquired",
                  model_of<Copy<Queue, DoubleAcquireWriter, Store<Queue>>>, {"R-D1", "R-M5"}));
  c.push_back(good("r_m5_acquire_commit", "acquire, write, commit", model_of<SimpleCopy<Queue>>,
                   {"R-M5", "R-M6"}));
  // R-M6
  c.push_back(bad("r_m6_acquire_twice",
                  "A TMA load acquires twice before committing: the second acquire arms the "
                  "stage's full barrier once more than its phase expects",
                  model_of<Copy<Smem, DoubleAcquireLoad, Store<Smem>>>, {"R-D1", "R-M6"}));
  // R-M7
  c.push_back({.name = "r_m7_state_budget_exhausted",
               .theme = kRules,
               .description = "A GEMM-shaped manager (two 4-stage rings, 6 k-blocks) checked with "
                              "a budget of 20 states: no verdict, an error unless allowed",
               .expected = {"R-M7"},
               .model = model_of<Big>,
               .options = tiny_budget()});
  c.push_back(good("r_m7_default_budget", "The same manager within the default budget",
                   model_of<Big>, {"R-M7"}));
}

}  // namespace corpus
