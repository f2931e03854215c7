// tests/schedules/corpus.hpp — the schedule corpus: named TaskManagers (and a few hand-built
// models) with the verdict warploom's verifier must reach on each.
//
// An entry is a TaskManager declared on the host the way a kernel declares it (work bodies are
// never run), plus its expected verdict: the exact, sorted list of rule ids that
// ts::verify_manager must report (empty: the manager passes). schedule_corpus (corpus.cpp)
// verifies every entry and fails on any other verdict. An entry whose expected verdict the
// verifier does not reach today carries `known_miss = true` and a note saying what it reports and
// why; the test then reports "known miss" instead of failing, and fails once the verifier gets it
// right (so the flag is cleared).
//
// Themes, one file each: pipelines.cpp, loops.cpp, hangs.cpp, rules.cpp, work_queues.cpp,
// clusters.cpp, pipeline_groups.cpp, and
// bundled_kernels.cpp
// (the build's schedule units, declared by the kernels themselves). The shared resources and tasks
// below keep the entries short; an entry that needs another shape declares its own tasks next to
// it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "warploom/ts/model.hpp"
#include "warploom/ts/tile_scheduler.hpp"
#include "warploom/ts/ts.hpp"
#include "warploom/ts/verify/model_check.hpp"

namespace corpus {

namespace ts = warploom::ts;

// ---- Entries ----------------------------------------------------------------------------------

inline constexpr std::string_view kPipelines = "pipelines";
inline constexpr std::string_view kLoops = "loops";
inline constexpr std::string_view kHangs = "hangs";
inline constexpr std::string_view kRules = "rules";
inline constexpr std::string_view kWorkQueues = "work queues";
inline constexpr std::string_view kClusters = "clusters";
inline constexpr std::string_view kBundled = "bundled kernel";
inline constexpr std::string_view kPipelineGroups = "pipeline groups";

// Rule ids as the corpus prints them, "R-D1, R-M1", or `empty` where there are none.
template <class Ids>
std::string join(Ids const& ids, std::string_view empty = "pass") {
  std::string s;
  for (auto const& id : ids) s += (s.empty() ? "" : ", ") + std::string(id);
  return s.empty() ? std::string(empty) : s;
}

struct Entry {
  std::string_view name;                   // unique, snake_case
  std::string_view theme;                  // one of the themes above
  std::string_view description;            // one line: the schedule and what it shows
  std::vector<std::string_view> expected;  // rule ids, sorted; empty: passes
  std::function<ts::ManagerModel(std::string_view name)> model;  // the verifier's view
  // Rules this entry is the passing control of (the fixed twin of a violating entry).
  std::vector<std::string_view> controls = {};
  bool known_miss = false;     // the verifier does not reach `expected` today (see `note`)
  std::string_view note = {};  // known misses: what it reports and why; compile-time-only rules
  ts::ModelCheckOptions options = {};
};

using Corpus = std::vector<Entry>;

// The model of a TaskManager type, as `warploom verify` builds it.
template <class Manager>
ts::ManagerModel model_of(std::string_view name) {
  return Manager::model(name);
}

// One registration function per theme file.
void add_pipelines(Corpus& c);
void add_loops(Corpus& c);
void add_hangs(Corpus& c);
void add_rules(Corpus& c);
void add_work_queues(Corpus& c);
void add_clusters(Corpus& c);
void add_pipeline_groups(Corpus& c);
void add_bundled_kernels(Corpus& c);

// ---- Shared resources -------------------------------------------------------------------------

// A resource or task name as a template argument: Ring<"smem", ...> (ts::FixedName).
using ts::FixedName;

// Loop bounds: kRuntime reads the handle's run-time field `n` (the verifier tries 0, 1, 2 and
// stages+1 iterations), kRuntimeM its second one, `m`; any other value is the compile-time trip
// count ts::c<kTrips>.
inline constexpr int kRuntime = -1;
inline constexpr int kRuntimeM = -2;

template <int kTrips, class Handle>
constexpr auto trips(Handle const& h) {
  if constexpr (kTrips == kRuntime) {
    return h->n;
  } else if constexpr (kTrips == kRuntimeM) {
    return h->m;
  } else {
    return ts::c<kTrips>;
  }
}

// Coordinates the producers read (a coordinate-only resource, no pipeline), with the run-time
// sizes the loops use.
struct Coords {
  static constexpr ts::ResourceSpec spec{.name = "coords"};
  int n = 0;      // items
  int m = 0;      // a second, independent count
  int tiles = 0;  // persistent tiles
  int k = 0;      // k-blocks per tile
  int coord(ts::Consume const& s) const { return s.loop_offset; }
  int prefetch(ts::ConsumeAux const& s) const { return s.loop_offset; }
};

// Where the consumers store (global memory, no pipeline). Its sizes are the coordinates' (a
// kernel would set both from one argument): a store looping over out->n runs as often as a load
// looping over in->n, one over out->m does not.
struct Output {
  static constexpr ts::ResourceSpec spec{.name = "out"};
  int n = 0;
  int m = 0;
  int tiles = 0;
  int k = 0;
  void store(ts::Produce const&, int value) { (void)value; }
  using same_sizes =
      ts::same_sizes<ts::same_size<&Output::n, &Coords::n>, ts::same_size<&Output::m, &Coords::m>,
                     ts::same_size<&Output::tiles, &Coords::tiles>,
                     ts::same_size<&Output::k, &Coords::k>>;
};

// A ring of stages in shared memory. TMA kinds hold num_bytes per stage (R-D16 compares the
// buffer with it); thread-written kinds 256 bytes.
constexpr int stage_bytes(ts::PipelineConfig p) {
  return p.tma_producer() ? p.num_bytes : 256;
}

template <FixedName kName, ts::PipelineConfig kPipeline>
struct Ring {
  static constexpr ts::ResourceSpec spec{.name = kName.view(), .pipeline = kPipeline};
  ts::SmemBuffer<std::uint8_t,
                 (kPipeline.num_stages > 0 ? kPipeline.num_stages : 1) * stage_bytes(kPipeline)>
      stages;  // (STAGES, STAGE_BYTES)
  using smem_buffers = ts::buffers<&Ring::stages>;
  // Items and k-blocks, for tasks that loop over the ring itself (run-time): the coordinates'.
  int n = 0;
  int k = 0;
  using same_sizes =
      ts::same_sizes<ts::same_size<&Ring::n, &Coords::n>, ts::same_size<&Ring::k, &Coords::k>>;

  void put(ts::Produce const&, int coord) { (void)coord; }  // writes a stage (TMA: issues it)
  // One part of a stage (part kPart of two: A's and B's tiles, say), one work per part: works of
  // one name and other template arguments are other calls.
  template <int kPart>
  void put_part(ts::Produce const&, int coord) {
    (void)coord;
  }
  int take(ts::Consume const& s) const { return s.stage_idx; }           // reads a stage
  void scale(ts::ConsumeInPlace const&, int factor) { (void)factor; }    // rewrites a stage
  void init(ts::ProduceAux const&) {}                                    // descriptor set-up
  int descriptor(ts::ConsumeAux const& s) const { return s.stage_idx; }  // for a wgmma
};

// Pipelines: a TMA ring of `stages` x 4 KiB filled by one producer warp and drained by 128
// threads; a thread-written ring (AsyncAsync) of one producer warp and 128 consumer threads.
constexpr ts::PipelineConfig tma(int stages, ts::CooperativeGroup producer = ts::threads(1),
                                 ts::CooperativeGroup consumer = ts::threads(128),
                                 int bytes = 4096) {
  return ts::tma_async(stages, bytes, producer, consumer);
}
constexpr ts::PipelineConfig async(int stages, ts::CooperativeGroup producer = ts::threads(32),
                                   ts::CooperativeGroup consumer = ts::threads(128)) {
  return ts::async_async(stages, producer, consumer);
}

using Smem = Ring<"smem", tma(2)>;     // the default TMA ring
using Queue = Ring<"ring", async(2)>;  // the default thread-written ring

// ---- Work queues (ts/work_queue.hpp) ------------------------------------------------------------

// A persistent task's handshake with its queue, once per fetch: the next tile (on a static queue
// the ops around it are no-ops). The library's, which the kernels call.
using ts::take_tile;

// A dynamic queue's scheduler fill: one fetch from the global counter into the next entry.
constexpr void fetch_tile(auto& queue) {
  using Q = typename std::remove_cvref_t<decltype(queue)>::resource;
  queue.acquire();
  ts::work<&Q::fetch_tile>(queue);
  queue.commit();
}

// ---- Shared tasks -----------------------------------------------------------------------------

// Load: `kTrips` iterations of coords.coord -> R.acquire, R.put, R.commit (with the try_ probe
// first when kTry).
template <class R, int kTrips = kRuntime, bool kTry = false, int kWarp = 4, int kWarps = 1,
          int kRegisters = 0, FixedName kName = "load">
struct Load {
  static constexpr ts::TaskSpec spec{
      .name = kName.view(), .warp_idx = kWarp, .num_warps = kWarps, .num_registers = kRegisters};
  using src = ts::list<Coords>;
  using dst = ts::list<R>;
  static constexpr void schedule(auto& ctx, auto& in, auto& ring) {
    ctx.domain_loop(trips<kTrips>(in), [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      if constexpr (kTry) ring.try_acquire();
      ring.acquire();
      ts::work<&R::put>(ring, c);
      ring.commit();
    });
  }
};

// Store: `kTrips` iterations of R.wait, R.take, R.release, out.store (early release: the value is
// in registers before the global store).
template <class R, int kTrips = kRuntime, bool kTry = false, int kWarp = 0, int kWarps = 4,
          int kRegisters = 0, FixedName kName = "store">
struct Store {
  static constexpr ts::TaskSpec spec{
      .name = kName.view(), .warp_idx = kWarp, .num_warps = kWarps, .num_registers = kRegisters};
  using src = ts::list<R>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(trips<kTrips>(out), [&](auto&) {
      if constexpr (kTry) ring.try_wait();
      ring.wait();
      auto v = ts::work<&R::take>(ring);
      ring.release();
      ts::work<&Output::store>(out, v);
    });
  }
};

// ---- A GEMM's operand rings ------------------------------------------------------------------

// The GEMM load that acquires both operand stages, then issues A's TMA kLoadsOfA times (twice: the
// second copy of a phase lands after its barrier completed — R-M5, R-M4, R-M2 — rules.cpp), and
// the mma that reads both. B's ring is a parameter: multicast to a cluster in clusters.cpp.
using OperandA = Ring<"smem_a", tma(2)>;
using OperandB = Ring<"smem_b", tma(2)>;
template <int kLoadsOfA, class B = OperandB>
struct OperandLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 1};
  using src = ts::list<Coords>;
  using dst = ts::list<OperandA, B>;
  static constexpr void schedule(auto& ctx, auto& in, auto& a, auto& b) {
    ctx.domain_loop(ts::c<3>, [&](auto&) {
      auto k = ts::work<&Coords::coord>(in);
      a.acquire();
      b.acquire();
      ts::work<&OperandA::put>(a, k);
      if constexpr (kLoadsOfA == 2) ts::work<&OperandA::put>(a, k);
      ts::work<&B::put>(b, k);
      a.commit();
      b.commit();
    });
  }
};
template <class B = OperandB>
struct OperandMma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<OperandA, B>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& out) {
    ctx.domain_loop(ts::c<3>, [&](auto&) {
      a.wait();
      b.wait();
      auto x = ts::work<&OperandA::take>(a);
      auto y = ts::work<&B::take>(b);
      a.release();
      b.release();
      ts::work<&Output::store>(out, x);
      ts::work<&Output::store>(out, y);
    });
  }
};
template <int kLoadsOfA, class B = OperandB>
using Operands =
    ts::TaskManager<ts::Tasks<OperandLoad<kLoadsOfA, B>, OperandMma<B>>,
                    ts::Graph<ts::DependsOn<OperandA, Coords>, ts::DependsOn<B, Coords>,
                              ts::DependsOn<Output, OperandA, B>>>;

// The graph of a copy through R: R <- coords, out <- R.
template <class R>
using CopyGraph = ts::Graph<ts::DependsOn<R, Coords>, ts::DependsOn<Output, R>>;

// A load/store copy through R with the given tasks (more tasks may follow).
template <class R, class... Tasks>
using Copy = ts::TaskManager<ts::Tasks<Tasks...>, CopyGraph<R>>;

// The default copy: Load<R> on warp 4, Store<R> on warps 0-3, run-time loops.
template <class R>
using SimpleCopy = Copy<R, Load<R>, Store<R>>;

}  // namespace corpus
