// tests/schedules/pipeline_groups.cpp — pipeline groups (ts::Merge, ts::Fork;
// warploom/ts/pipeline_group.hpp), each violating entry next to its fixed twin:
//
//   - Merge: one consumer waits on a TMA ring (`ops`) and a thread-written ring (`res`) and
//     releases both with one release() of the group: passes; releasing a member besides the group
//     (R-D25), releasing the group once more than it waited on one member (the group balance
//     rule, R-D1), reading a member after releasing the group (R-D10), a consumer task whose
//     threads the group's consumer group does not count (R-D15, on the shared empty array);
//   - Fork: one producer fills two rings read by different consumer tasks (threads, and warps)
//     and publishes both with one commit() of the group: passes; committing a member besides the
//     group (R-D25); a consumer that never releases its member (R-D10);
//   - TMA fork: one fill into a buffer both members alias, armed by the primary member: passes;
//     writing it before the secondary member is acquired (R-M4, through the alias).
//
// No bug report about the seed's PipelineGroup (CUTLASS DSL, tutorial 07) was found to cite
// (searched: GitHub issues on PipelineGroup / merged and forked pipelines, shared empty barriers).

#include "corpus.hpp"

namespace corpus {
namespace {

// ---- Merge: one consumer, two producers ---------------------------------------------------------

using Ops = Ring<"ops", tma(2)>;    // TMA-written, threads(1) -> threads(128)
using Res = Ring<"res", async(2)>;  // thread-written, threads(32) -> threads(128)
using Inputs = ts::Merge<"inputs", Ops, Res>;

using LoadOps = Load<Ops, kRuntime, false, 4, 1, 0, "load_ops">;
using LoadRes = Load<Res, kRuntime, false, 5, 1, 0, "load_res">;

// The consumer's variants: the fixed one, and one violation each.
enum class MergeUse {
  Group,             // wait on both members, read both, release the group
  MemberToo,         // ... and release `res` by itself before the group (R-D25)
  OneMemberLess,     // wait on `res` in every iteration but the last (group balance, R-D1)
  ReadAfterRelease,  // read `res` after the group release (R-D10)
};

template <MergeUse kUse, int kWarps = 4>
struct MergeStore {
  static constexpr ts::TaskSpec spec{.name = "add", .warp_idx = 0, .num_warps = kWarps};
  using src = ts::list<Ops, Res, Inputs>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& ops, auto& res, auto& inputs, auto& out) {
    ctx.domain_loop(out->n, [&](auto& loop) {
      ops.wait();
      if constexpr (kUse == MergeUse::OneMemberLess) {
        loop.not_last_iter([&] { res.wait(); });
      } else {
        res.wait();
      }
      auto a = ts::work<&Ops::take>(ops);
      if constexpr (kUse == MergeUse::ReadAfterRelease) {
        inputs.release();
        auto b = ts::work<&Res::take>(res);
        ts::work<&Output::store>(out, b);
      } else {
        if constexpr (kUse != MergeUse::OneMemberLess) ts::work<&Res::take>(res);
        if constexpr (kUse == MergeUse::MemberToo) res.release();
        inputs.release();
      }
      ts::work<&Output::store>(out, a);
    });
  }
};

using MergeGraph = ts::Graph<ts::DependsOn<Ops, Coords>, ts::DependsOn<Res, Coords>,
                             ts::DependsOn<Output, Ops, Res>>;
template <class Consumer, class ResLoad = LoadRes>
using MergeManager = ts::TaskManager<ts::Tasks<LoadOps, ResLoad, Consumer>, MergeGraph>;
// The residual's producer loops over another run-time count (coords.m) than the consumer.
using LoadResM = Load<Res, kRuntimeM, false, 5, 1, 0, "load_res">;

// ---- Fork: one producer, two consumers ----------------------------------------------------------

using ForA = Ring<"for_a", async(2)>;                                 // read by threads
using ForB = Ring<"for_b", async(2, ts::threads(32), ts::warps(4))>;  // read by warps
using Tile = ts::Fork<"tile", ForA, ForB>;

enum class ForkUse {
  Group,      // acquire both members, write both, commit the group
  MemberToo,  // ... and commit `for_a` by itself before the group (R-D25)
};

template <ForkUse kUse>
struct ForkLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 8, .num_warps = 1};
  using src = ts::list<Coords>;
  using dst = ts::list<ForA, ForB, Tile>;
  static constexpr void schedule(auto& ctx, auto& in, auto& a, auto& b, auto& tile) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      a.acquire();
      b.acquire();
      ts::work<&ForA::put>(a, c);
      ts::work<&ForB::put>(b, c);
      if constexpr (kUse == ForkUse::MemberToo) a.commit();
      tile.commit();
    });
  }
};

// kReleases: whether the consumer releases its stages (false: it waits and reads only); kTrips its
// loop's count (kRuntimeM: another run-time count than the producer's).
template <class R, int kWarp, FixedName kName, bool kReleases = true, int kTrips = kRuntime>
struct ForkStore {
  static constexpr ts::TaskSpec spec{.name = kName.view(), .warp_idx = kWarp, .num_warps = 4};
  using src = ts::list<R>;
  using dst = ts::list<Output>;
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(trips<kTrips>(out), [&](auto&) {
      ring.wait();
      auto v = ts::work<&R::take>(ring);
      if constexpr (kReleases) ring.release();
      ts::work<&Output::store>(out, v);
    });
  }
};

using ForkGraph = ts::Graph<ts::DependsOn<ForA, Coords>, ts::DependsOn<ForB, Coords>,
                            ts::DependsOn<Output, ForA, ForB>>;
template <ForkUse kUse, bool kBReleases = true, int kBTrips = kRuntime>
using ForkManager = ts::TaskManager<ts::Tasks<ForkLoad<kUse>, ForkStore<ForA, 0, "store_a">,
                                              ForkStore<ForB, 4, "store_b", kBReleases, kBTrips>>,
                                    ForkGraph>;

// ---- TMA fork: one fill of one buffer, read by two consumers ------------------------------------

// The members' stages alias (ts::Alias): one TMA fill, armed by the primary member's acquire,
// lands in bytes both read. Before writing, the producer must have acquired every member: the
// secondary's consumer may still be reading the stage otherwise.
using TmaForA = Ring<"tma_a", tma(2)>;                                // read by threads
using TmaForB = Ring<"tma_b", tma(2, ts::threads(1), ts::warps(4))>;  // read by warps
using TmaTile = ts::Fork<"tma_tile", TmaForA, TmaForB>;

template <bool kFillBeforeSecondary>
struct TmaForkLoad {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 8, .num_warps = 1};
  using src = ts::list<Coords>;
  using dst = ts::list<TmaForA, TmaForB, TmaTile>;
  static constexpr void schedule(auto& ctx, auto& in, auto& a, auto& b, auto& tile) {
    ctx.domain_loop(in->n, [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      a.acquire();
      if constexpr (kFillBeforeSecondary) {
        ts::work<&TmaForA::put>(a, c);
        b.acquire();
      } else {
        b.acquire();
        ts::work<&TmaForA::put>(a, c);
      }
      tile.commit();
    });
  }
};

using TmaForkGraph = ts::Graph<ts::DependsOn<TmaForA, Coords>, ts::DependsOn<TmaForB, Coords>,
                               ts::DependsOn<Output, TmaForA, TmaForB>>;
template <bool kFillBeforeSecondary>
using TmaForkManager =
    ts::TaskManager<ts::Tasks<TmaForkLoad<kFillBeforeSecondary>, ForkStore<TmaForA, 0, "store_a">,
                              ForkStore<TmaForB, 4, "store_b">>,
                    TmaForkGraph, ts::ManagerOptions{},
                    ts::Aliases<ts::Alias<&TmaForA::stages, &TmaForB::stages>>>;

Entry group_entry(std::string_view name, std::string_view description,
                  std::vector<std::string_view> expected,
                  std::function<ts::ManagerModel(std::string_view)> model,
                  std::vector<std::string_view> controls = {}) {
  return {.name = name,
          .theme = kPipelineGroups,
          .description = description,
          .expected = std::move(expected),
          .model = std::move(model),
          .controls = std::move(controls)};
}

}  // namespace

void add_pipeline_groups(Corpus& c) {
  // Merge
  c.push_back(group_entry("merge_consumer_releases_group",
                          "A consumer waits on a TMA ring and a thread-written ring, reads both "
                          "and releases them with one release() of their ts::Merge group",
                          {}, model_of<MergeManager<MergeStore<MergeUse::Group>>>,
                          {"R-D25", "R-D15"}));
  c.push_back(group_entry("merge_member_released_alone",
                          "The merge consumer releases member `res` by itself, then the group: "
                          "the shared empty barrier would get two arrivals for one stage",
                          {"R-D25"}, model_of<MergeManager<MergeStore<MergeUse::MemberToo>>>));
  c.push_back(group_entry("merge_waits_one_member_less",
                          "The merge consumer waits on `ops` every iteration and on `res` in all "
                          "but the last, and releases the group every iteration",
                          {"R-D1"}, model_of<MergeManager<MergeStore<MergeUse::OneMemberLess>>>));
  c.push_back(group_entry("merge_residual_fills_more",
                          "The residual's producer fills coords.m stages while the merge consumer "
                          "takes coords.n: with more fills, the producer's drain waits on a "
                          "shared empty phase nobody completes",
                          {"R-D1", "R-M1"},
                          model_of<MergeManager<MergeStore<MergeUse::Group>, LoadResM>>));
  c.push_back(group_entry("merge_reads_member_after_group_release",
                          "The merge consumer releases the group, then reads `res`: its producer "
                          "may be refilling that stage",
                          {"R-D10"},
                          model_of<MergeManager<MergeStore<MergeUse::ReadAfterRelease>>>));
  c.push_back(group_entry("merge_group_release_counts_the_group",
                          "The merge consumer runs on 2 warps, but the group's shared empty "
                          "barrier counts threads(128): R-D15 on the group, not its members",
                          {"R-D15"}, model_of<MergeManager<MergeStore<MergeUse::Group, 2>>>));
  // Fork
  c.push_back(group_entry("fork_producer_commits_group",
                          "One producer fills two thread-written rings and publishes both with "
                          "one commit() of their ts::Fork group; a thread reader and a warp "
                          "reader release them separately",
                          {}, model_of<ForkManager<ForkUse::Group>>, {"R-D25"}));
  c.push_back(group_entry("fork_commit_twice",
                          "The fork producer commits member `for_a`, then the group: the shared "
                          "full barrier would get two arrivals for one fill",
                          {"R-D25"}, model_of<ForkManager<ForkUse::MemberToo>>));
  c.push_back(group_entry("fork_one_consumer_never_releases",
                          "The reader of fork member `for_b` waits and reads but never releases: "
                          "the producer's acquire of `for_b` would wait forever",
                          {"R-D10"}, model_of<ForkManager<ForkUse::Group, false>>));
  c.push_back(group_entry("fork_one_consumer_takes_fewer",
                          "The reader of fork member `for_b` takes coords.m stages while the "
                          "producer fills coords.n: with fewer, the producer's acquire of "
                          "`for_b` waits forever",
                          {"R-D1", "R-M1"},
                          model_of<ForkManager<ForkUse::Group, true, kRuntimeM>>));
  c.push_back(group_entry("fork_tma_one_fill_of_aliased_members",
                          "One TMA fill per stage, armed by the primary member's acquire, lands "
                          "in a buffer both fork members alias; the producer acquires both "
                          "before it writes, so neither reader holds the stage",
                          {}, model_of<TmaForkManager<false>>, {"R-M4"}));
  c.push_back(group_entry("fork_tma_fill_before_secondary_acquire",
                          "The TMA fork's producer writes the shared bytes after acquiring the "
                          "primary member but before the secondary: the secondary's reader may "
                          "still be reading that stage (R-M4); the bytes alone complete the "
                          "shared full barrier, so that reader may also take the stage before "
                          "the secondary's acquire, which then passes a stale phase (R-M5) or "
                          "waits forever (R-M1)",
                          {"R-M1", "R-M4", "R-M5"}, model_of<TmaForkManager<true>>));
}

}  // namespace corpus
