// tests/schedules/clusters.cpp — thread-block clusters: rings multicast to two CTAs
// (PipelineConfig::with_multicast), model-checked as one copy of the task set per CTA, with the
// hangs and races that only a cluster has, each next to its fixed twin:
//
//   - the consumers of the CTAs release too few stages: every CTA's empty barrier counts the
//     releases of both CTAs' consumers, so each CTA's load (and exit drain) waits on its peer;
//   - an empty barrier that counts only its own CTA's consumers (a hand-written pipeline's
//     arrival count, CUTLASS PipelineTmaAsync's `num_consumers` times the multicasting CTAs): the
//     peer's TMA refills a stage this CTA still reads;
//   - CTAs of one cluster running different trip counts (ts::per_cta): a persistent loop dealing
//     tiles to CTAs one by one gives the last CTA one fewer, and its peer waits for that CTA's
//     slice of a fill that never comes (DeepGEMM #429: "one CTA pair can straddle two groups with
//     different K-loop lengths and deadlock on the distributed barriers").
//
// The checker explores CTAs that run the same trip counts as interchangeable (symmetry reduction,
// docs/verification/README.md §7). The entries with three and four CTAs check that it hides none
// of these bugs: a cluster whose CTAs split into two classes (one CTA with fewer tiles), and one
// whose release groups are smaller than the cluster (no symmetry: renumbering would break them).

#include "corpus.hpp"

namespace corpus {
namespace {

// A TMA ring whose stages both CTAs of a 2-CTA cluster fill (each CTA's producer loads its slice
// of a stage and multicasts it) and whose releases arrive in both CTAs; and the same ring over
// three and four CTAs.
using McastSmem = Ring<"smem", tma(2).with_multicast(2)>;
using McastSmem3 = Ring<"smem", tma(1).with_multicast(3)>;
using McastSmem4 = Ring<"smem", tma(1).with_multicast(4)>;
// A GEMM's B operand multicast to the pair, A's ring each CTA's own.
using McastOperandB = Ring<"smem_b", tma(2).with_multicast(2)>;

// Handles its first tile only, then has "no more work" while the load keeps filling.
struct FirstTileOnlyMcastStore : Store<McastSmem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(out->n, [&](auto& loop) {
      loop.first_iter([&] {
        smem.wait();
        auto v = ts::work<&McastSmem::take>(smem);
        smem.release();
        ts::work<&Output::store>(out, v);
      });
    });
  }
};

// The model of a hand-written multicast pipeline whose empty barrier counts (and whose releases
// arrive in) only `kReleaseCtas` CTAs: its own, or its half of the cluster.
template <class Smem, int kReleaseCtas = 1>
ts::ManagerModel local_empty_count(std::string_view name) {
  ts::ManagerModel m = model_of<SimpleCopy<Smem>>(name);
  for (auto& r : m.resources)
    if (r.pipeline.multicast_ctas > 1) r.pipeline.release_ctas_override = kReleaseCtas;
  return m;
}

// Tiles dealt to the CTAs one by one (the count may differ between the CTAs of a cluster), or
// per cluster (the same count in every CTA of it).
template <bool kPerCta>
constexpr auto tiles_of(auto const& h) {
  if constexpr (kPerCta) {
    return ts::per_cta(h->n);
  } else {
    return h->n;
  }
}

template <bool kPerCta, class Smem = McastSmem>
struct TileLoad : Load<Smem> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(tiles_of<kPerCta>(in), [&](auto&) {
      auto c = ts::work<&Coords::coord>(in);
      smem.acquire();
      ts::work<&Smem::put>(smem, c);
      smem.commit();
    });
  }
};

template <bool kPerCta, class Smem = McastSmem>
struct TileStore : Store<Smem> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(tiles_of<kPerCta>(out), [&](auto&) {
      smem.wait();
      auto v = ts::work<&Smem::take>(smem);
      smem.release();
      ts::work<&Output::store>(out, v);
    });
  }
};

template <bool kPerCta, class Smem = McastSmem>
using TileCopy = Copy<Smem, TileLoad<kPerCta, Smem>, TileStore<kPerCta, Smem>>;

Entry cluster(std::string_view name, std::string_view description,
              ts::ManagerModel (*model)(std::string_view), std::vector<std::string_view> expected,
              std::vector<std::string_view> controls = {}) {
  return {.name = name,
          .theme = kClusters,
          .description = description,
          .expected = std::move(expected),
          .model = model,
          .controls = std::move(controls),
          .options = {.model_clusters = true}};
}

}  // namespace

void add_clusters(Corpus& c) {
  c.push_back(cluster("cluster_multicast_copy",
                      "A 2-stage TMA ring multicast to a 2-CTA cluster: each CTA's load fills its "
                      "slice of every stage in both CTAs, each CTA's store releases in both",
                      model_of<SimpleCopy<McastSmem>>, {}, {"R-D1", "R-M1", "R-M4"}));
  c.push_back(cluster("cluster_consumer_releases_too_few",
                      "The multicast ring's stores handle their first tile only: each CTA's empty "
                      "barrier counts both CTAs' releases, so both loads wait for the peer's "
                      "consumer forever",
                      model_of<Copy<McastSmem, Load<McastSmem>, FirstTileOnlyMcastStore>>,
                      {"R-D1", "R-M1"}));
  c.push_back(cluster("cluster_empty_barrier_counts_one_cta",
                      "A hand-written multicast pipeline whose empty barrier counts only its own "
                      "CTA's consumers: a CTA's load refills a stage as soon as its own store "
                      "released it, and its multicast copy lands in the peer's stage while the "
                      "peer's store still reads it (and completes the peer's barrier for a phase "
                      "its store has not waited for yet)",
                      local_empty_count<McastSmem>, {"R-M4", "R-M5"}));
  c.push_back(cluster("cluster_tiles_per_cta",
                      "A persistent copy whose tiles are dealt to the CTAs one by one "
                      "(ts::per_cta): the last CTA may get one tile fewer, and the other's last "
                      "fill then waits for a slice and releases that never come (DeepGEMM #429)",
                      model_of<TileCopy<true>>, {"R-D1", "R-M1"}));
  c.push_back(cluster("cluster_tiles_per_cluster",
                      "The same copy with tiles assigned per cluster: every CTA of it runs the "
                      "same count",
                      model_of<TileCopy<false>>, {}, {"R-D1", "R-M1"}));
  c.push_back(cluster("cluster_three_ctas_tiles_per_cta",
                      "The per-CTA tile copy over a 3-CTA cluster: with the last CTA, or the last "
                      "two, one tile short, the CTAs running alike are interchangeable and the "
                      "short one is not, and the full CTAs' last fill still waits forever",
                      model_of<TileCopy<true, McastSmem3>>, {"R-D1", "R-M1"}));
  c.push_back(cluster("cluster_three_ctas_tiles_per_cluster",
                      "The 3-CTA copy with tiles assigned per cluster: every CTA interchangeable",
                      model_of<TileCopy<false, McastSmem3>>, {}, {"R-D1", "R-M1"}));
  c.push_back(cluster("cluster_orphaned_copy",
                      "A GEMM load on a 2-CTA cluster (B multicast, A each CTA's own) issues A's "
                      "TMA twice: the second copy of a phase lands after its barrier completed, "
                      "while the mma reads the stage, and is still in flight when the tasks end; "
                      "the CTAs' waits on each other's B slices must hide none of it",
                      model_of<Operands<2, McastOperandB>>, {"R-M2", "R-M4", "R-M5"}));
  c.push_back(cluster("cluster_one_copy_per_stage", "The same GEMM load with one TMA per operand",
                      model_of<Operands<1, McastOperandB>>, {}, {"R-M2", "R-M4", "R-M5"}));
  c.push_back(cluster("cluster_four_ctas_multicast_copy",
                      "A 2-stage TMA ring multicast to a 4-CTA cluster, every release arriving in "
                      "all four CTAs",
                      model_of<SimpleCopy<McastSmem4>>, {}, {"R-M4"}));
  c.push_back(cluster("cluster_four_ctas_empty_barrier_counts_two",
                      "A hand-written 4-CTA multicast pipeline whose empty barrier counts the "
                      "consumers of its half of the cluster only: the other half's loads refill "
                      "a stage this CTA still reads",
                      local_empty_count<McastSmem4, 2>, {"R-M4", "R-M5"}));
}

}  // namespace corpus
