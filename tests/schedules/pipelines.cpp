// tests/schedules/pipelines.cpp — producer/consumer rings: stage counts 1..8, TMA and thread
// producers, thread and warp arrival agents, try_ probes, early and late release, wgmma consumers
// (ts::wgmma_wait, the lagged release with advance_on_wait), a producer holding two stages
// (advance_on_acquire), multi-warp TMA producers, split consumers, merged producers, chains of
// rings, ping-pong between two tasks, GEMM-shaped operand loads, aliased epilogue staging, in-place
// updates by a consumer (ts::ConsumeInPlace).

#include "corpus.hpp"

namespace corpus {
namespace {

template <int kStages>
using TmaRing = Ring<"smem", tma(kStages)>;

// ---- Late release: the store reads, stores, then releases ---------------------------------------

template <class R>
struct LateReleaseStore : Store<R> {
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      ring.wait();
      auto v = ts::work<&R::take>(ring);
      ts::work<&Output::store>(out, v);
      ring.release();
    });
  }
};

// ---- Two consumer tasks on one ring / two producer tasks into one ring --------------------------

using SplitRing = Ring<"smem", tma(2, ts::threads(1), ts::threads(256))>;
using SplitConsumers = Copy<SplitRing, Load<SplitRing, kRuntime, false, 8>,
                            Store<SplitRing, kRuntime, false, 0, 4, 0, "store_lo">,
                            Store<SplitRing, kRuntime, false, 4, 4, 0, "store_hi">>;

// ---- In-place updates: consumer work that writes the stage it waited on -------------------------

// Per item: wait, scale the stage in place, read it, release, store.
template <class R, int kWarp = 0, FixedName kName = "store">
struct ScaleThenStore : Store<R, kRuntime, false, kWarp, 4, 0, kName> {
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      ring.wait();
      ts::work<&R::scale>(ring, 2);
      auto v = ts::work<&R::take>(ring);
      ring.release();
      ts::work<&Output::store>(out, v);
    });
  }
};

using InPlaceAlone = Copy<Smem, Load<Smem>, ScaleThenStore<Smem>>;
// Two consumer tasks take every fill (threads(256)): one reads while the other scales in place.
using InPlaceBesideAReader = Copy<SplitRing, Load<SplitRing, kRuntime, false, 8>,
                                  Store<SplitRing, kRuntime, false, 0, 4, 0, "store_lo">,
                                  ScaleThenStore<SplitRing, 4, "scale_hi">>;

using MergeRing = Ring<"ring", async(2, ts::threads(64))>;
using MergedProducers =
    Copy<MergeRing, Load<MergeRing, kRuntime, false, 4, 1, 0, "load_lo">,
         Load<MergeRing, kRuntime, false, 5, 1, 0, "load_hi">, Store<MergeRing>>;

using WarpAgentRing = Ring<"ring", async(2, ts::warps(1), ts::warps(4))>;
// A 2-warp TMA load task into 4 KiB stages: each warp's TMA copies its half (2 KiB). On the device
// every producing warp's elected lane arms the stage with num_bytes (device/pipeline.hpp), so a
// stage expects 2 x num_bytes.
template <int kBytesPerArm>
struct HalvesRing {
  static constexpr ts::ResourceSpec spec{
      .name = "smem", .pipeline = ts::tma_async(2, kBytesPerArm, ts::threads(2), ts::threads(128))};
  ts::SmemBuffer<std::uint8_t, 2 * 4096> stages;  // (STAGES, 4 KiB)
  using smem_buffers = ts::buffers<&HalvesRing::stages>;
  void put(ts::Produce const&, int coord) { (void)coord; }  // this warp's half of the stage
  int take(ts::Consume const& s) const { return s.stage_idx; }
};
template <int kBytesPerArm>
using TwoWarpLoad =
    Copy<HalvesRing<kBytesPerArm>, Load<HalvesRing<kBytesPerArm>, kRuntime, false, 4, 2>,
         Store<HalvesRing<kBytesPerArm>>>;
// ---- wgmma consumers (tma_wgmma): reads stay in flight until ts::wgmma_wait
// ----------------------

using WgmmaRing = Ring<"smem", ts::tma_wgmma(2, 4096, ts::threads(1), ts::warps(4))>;
using LaggedRing =
    Ring<"smem", ts::tma_wgmma(3, 4096, ts::threads(1), ts::warps(4)).with_advance_on_wait()>;

// Issues wgmma on the stage (take), retires it (wgmma_wait<0>), releases.
template <class R>
struct WgmmaStore : Store<R> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    auto acc = ctx.local(0);
    ctx.domain_loop(out->n, [&](auto& loop) {
      smem.wait();
      acc = ts::work<&R::take>(smem);
      ts::wgmma_wait<0>(ctx);
      smem.release();
      loop.last_iter([&] { ts::work<&Output::store>(out, acc); });
    });
  }
};

// CUTLASS's mainloop: keep one wgmma in flight; release stage k-1 once the wait for all but the
// newest retired it (advance_on_wait: the release cursor lags the wait cursor); drain at the end.
template <class R>
struct LaggedReleaseMma : Store<R> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    auto acc = ctx.local(0);
    ctx.domain_loop(out->n, [&](auto& loop) {
      smem.wait();
      acc = ts::work<&R::take>(smem);
      ts::wgmma_wait<1>(ctx);
      loop.not_first_iter([&] { smem.release(); });
      loop.last_iter([&] {
        ts::wgmma_wait<0>(ctx);
        smem.release();
        ts::work<&Output::store>(out, acc);
      });
    });
  }
};

// Retires all but the newest wgmma, then releases the stage the newest one still reads.
template <class R>
struct KeepOneThenReleaseMma : Store<R> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      smem.wait();
      auto acc = ts::work<&R::take>(smem);
      ts::wgmma_wait<1>(ctx);
      smem.release();
      ts::work<&Output::store>(out, acc);
    });
  }
};

// ---- advance_on_acquire: a producer that holds two stages at once
// ---------------------------------

using TwoAtOnceRing = Ring<"ring", async(4).with_advance_on_acquire()>;
using OneCursorRing = Ring<"ring", async(4)>;
// Acquires and writes two stages, then commits both (in order).
template <class R>
struct TwoAtOnceLoad : Load<R> {
  static constexpr void schedule(auto& ctx, auto& in, auto& ring) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      ring.acquire();
      ts::work<&R::put>(ring, c);
      ring.acquire();
      ts::work<&R::put>(ring, c);
      ring.commit();
      ring.commit();
    });
  }
};
template <class R>
struct TwoAtOnceStore : Store<R> {
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      ctx.domain_loop(ts::c<2>, [&](auto&) {
        ring.wait();
        auto v = ts::work<&R::take>(ring);
        ring.release();
        ts::work<&Output::store>(out, v);
      });
    });
  }
};

// ---- A chain of rings: coords -> a (TMA) -> b (threads) -> c (threads) -> out
// --------------------

using ChainA = Ring<"a", tma(2)>;
using ChainB = Ring<"b", async(2, ts::threads(128), ts::threads(128))>;
using ChainC = Ring<"c", async(2, ts::threads(128), ts::threads(128))>;

// Consumes `From`, produces `To`: wait, take, release, then acquire, put, commit.
template <class From, class To, int kWarp, FixedName kName>
struct Relay {
  static constexpr ts::TaskSpec spec{.name = kName.view(), .warp_idx = kWarp, .num_warps = 4};
  using src = ts::list<From>;
  using dst = ts::list<To>;
  static constexpr void schedule(auto& ctx, auto& from, auto& to) {
    ctx.domain_loop(from->n, [&](auto&) {
      from.wait();
      auto v = ts::work<&From::take>(from);
      from.release();
      to.acquire();
      ts::work<&To::put>(to, v);
      to.commit();
    });
  }
};

using Chain = ts::TaskManager<
    ts::Tasks<Load<ChainA, kRuntime, false, 12>, Relay<ChainA, ChainB, 0, "relay_ab">,
              Relay<ChainB, ChainC, 4, "relay_bc">, Store<ChainC, kRuntime, false, 8>>,
    ts::Graph<ts::DependsOn<ChainA, Coords>, ts::DependsOn<ChainB, ChainA>,
              ts::DependsOn<ChainC, ChainB>, ts::DependsOn<Output, ChainC>>>;

// ---- Ping-pong: two tasks hand a turn back and forth through two one-stage rings ----------------

using Ping = Ring<"ping", async(1, ts::threads(128), ts::threads(128))>;
using Pong = Ring<"pong", async(1, ts::threads(128), ts::threads(128))>;

// Takes its turn on `Mine` (acquire, work, commit), then waits for the other's turn on `Theirs`.
// kFirst = false: waits for the other's turn first.
template <class Mine, class Theirs, int kWarp, FixedName kName, bool kFirst = true>
struct Player {
  static constexpr ts::TaskSpec spec{.name = kName.view(), .warp_idx = kWarp, .num_warps = 4};
  using src = ts::list<Theirs>;
  using dst = ts::list<Mine, Output>;
  static constexpr void schedule(auto& ctx, auto& theirs, auto& mine, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      if constexpr (!kFirst) {
        theirs.wait();
        ts::work<&Output::store>(out, ts::work<&Theirs::take>(theirs));
        theirs.release();
      }
      mine.acquire();
      ts::work<&Mine::put>(mine, 0);
      mine.commit();
      if constexpr (kFirst) {
        theirs.wait();
        ts::work<&Output::store>(out, ts::work<&Theirs::take>(theirs));
        theirs.release();
      }
    });
  }
};

using PingPongGraph = ts::Graph<ts::DependsOn<Pong, Ping>, ts::DependsOn<Ping, Pong>,
                                ts::DependsOn<Output, Ping, Pong>>;
using PingPong = ts::TaskManager<
    ts::Tasks<Player<Ping, Pong, 0, "math0">, Player<Pong, Ping, 4, "math1", false>>,
    PingPongGraph>;

// ---- GEMM-shaped loads: operands A and B
// ----------------------------------------------------------

using OperandA = Ring<"smem_a", tma(2)>;
using OperandB = Ring<"smem_b", tma(2)>;

// Acquires a stage of each ring, issues both loads, commits both (CUTLASS's mainloop order).
template <class A, class B>
struct OperandLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 1};
  using src = ts::list<Coords>;
  using dst = ts::list<A, B>;
  static constexpr void schedule(auto& ctx, auto& in, auto& a, auto& b) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto k = ts::work<&Coords::coord>(in);
      a.acquire();
      b.acquire();
      ts::work<&A::put>(a, k);
      ts::work<&B::put>(b, k);
      a.commit();
      b.commit();
    });
  }
};

// Waits for both operands, reads them, releases both, stores.
template <class A, class B>
struct Mma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<A, B>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      a.wait();
      b.wait();
      auto x = ts::work<&A::take>(a);
      auto y = ts::work<&B::take>(b);
      a.release();
      b.release();
      ts::work<&Output::store>(out, x);
      ts::work<&Output::store>(out, y);
    });
  }
};

template <class A, class B>
using GemmGraph =
    ts::Graph<ts::DependsOn<A, Coords>, ts::DependsOn<B, Coords>, ts::DependsOn<Output, A, B>>;
using TwoOperandRings =
    ts::TaskManager<ts::Tasks<OperandLoad<OperandA, OperandB>, Mma<OperandA, OperandB>>,
                    GemmGraph<OperandA, OperandB>>;

// One ring whose stage holds both tiles (8 KiB = A 4 KiB + B 4 KiB), filled by two TMA works.
struct SmemAB {
  static constexpr ts::ResourceSpec spec{
      .name = "smem_ab", .pipeline = ts::tma_async(2, 8192, ts::threads(1), ts::threads(128))};
  ts::SmemBuffer<std::uint8_t, 2 * 4096> a;  // (STAGES, A_TILE_BYTES)
  ts::SmemBuffer<std::uint8_t, 2 * 4096> b;  // (STAGES, B_TILE_BYTES)
  using smem_buffers = ts::buffers<&SmemAB::a, &SmemAB::b>;
  void load_a(ts::Produce const&, int k) { (void)k; }  // TMA of the A tile: 4 KiB
  void load_b(ts::Produce const&, int k) { (void)k; }  // TMA of the B tile: 4 KiB
  int mma(ts::Consume const& s) const { return s.stage_idx; }
};

struct LoadAB {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 1};
  using src = ts::list<Coords>;
  using dst = ts::list<SmemAB>;
  static constexpr void schedule(auto& ctx, auto& in, auto& ab) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto k = ts::work<&Coords::coord>(in);
      ab.acquire();
      ts::work<&SmemAB::load_a>(ab, k);
      ts::work<&SmemAB::load_b>(ab, k);
      ab.commit();
    });
  }
};

struct MmaAB {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<SmemAB>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& ab, auto& out) {
    ctx.domain_loop(out->n, [&](auto&) {
      ab.wait();
      auto acc = ts::work<&SmemAB::mma>(ab);
      ab.release();
      ts::work<&Output::store>(out, acc);
    });
  }
};

using OneRingTwoLoads = Copy<SmemAB, LoadAB, MmaAB>;

// ---- wgmma on two operand rings
// ------------------------------------------------------------------

// A and B in two tma_wgmma rings; one wgmma reads both. B only contributes its descriptor
// (auxiliary work: "pointer or descriptor set-up", stage_info.hpp), A's work issues the wgmma,
// which therefore reads B's stage too until a wgmma_wait retires it.
using WgmmaA = Ring<"smem_a", ts::tma_wgmma(2, 4096, ts::threads(1), ts::warps(4))>;
using WgmmaB = Ring<"smem_b", ts::tma_wgmma(2, 4096, ts::threads(1), ts::warps(4))>;
// kDescriptorFirst: B's descriptor is set up before the waits (an address, not a read): the
// stage is read from the wgmma's issue on, not while the load may still be copying into it.
template <bool kReleaseBEarly, bool kDescriptorFirst = false>
struct TwoOperandWgmma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<WgmmaA, WgmmaB>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& out) {
    auto acc = ctx.local(0);
    ctx.domain_loop(out->n, [&](auto& loop) {
      auto const describe_b = [&] { return ts::work<&WgmmaB::descriptor>(b); };
      decltype(describe_b()) desc_b{};
      if constexpr (kDescriptorFirst) desc_b = describe_b();
      a.wait();
      b.wait();
      if constexpr (!kDescriptorFirst) desc_b = describe_b();
      acc = ts::work<&WgmmaA::take>(a);  // wgmma reading a's stage and (desc_b) b's
      if constexpr (kReleaseBEarly) b.release();
      ts::wgmma_wait<0>(ctx);
      a.release();
      if constexpr (!kReleaseBEarly) b.release();
      ts::work<&Output::store>(out, desc_b);
      loop.last_iter([&] { ts::work<&Output::store>(out, acc); });
    });
  }
};
template <bool kReleaseBEarly, bool kDescriptorFirst = false>
using TwoOperandWgmmaManager = ts::TaskManager<
    ts::Tasks<OperandLoad<WgmmaA, WgmmaB>, TwoOperandWgmma<kReleaseBEarly, kDescriptorFirst>>,
    GemmGraph<WgmmaA, WgmmaB>>;

// The same two rings with CUTLASS's lag (advance_on_wait): wgmma_wait<1> keeps the newest wgmma
// in flight, and that one wgmma reads A's and B's current stages, so only the previous k-block's
// stages may go back (kReleaseCurrentB = false). Releasing B's current stage instead is R-D13:
// B's read retires with A's, not before it.
using LaggedA =
    Ring<"smem_a", ts::tma_wgmma(3, 4096, ts::threads(1), ts::warps(4)).with_advance_on_wait()>;
using LaggedB =
    Ring<"smem_b", ts::tma_wgmma(3, 4096, ts::threads(1), ts::warps(4)).with_advance_on_wait()>;
template <bool kReleaseCurrentB>
struct LaggedTwoOperandWgmma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<LaggedA, LaggedB>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& out) {
    auto acc = ctx.local(0);
    ctx.domain_loop(out->n, [&](auto& loop) {
      a.wait();
      b.wait();
      ts::work<&LaggedB::descriptor>(b);
      acc = ts::work<&LaggedA::take>(a);
      ts::wgmma_wait<1>(ctx);  // the previous k-block's wgmma retired
      if constexpr (kReleaseCurrentB) {
        b.release();
        loop.not_first_iter([&] { a.release(); });
      } else {
        loop.not_first_iter([&] {
          a.release();
          b.release();
        });
      }
      loop.last_iter([&] {
        ts::wgmma_wait<0>(ctx);
        a.release();
        if constexpr (!kReleaseCurrentB) b.release();
        ts::work<&Output::store>(out, acc);
      });
    });
  }
};
template <bool kReleaseCurrentB>
using LaggedTwoOperandManager = ts::TaskManager<
    ts::Tasks<OperandLoad<LaggedA, LaggedB>, LaggedTwoOperandWgmma<kReleaseCurrentB>>,
    GemmGraph<LaggedA, LaggedB>>;

// ---- Aliased buffers: the epilogue's staging reuses the mainloop's operand bytes
// -----------------

using MainloopA = Ring<"smem_a", tma(2)>;
using Staging = Ring<"staging", async(2, ts::threads(128), ts::threads(128))>;

// kEpilogueInLoop = false: all k-blocks first, then the tile into staging (its bytes are the
// operand stages'). true: a partial result into staging after every k-block, while the load may
// still be filling the next operand stage.
template <bool kEpilogueInLoop>
struct AliasedMma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<MainloopA>;
  using dst = ts::list<Staging>;
  static constexpr void schedule(auto& ctx, auto& a, auto& staging) {
    auto acc = ctx.local(0);
    auto to_staging = [&] {
      staging.acquire();
      ts::work<&Staging::put>(staging, acc);
      staging.commit();
    };
    ctx.domain_loop(ts::c<4>, [&](auto&) {
      a.wait();
      acc = ts::work<&MainloopA::take>(a);
      a.release();
      if constexpr (kEpilogueInLoop) to_staging();
    });
    if constexpr (!kEpilogueInLoop) to_staging();
  }
};
// Two k-blocks through two operand stages: after the first, the mma writes staging, whose 512
// bytes lie in operand stage 0 — consumed, and never loaded again (the load's second and last copy
// goes to stage 1, bytes [4096, 8192)).
struct EarlyStagingMma : AliasedMma<false> {
  static constexpr void schedule(auto& ctx, auto& a, auto& staging) {
    ctx.domain_loop(ts::c<2>, [&](auto& loop) {
      a.wait();
      auto acc = ts::work<&MainloopA::take>(a);
      a.release();
      loop.first_iter([&] {
        staging.acquire();
        ts::work<&Staging::put>(staging, acc);
        staging.commit();
      });
    });
  }
};
using EarlyStaging =
    ts::TaskManager<ts::Tasks<Load<MainloopA, 2, false, 8>, EarlyStagingMma,
                              Store<Staging, 1, false, 4, 4, 0, "epilogue">>,
                    ts::Graph<ts::DependsOn<MainloopA, Coords>, ts::DependsOn<Staging, MainloopA>,
                              ts::DependsOn<Output, Staging>>,
                    ts::ManagerOptions{},
                    ts::Aliases<ts::Alias<&MainloopA::stages, &Staging::stages>>>;

template <int kTiles>
struct EpilogueStore : Store<Staging, kTiles, false, 4, 4, 0, "epilogue"> {};
template <bool kEpilogueInLoop>
using AliasedEpilogue =
    ts::TaskManager<ts::Tasks<Load<MainloopA, 4, false, 8>, AliasedMma<kEpilogueInLoop>,
                              EpilogueStore<kEpilogueInLoop ? 4 : 1>>,
                    ts::Graph<ts::DependsOn<MainloopA, Coords>, ts::DependsOn<Staging, MainloopA>,
                              ts::DependsOn<Output, Staging>>,
                    ts::ManagerOptions{},
                    ts::Aliases<ts::Alias<&MainloopA::stages, &Staging::stages>>>;

// The same aliasing with an unpipelined staging buffer: the mma writes it and nobody waits on it
// (a TMA store of the mma's own would read it). Its writes are checked against the operand stages
// whose bytes it shares.
using PlainStaging = Ring<"staging", ts::no_pipeline>;
template <bool kEpilogueInLoop>
struct PlainStagingMma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<MainloopA>;
  using dst = ts::list<PlainStaging>;
  static constexpr void schedule(auto& ctx, auto& a, auto& staging) {
    auto acc = ctx.local(0);
    ctx.domain_loop(ts::c<4>, [&](auto&) {
      a.wait();
      acc = ts::work<&MainloopA::take>(a);
      a.release();
      if constexpr (kEpilogueInLoop) ts::work<&PlainStaging::put>(staging, acc);
    });
    if constexpr (!kEpilogueInLoop) ts::work<&PlainStaging::put>(staging, acc);
  }
};
template <bool kEpilogueInLoop>
using PlainStagingEpilogue = ts::TaskManager<
    ts::Tasks<Load<MainloopA, 4, false, 4>, PlainStagingMma<kEpilogueInLoop>>,
    ts::Graph<ts::DependsOn<MainloopA, Coords>, ts::DependsOn<PlainStaging, MainloopA>>,
    ts::ManagerOptions{}, ts::Aliases<ts::Alias<&MainloopA::stages, &PlainStaging::stages>>>;

Entry ring_entry(std::string_view name, std::string_view description,
                 ts::ManagerModel (*model)(std::string_view),
                 std::vector<std::string_view> expected = {},
                 std::vector<std::string_view> controls = {}) {
  return {.name = name,
          .theme = kPipelines,
          .description = description,
          .expected = std::move(expected),
          .model = model,
          .controls = std::move(controls)};
}

}  // namespace

void add_pipelines(Corpus& c) {
  c.push_back(ring_entry("tma_ring_1_stage",
                         "TMA ring of 1 stage: load (warp 4) -> store (warps 0-3), run-time loops",
                         model_of<SimpleCopy<TmaRing<1>>>));
  c.push_back(
      ring_entry("tma_ring_2_stages", "TMA ring of 2 stages", model_of<SimpleCopy<TmaRing<2>>>));
  c.push_back(
      ring_entry("tma_ring_3_stages", "TMA ring of 3 stages", model_of<SimpleCopy<TmaRing<3>>>));
  c.push_back(
      ring_entry("tma_ring_4_stages", "TMA ring of 4 stages", model_of<SimpleCopy<TmaRing<4>>>));
  c.push_back(
      ring_entry("tma_ring_5_stages", "TMA ring of 5 stages", model_of<SimpleCopy<TmaRing<5>>>));
  c.push_back(
      ring_entry("tma_ring_6_stages", "TMA ring of 6 stages", model_of<SimpleCopy<TmaRing<6>>>));
  c.push_back(
      ring_entry("tma_ring_7_stages", "TMA ring of 7 stages", model_of<SimpleCopy<TmaRing<7>>>));
  c.push_back(ring_entry("tma_ring_8_stages",
                         "TMA ring of 8 stages (the run-time loops also run 9 times: one lap "
                         "and a wrap)",
                         model_of<SimpleCopy<TmaRing<8>>>));
  c.push_back(ring_entry("async_ring_thread_arrivals",
                         "Thread-written ring (async_async): every producer thread and every "
                         "consumer thread arrives (threads(32) / threads(128))",
                         model_of<SimpleCopy<Queue>>));
  c.push_back(ring_entry("async_ring_warp_arrivals",
                         "Thread-written ring with one elected lane per warp arriving (warps(1) / "
                         "warps(4))",
                         model_of<SimpleCopy<WarpAgentRing>>));
  c.push_back(
      ring_entry("tma_ring_try_forms",
                 "try_acquire before acquire and try_wait before wait (the probe starts early)",
                 model_of<Copy<Smem, Load<Smem, kRuntime, true>, Store<Smem, kRuntime, true>>>));
  c.push_back(ring_entry("tma_ring_late_release",
                         "The store releases the stage after its global store (the default Store "
                         "releases early, once the value is in registers)",
                         model_of<Copy<Smem, Load<Smem>, LateReleaseStore<Smem>>>));
  c.push_back(ring_entry("tma_wgmma_ring",
                         "TMA -> wgmma ring (tma_wgmma): the mma issues wgmma on each stage, "
                         "retires it with ts::wgmma_wait<0> and releases; one elected lane per "
                         "consumer warp arrives (warps(4))",
                         model_of<Copy<WgmmaRing, Load<WgmmaRing>, WgmmaStore<WgmmaRing>>>));
  c.push_back(
      ring_entry("wgmma_lagged_release",
                 "CUTLASS's mainloop on a 3-stage tma_wgmma ring with advance_on_wait: "
                 "keep one wgmma in flight (wgmma_wait<1>), release the previous stage "
                 "in not_first_iter, drain (wgmma_wait<0>) and release the last in "
                 "last_iter",
                 model_of<Copy<LaggedRing, Load<LaggedRing>, LaggedReleaseMma<LaggedRing>>>));
  c.push_back(
      {.name = "wgmma_wait_keeps_the_released_stage",
       .theme = kPipelines,
       .description = "wgmma_wait<1> keeps the newest wgmma in flight, and the mma then "
                      "releases the very stage that wgmma reads (the lag without "
                      "advance_on_wait)",
       .expected = {"R-D13"},
       .model = model_of<Copy<WgmmaRing, Load<WgmmaRing>, KeepOneThenReleaseMma<WgmmaRing>>>});
  c.push_back(ring_entry("wgmma_two_operand_rings",
                         "A and B in two tma_wgmma rings, one wgmma per k-block reading both (B "
                         "passes its descriptor through auxiliary work); wgmma_wait<0>, then both "
                         "stages are released",
                         model_of<TwoOperandWgmmaManager<false>>, {}, {"R-D13"}));
  c.push_back(ring_entry("wgmma_releases_b_before_it_retires",
                         "The same, but B's stage is released right after the wgmma that reads "
                         "it is issued, before wgmma_wait: the load may overwrite B while wgmma "
                         "still reads it (B's descriptor, auxiliary work, puts its stage into the "
                         "wgmma A's work issues)",
                         model_of<TwoOperandWgmmaManager<true>>, {"R-D13"}));
  c.push_back(ring_entry("wgmma_descriptor_before_wait",
                         "The two operand rings with B's descriptor set up before the waits: B's "
                         "stage is read from the wgmma's issue on, after the wait, not while the "
                         "load may still copy into it",
                         model_of<TwoOperandWgmmaManager<false, true>>, {}, {"R-M4", "R-D13"}));
  c.push_back(ring_entry("wgmma_two_rings_lagged_release",
                         "CUTLASS's lag on two 3-stage operand rings (advance_on_wait), B through "
                         "its descriptor: wgmma_wait<1>, then the previous k-block's A and B "
                         "stages go back",
                         model_of<LaggedTwoOperandManager<false>>, {}, {"R-D13"}));
  c.push_back(ring_entry("wgmma_two_rings_lagged_release_current_b",
                         "The same lag, but B's current stage is released after wgmma_wait<1>: "
                         "the wgmma kept in flight reads it (B's read retires with A's, as one "
                         "wgmma)",
                         model_of<LaggedTwoOperandManager<true>>, {"R-D13"}));
  c.push_back(ring_entry("aliased_staging_after_mainloop",
                         "The epilogue's staging ring shares its bytes with the operand ring "
                         "(ts::Alias); the mma writes staging only after its last k-block, when "
                         "every operand copy has landed and been read",
                         model_of<AliasedEpilogue<false>>));
  c.push_back({.name = "aliased_staging_during_mainloop",
               .theme = kPipelines,
               .description = "The same aliasing, but the mma writes staging after every k-block: "
                              "the load may be copying the next operand stage into those bytes",
               .expected = {"R-M4"},
               .model = model_of<AliasedEpilogue<true>>});
  c.push_back({.name = "unpipelined_staging_after_mainloop",
               .theme = kPipelines,
               .description = "An unpipelined staging buffer aliased with the operand ring, "
                              "written after the last k-block: every operand copy has landed and "
                              "been read",
               .expected = {},
               .model = model_of<PlainStagingEpilogue<false>>,
               .controls = {"R-M4"}});
  c.push_back({.name = "unpipelined_staging_during_mainloop",
               .theme = kPipelines,
               .description = "The unpipelined staging written after every k-block: the load may "
                              "be copying the next operand stage into those bytes",
               .expected = {"R-M4"},
               .model = model_of<PlainStagingEpilogue<true>>});
  c.push_back(
      {.name = "aliased_staging_in_a_retired_stage",
       .theme = kPipelines,
       .description =
           "Two k-blocks through two 4 KiB operand stages; after the first the mma writes the "
           "aliased 512-byte staging, which lies in operand stage 0: consumed, and never loaded "
           "again, while the load's last copy lands in stage 1",
       .expected = {},
       .model = model_of<EarlyStaging>,
       .controls = {"R-M4"}});
  c.push_back(
      {.name = "two_stages_without_advance_on_acquire",
       .theme = kPipelines,
       .description = "The two-stages-at-once writer on a ring without "
                      "advance_on_acquire: both acquires claim the same stage, and the "
                      "second commit publishes a stage nobody acquired or wrote",
       .expected = {"R-M5"},
       .model = model_of<
           Copy<OneCursorRing, TwoAtOnceLoad<OneCursorRing>, TwoAtOnceStore<OneCursorRing>>>});
  c.push_back(ring_entry(
      "advance_on_acquire_two_stages",
      "A thread-written ring with advance_on_acquire: the writer acquires and "
      "fills two stages, then commits both; the reader drains two per "
      "iteration",
      model_of<Copy<TwoAtOnceRing, TwoAtOnceLoad<TwoAtOnceRing>, TwoAtOnceStore<TwoAtOnceRing>>>));
  c.push_back({.name = "tma_load_two_warps_bytes_per_warp",
               .theme = kPipelines,
               .description = "A 2-warp TMA load task (producer group threads(2)), each warp "
                              "copying its 2 KiB half of a 4 KiB stage, num_bytes = 2048: both "
                              "warps arm 2048, the stage expects and receives 4096",
               .expected = {},
               .model = model_of<TwoWarpLoad<2048>>});
  c.push_back({.name = "tma_load_two_warps_bytes_per_stage",
               .theme = kPipelines,
               .description = "The same with num_bytes = 4096 (the stage's bytes, as R-D16 asks): "
                              "the two warps arm 8192, only 4096 land, the phase never completes",
               .expected = {"R-D16"},
               .model = model_of<TwoWarpLoad<4096>>});
  c.push_back(ring_entry("split_consumers",
                         "Two consumer tasks (warps 0-3 and 4-7) each wait, read and release "
                         "every stage; the consumer group counts both (threads(256))",
                         model_of<SplitConsumers>));
  c.push_back({.name = "in_place_update_alone",
               .theme = kPipelines,
               .description = "The store scales each stage in place (ts::ConsumeInPlace) between "
                              "its wait and its read: the only consumer of the ring",
               .expected = {},
               .model = model_of<InPlaceAlone>,
               .controls = {"R-M4"}});
  c.push_back({.name = "in_place_update_beside_a_reader",
               .theme = kPipelines,
               .description = "Two consumer tasks take every fill (threads(256)); one scales the "
                              "stage in place while the other may be reading it",
               .expected = {"R-M4"},
               .model = model_of<InPlaceBesideAReader>});
  c.push_back(ring_entry("merged_producers",
                         "Two producer tasks (warps 4 and 5) each write half of every stage of a "
                         "thread-written ring; the producer group counts both (threads(64))",
                         model_of<MergedProducers>));
  c.push_back(ring_entry("chain_a_b_c",
                         "A chain of rings coords -> a (TMA) -> b -> c (thread-written) -> out, "
                         "four tasks, two of them relays that consume one ring and produce the "
                         "next",
                         model_of<Chain>));
  c.push_back(ring_entry("ping_pong",
                         "Ping-pong: two math tasks hand the turn back and forth through two "
                         "1-stage rings (a cycle in the dependency graph); math0 starts",
                         model_of<PingPong>));
  c.push_back(ring_entry("gemm_operand_rings",
                         "GEMM mainloop shape: A and B in separate TMA rings; the load acquires "
                         "both stages before issuing both; the mma waits for both, releases both",
                         model_of<TwoOperandRings>));
  c.push_back(
      {.name = "gemm_one_ring_two_loads",
       .theme = kPipelines,
       .description =
           "GEMM stage holding A and B (8 KiB): the load issues two TMA works, load_a and load_b "
           "(4 KiB each), into one acquired stage; the barrier is armed with the 8 KiB of both",
       .expected = {},
       .model = model_of<OneRingTwoLoads>});
}

}  // namespace corpus
