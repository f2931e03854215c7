// tests/gpu/gemm/grouped_gemm_test.cpp
//
// gemm::grouped_gemm on the GPU: every group of a launch on fresh random data, D poisoned first,
// against the float64 reference with the per-type tolerance of gemm_check.hpp (the grouped kernel
// runs the dense kernel's main loop and epilogue, so the dense kernel's error bounds are its). The
// groups mix extents (1 to 1024, K of one tile or many, M and N that end mid-tile), carry their own
// alpha, beta, fp8 scales and epilogue vectors, and span several configurations (a column-major
// D, a SIMT group), which must come out as separate launches without disturbing each other; a
// launch captured in a CUDA graph replays right. The tests of the tile walk run both designs over
// the static tile order and the cooperative design with the dynamic tile scheduler (every_walk).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "gemm_check.hpp"
#include "warploom/gemm.hpp"
#include "warploom/prepared_grouped_gemm.hpp"

namespace warploom::gemm::testing {
namespace {

constexpr auto kRow = MatrixLayout::RowMajor;
constexpr auto kCol = MatrixLayout::ColMajor;

// The problems' data, D poisoned, and their arguments in order.
struct Groups {
  std::vector<Problem> problems;
  std::vector<std::unique_ptr<ProblemData>> data;
  std::vector<GemmArguments> args;

  explicit Groups(std::vector<Problem> p) : problems(std::move(p)) {
    for (std::size_t i = 0; i < problems.size(); ++i) {
      data.push_back(std::make_unique<ProblemData>(problems[i], 1000 + i));
      data.back()->poison_d();
      args.push_back(data.back()->args());
    }
  }
  // Every group's D (and pre-activation output) against the reference.
  void expect_correct() const {
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (std::size_t i = 0; i < problems.size(); ++i) {
      SCOPED_TRACE("groups[" + std::to_string(i) + "]: " + problems[i].describe());
      EXPECT_EQ(data[i]->check(full_reference_of(args[i])), "");
    }
  }
};

// The grouped kernel's designs and tile walks: ping-pong and cooperative over the static order,
// and both with the dynamic tile scheduler (cooperative_dynamic.hpp; pingpong_dynamic.hpp, pairs
// of tiles).
std::vector<GemmTuning> const& every_walk() {
  static std::vector<GemmTuning> const walks = {
      {.design = ConsumerDesign::PingPong, .tile_scheduling = TileScheduling::Static},
      {.design = ConsumerDesign::Cooperative, .tile_scheduling = TileScheduling::Static},
      {.design = ConsumerDesign::Cooperative, .tile_scheduling = TileScheduling::Dynamic},
      {.design = ConsumerDesign::PingPong, .tile_scheduling = TileScheduling::Dynamic}};
  return walks;
}
std::string describe(GemmTuning const& t) {
  return std::string(to_string(t.design)) + ", " + std::string(to_string(t.tile_scheduling));
}

Problem seed_problem(int m, int n, int k) {
  return {.in = ScalarType::F16,
          .out = ScalarType::F16,
          .a = kRow,
          .b = kRow,
          .d = kRow,
          .m = m,
          .n = n,
          .k = k};
}

// Seed 002's experiment, smaller: M, N and K drawn from {128, 256, 512, 1024}, fp16, every operand
// row-major (a prebuilt grouped instance).
TEST(GroupedGemm, TheSeedsRowMajorFp16Problems) {
  std::mt19937 random(2023);
  int const sizes[] = {128, 256, 512, 1024};
  std::vector<Problem> problems;
  for (int i = 0; i < 12; ++i) {
    int const m = sizes[random() % 4], n = sizes[random() % 4], k = sizes[random() % 4];
    problems.push_back(seed_problem(m, n, k));
  }
  for (GemmTuning const& tuning : every_walk()) {
    SCOPED_TRACE(describe(tuning));
    Groups const g(problems);
    grouped_gemm(g.args.data(), g.args.size(), nullptr, tuning);
    g.expect_correct();
  }
}

// 64 and 70 small groups (a setup launch's 64-problem parameter block, and past it), on a full grid
// and on three CTAs (each then walks tiles of dozens of problems, more than it has warps), in every
// walk.
TEST(GroupedGemm, ManyGroupsOnAFullGridAndOnThreeCtas) {
  std::mt19937 random(7);
  std::vector<Problem> problems;
  for (int i = 0; i < 70; ++i) {
    int const m = 1 + static_cast<int>(random() % 300),
              n = 8 * (1 + static_cast<int>(random() % 40));
    problems.push_back(seed_problem(m, n, 8 * (1 + static_cast<int>(random() % 40))));
  }
  for (std::size_t count : {std::size_t{64}, problems.size()}) {
    for (int max_ctas : {0, 3}) {
      for (GemmTuning tuning : every_walk()) {
        tuning.max_ctas = max_ctas;
        SCOPED_TRACE(std::to_string(count) + " groups, max_ctas " + std::to_string(max_ctas) +
                     ", " + describe(tuning));
        Groups const g(std::vector<Problem>(problems.begin(), problems.begin() + count));
        grouped_gemm(g.args.data(), g.args.size(), nullptr, tuning);
        g.expect_correct();
      }
    }
  }
}

// Extents of 1, M and N ending mid-tile, K of one partial tile and of many, in one launch (bf16
// "tn", the other prebuilt grouped instance); their tile counts differ by three orders of
// magnitude, so the tile walk crosses every problem boundary in some CTA.
TEST(GroupedGemm, OddExtentsInOneLaunch) {
  std::vector<Problem> problems;
  for (auto [m, n, k] : std::vector<std::array<int, 3>>{{1, 1, 8},
                                                        {1, 200, 64},
                                                        {300, 1, 24},
                                                        {129, 257, 72},
                                                        {64, 8, 4096},
                                                        {1000, 1000, 1000},
                                                        {255, 383, 1}})
    problems.push_back({.m = m, .n = n, .k = k});
  for (GemmTuning const& tuning : every_walk()) {
    SCOPED_TRACE(describe(tuning));
    Groups const g(problems);
    grouped_gemm(g.args.data(), g.args.size(), nullptr, tuning);
    g.expect_correct();
  }
}

// Each group its own alpha, beta, C, bias and residual; the epilogue (bias, GELU, residual) is one
// configuration, compiled for the grouped kernel when first used.
TEST(GroupedGemm, AlphaBetaAndTheFusedEpiloguePerGroup) {
  std::vector<Problem> problems;
  for (int i = 0; i < 5; ++i) {
    Problem p{.m = 64 + 96 * i, .n = 256 - 40 * i, .k = 128 + 64 * i};
    p.alpha = 0.5f + 0.25f * static_cast<float>(i);
    p.beta = i % 2 == 0 ? 0.0f : -0.75f;
    p.epilogue = {.activation = Activation::GELU,
                  .bias = true,
                  .bias_type = ScalarType::BF16,
                  .residual = true};
    problems.push_back(p);
  }
  // beta = 0 and beta != 0 groups share one configuration: whether C is read is each group's.
  Groups const g(problems);
  grouped_gemm(g.args.data(), g.args.size());
  g.expect_correct();
}

// fp8 (e4m3) groups, each with its own per-tensor scales of A and B in device memory (an fp8 MoE
// layer's per-expert scales) and a bf16 D: the grouped kernel reads each group's scales with its
// problem (the configuration compiled for the grouped kernel when first used). fp8 operands are
// K-major on the tensor cores: A row-major, B column-major.
TEST(GroupedGemm, Fp8GroupsEachWithTheirOwnScales) {
  std::vector<Problem> problems;
  for (int i = 0; i < 4; ++i) {
    Problem p{.in = ScalarType::E4M3,
              .out = ScalarType::BF16,
              .m = 96 + 112 * i,
              .n = 64 + 80 * i,
              .k = 128 * (i + 1)};
    p.scale_a = 0.5f + static_cast<float>(i);
    p.scale_b = 2.0f / static_cast<float>(i + 1);
    problems.push_back(p);
  }
  Groups const g(problems);
  grouped_gemm(g.args.data(), g.args.size());
  g.expect_correct();
}

// A column-major D (the kernel computes its transpose: another configuration), a group only the
// SIMT GEMM runs (K = 17 packed: 34-byte rows) and groups of the common configuration, in both
// designs: one launch per configuration, the SIMT group on its own.
TEST(GroupedGemm, GroupsOfSeveralConfigurationsEachRunRight) {
  for (GemmTuning const& tuning : every_walk()) {
    SCOPED_TRACE(describe(tuning));
    std::vector<Problem> problems = {{.m = 200, .n = 136, .k = 256},
                                     {.d = kCol, .m = 96, .n = 320, .k = 64},
                                     {.m = 77, .n = 50, .k = 17, .align_ld = false},
                                     {.m = 512, .n = 384, .k = 192}};
    Groups const g(problems);
    grouped_gemm(g.args.data(), g.args.size(), nullptr, tuning);
    g.expect_correct();
  }
}

// Long-K groups (an MoE layer's experts, smaller): Auto takes the cooperative kernel
// (selected_grouped_tuning: over the dynamic tile scheduler), whose K loop runs 32 to 64 K tiles
// per output tile; M and K ending mid-tile; an fp16 "tt" group is a second launch of the same
// selection.
TEST(GroupedGemm, LongKGroupsTakeTheCooperativeKernel) {
  std::vector<Problem> problems;
  for (auto [m, k] : std::vector<std::array<int, 2>>{{256, 2048}, {200, 4096}, {520, 3000}})
    problems.push_back({.m = m, .n = 384, .k = k});
  problems.push_back(seed_problem(136, 256, 3072));
  Groups const g(problems);
  GemmTuning const selected = selected_grouped_tuning(g.args.data(), g.args.size(), {});
  ASSERT_EQ(selected.design, ConsumerDesign::Cooperative);
  grouped_gemm(g.args.data(), g.args.size());
  g.expect_correct();
}

// The allocation nodes of `graph`.
std::size_t allocation_nodes(cudaGraph_t graph) {
  std::size_t count = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &count), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(count);
  EXPECT_EQ(cudaGraphGetNodes(graph, nodes.data(), &count), cudaSuccess);
  std::size_t allocations = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    EXPECT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
    allocations += type == cudaGraphNodeTypeMemAlloc ? 1 : 0;
  }
  return allocations;
}

// `graph` (of `g`'s groups) instantiated and replayed twice on `stream` over poisoned outputs, each
// replay checked; the graph destroyed after.
void replayed_twice(Groups const& g, cudaGraph_t graph, cudaStream_t stream) {
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    for (auto const& d : g.data) d->poison_d();
    // The poison, before the replay: the non-blocking stream does not wait for the default one.
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    g.expect_correct();
  }
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

// Captured in a graph (global capture mode: no call outside the stream's order), replayed twice
// over poisoned outputs: the per-problem parameters are rebuilt on the device each replay, and the
// dynamic scheduler's counter restarts from zero. The workspace from the library's pool (an
// allocation node in the graph), or the caller's (none).
void captured_and_replayed(GemmTuning const& tuning, bool callers_workspace) {
  std::vector<Problem> problems = {seed_problem(256, 128, 512), seed_problem(128, 1024, 256),
                                   seed_problem(512, 256, 128)};
  Groups const g(problems);
  std::size_t const bytes = callers_workspace ? grouped_gemm_workspace_bytes(problems.size()) : 0;
  warploom::testing::DeviceBuffer workspace(std::max<std::size_t>(bytes, 1));
  void* const given = callers_workspace ? workspace.get() : nullptr;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  // A first run outside the capture: it loads the instance (a JIT compile is no stream work).
  grouped_gemm(g.args.data(), g.args.size(), stream, tuning, given, bytes);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  grouped_gemm(g.args.data(), g.args.size(), stream, tuning, given, bytes);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  if (callers_workspace) {
    EXPECT_EQ(allocation_nodes(graph), 0u);
  } else {
    EXPECT_GE(allocation_nodes(graph), 1u);
  }
  replayed_twice(g, graph, stream);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(GroupedGemm, CapturedInAGraphAndReplayed) {
  for (GemmTuning const& tuning : every_walk()) {
    for (bool callers_workspace : {false, true}) {
      SCOPED_TRACE(describe(tuning) + (callers_workspace ? ", the caller's workspace" : ""));
      captured_and_replayed(tuning, callers_workspace);
    }
  }
}

// The bytes of group `a`'s A (its rows or columns, ld apart), as its pointer reaches them.
std::size_t bytes_of_a(GemmArguments const& a) {
  std::int64_t const lines = a.a.layout == kRow ? a.m : a.k;
  std::int64_t const line = a.a.layout == kRow ? a.k : a.m;
  return static_cast<std::size_t>(((lines - 1) * a.a.ld + line) * size_of(a.a.type));
}

// A prepared grouped GEMM (prepare_grouped_gemm: set up once), run three times with new A between
// runs and D poisoned before each (every run reads the operands when it runs, and the dynamic
// scheduler's counter, which no setup kernel zeroes now, is rewound by each run's last CTA), then
// captured in a graph (one kernel node) and replayed twice. Extents of 1, mid-tile ends, one
// K tile and many, in every walk; the SIMT group of another type runs beside them.
TEST(GroupedGemm, PreparedOnceAndRunManyTimes) {
  std::vector<Problem> problems;
  for (auto [m, n, k] : std::vector<std::array<int, 3>>{{256, 128, 512},
                                                        {1, 1, 8},
                                                        {300, 136, 1000},
                                                        {128, 1024, 64},
                                                        {1024, 256, 128},
                                                        {77, 1, 24}})
    problems.push_back(seed_problem(m, n, k));
  for (GemmTuning const& tuning : every_walk()) {
    SCOPED_TRACE(describe(tuning));
    Groups const g(problems);
    Groups const fresh(problems);  // A of other values, copied in between runs
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    PreparedGroupedGemm const prepared =
        prepare_grouped_gemm(g.args.data(), g.args.size(), stream, tuning);
    EXPECT_EQ(prepared.groups(), problems.size());
    EXPECT_EQ(prepared.grouped_launches(), 1u);
    for (int run = 0; run < 3; ++run) {
      SCOPED_TRACE("run " + std::to_string(run));
      if (run == 1) {
        for (std::size_t i = 0; i < problems.size(); ++i)
          ASSERT_EQ(cudaMemcpy(const_cast<void*>(g.args[i].a.data), fresh.args[i].a.data,
                               bytes_of_a(g.args[i]), cudaMemcpyDeviceToDevice),
                    cudaSuccess);
      }
      for (auto const& d : g.data) d->poison_d();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      prepared.run(stream);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      g.expect_correct();
    }
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    prepared.run(stream);
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    std::size_t nodes = 0;
    ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
    EXPECT_EQ(nodes, 1u);  // the grouped kernel alone
    replayed_twice(g, graph, stream);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  }
}

// Preparing checks as grouped_gemm does and refuses a capturing stream by name; a prepared GEMM
// of two configurations (a SIMT group among them) and the caller's workspace runs right, twice.
TEST(GroupedGemm, PreparedWithTheCallersWorkspaceAndASimtGroup) {
  // GroupsOfSeveralConfigurationsEachRunRight's — bf16 "tn" with a row-major and a column-major D
  // (D^T's operands are "tn" again: one launch), rows off 16 bytes (the SIMT GEMM) — and an fp16
  // "tt" group: a second launch.
  Groups const g({{.m = 200, .n = 136, .k = 256},
                  {.d = kCol, .m = 96, .n = 320, .k = 64},
                  {.m = 77, .n = 50, .k = 17, .align_ld = false},
                  {.m = 512, .n = 384, .k = 192},
                  seed_problem(128, 256, 64)});
  std::size_t const bytes = grouped_gemm_workspace_bytes(g.args.size());
  warploom::testing::DeviceBuffer workspace(bytes);
  PreparedGroupedGemm const prepared =
      prepare_grouped_gemm(g.args.data(), g.args.size(), nullptr, {}, workspace.get(), bytes);
  EXPECT_EQ(prepared.groups(), g.args.size());
  EXPECT_EQ(prepared.grouped_launches(), 2u);
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    for (auto const& d : g.data) d->poison_d();
    prepared.run();
    g.expect_correct();
  }
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  try {
    (void)prepare_grouped_gemm(g.args.data(), g.args.size(), stream);
    ADD_FAILURE() << "a capturing stream was taken";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("capturing"), std::string::npos) << e.what();
  }
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  if (graph != nullptr) {
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// Prepared grouped GEMMs back to back on one stream, no wait between them: the second reads the
// first's D as its A, and a third writes the first's D again (other A) while the second may still
// read it. Each grouped kernel lets the next launch start its CTAs before it ends
// (griddepcontrol.launch_dependents) and waits for the one before to finish before it touches
// memory, so the second sees the first's whole D and not the poison, and the third's D none of
// the second's reads. Run eagerly, then captured in one graph and replayed twice (every walk).
TEST(GroupedGemm, BackToBackRunsReadTheRunBeforesOutput) {
  std::vector<Problem> firsts, seconds;
  for (auto [m, n, k, n2] : std::vector<std::array<int, 4>>{
           {256, 128, 512, 256}, {1024, 512, 1024, 128}, {300, 136, 64, 72}, {1, 8, 8, 1}}) {
    firsts.push_back(seed_problem(m, n, k));
    seconds.push_back(seed_problem(m, n2, n));  // A: the first's D, m x n
  }
  for (GemmTuning const& tuning : every_walk()) {
    SCOPED_TRACE(describe(tuning));
    Groups const first(firsts), second(seconds), rewrite(firsts);
    std::vector<GemmArguments> second_args = second.args, rewrite_args = rewrite.args;
    for (std::size_t i = 0; i < firsts.size(); ++i) {
      GemmArguments const& f = first.args[i];
      second_args[i].a = {.data = f.d, .type = f.d_type, .layout = f.d_layout, .ld = f.ldd};
      rewrite_args[i].d = f.d;
      rewrite_args[i].ldd = f.ldd;
    }
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    auto const prepare = [&](std::vector<GemmArguments> const& args) {
      return prepare_grouped_gemm(args.data(), args.size(), stream, tuning);
    };
    PreparedGroupedGemm const p1 = prepare(first.args), p2 = prepare(second_args),
                              p3 = prepare(rewrite_args);
    // The references: the second's from the first's D as the first writes it, the first's D at
    // the end the rewrite's.
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the operands' fills
    p1.run(stream);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    std::vector<Reference> second_refs, rewrite_refs;
    for (std::size_t i = 0; i < firsts.size(); ++i) {
      second_refs.push_back(full_reference_of(second_args[i]));
      rewrite_refs.push_back(full_reference_of(rewrite_args[i]));
    }
    auto const expect_chain_correct = [&] {
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      for (std::size_t i = 0; i < firsts.size(); ++i) {
        SCOPED_TRACE("groups[" + std::to_string(i) + "]: " + seconds[i].describe());
        EXPECT_EQ(second.data[i]->check(second_refs[i]), "");
        EXPECT_EQ(first.data[i]->check(rewrite_refs[i]), "");
      }
    };
    auto const poisoned = [&] {
      for (std::size_t i = 0; i < firsts.size(); ++i) {
        first.data[i]->poison_d();
        second.data[i]->poison_d();
      }
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // before the non-blocking stream's work
    };
    auto const chain = [&] {
      p1.run(stream);
      p2.run(stream);
      p3.run(stream);
    };
    poisoned();
    chain();
    expect_chain_correct();
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    chain();
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (int replay = 0; replay < 2; ++replay) {
      SCOPED_TRACE("replay " + std::to_string(replay));
      poisoned();
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      expect_chain_correct();
    }
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  }
}

// The masked layout (an MoE layer's, DeepGEMM's): four experts of one batched problem, each with
// its count of valid rows in device memory — none, one, a mid-tile count, and more than M (read
// as M). Only the valid rows are computed and written (the rest keep the poison); one captured
// graph, replayed after the counts change on the device, follows them (every walk).
TEST(GroupedGemm, TheMaskedLayoutComputesTheValidRowsAlone) {
  for (GemmTuning const& tuning : every_walk()) {
    SCOPED_TRACE(describe(tuning));
    Problem const p{.m = 384, .n = 320, .k = 256, .batch = 4};
    ProblemData const data(p, 77);
    Reference const reference = full_reference_of(data.args());
    void* counts_memory = nullptr;
    ASSERT_EQ(cudaMalloc(&counts_memory, sizeof(int) * 4), cudaSuccess);
    int* const counts = static_cast<int*>(counts_memory);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    auto const set_counts = [&](std::array<int, 4> const& c) {
      ASSERT_EQ(cudaMemcpyAsync(counts, c.data(), sizeof(int) * 4, cudaMemcpyHostToDevice, stream),
                cudaSuccess);
    };
    auto const expect_rows = [&](std::array<int, 4> const& c) {
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      std::array<int, 4> valid{};
      for (int g = 0; g < 4; ++g) valid[g] = std::min(c[g], p.m);
      EXPECT_EQ(data.check(reference, GemmKernel::Auto, valid), "");
    };
    // Eagerly, then captured once and replayed with other counts.
    std::array<int, 4> const first = {0, 1, 200, 1000}, second = {384, 129, 0, 64};
    data.poison_d();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the poison, before the stream's work
    set_counts(first);
    grouped_gemm_masked(data.args(), counts, stream, tuning);
    expect_rows(first);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    grouped_gemm_masked(data.args(), counts, stream, tuning);
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (auto const& c : {second, first}) {
      data.poison_d();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      set_counts(c);
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      expect_rows(c);
    }
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    EXPECT_EQ(cudaFree(counts_memory), cudaSuccess);
  }
}

// The contiguous layout (an MoE layer's, torch._grouped_mm's `offs`): five experts' rows stacked
// in one A and D, their cumulative row ends on the device — an empty first expert, slices ending
// mid-tile, rows past the last end (which keep the poison); then, captured once, replayed with
// other ends (a decreasing one: an empty expert; one past M: clamped), in every walk. Each
// expert's rows against its own float64 product.
TEST(GroupedGemm, TheContiguousLayoutComputesEachGroupsRows) {
  for (GemmTuning const& tuning : every_walk()) {
    SCOPED_TRACE(describe(tuning));
    constexpr int kExperts = 5;
    Problem const p{.m = 700, .n = 320, .k = 256, .batch = kExperts, .broadcast_a = true};
    ProblemData const data(p, 91);
    Reference const full = full_reference_of(data.args());  // batch g: A . B_g on every row
    // The stacked problem: A, and batch 0 of D (the other batches must keep their poison).
    GemmArguments stacked = data.args();
    stacked.batch = 1;
    void* ends_memory = nullptr;
    ASSERT_EQ(cudaMalloc(&ends_memory, sizeof(int) * kExperts), cudaSuccess);
    int* const ends = static_cast<int*>(ends_memory);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    using Ends = std::array<int, kExperts>;
    auto const set_ends = [&](Ends const& e) {
      ASSERT_EQ(cudaMemcpyAsync(ends, e.data(), sizeof(e), cudaMemcpyHostToDevice, stream),
                cudaSuccess);
    };
    // Batch 0 of the expected D: expert g's reference rows in its slice (an end is the largest of
    // it and those before it, clamped to M); the rows past the last end, and the other batches,
    // the poison (valid_rows).
    auto const expect_rows = [&](Ends const& e) {
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      Reference want = full;
      std::size_t const rows = static_cast<std::size_t>(p.n);
      int begin = 0;
      for (int g = 0; g < kExperts; ++g) {
        int const end = std::clamp(std::max(e[g], begin), 0, p.m);
        for (int i = begin; i < end; ++i)
          std::copy_n(full.d.begin() + (static_cast<std::size_t>(g) * p.m + i) * rows, rows,
                      want.d.begin() + static_cast<std::size_t>(i) * rows);
        begin = end;
      }
      std::array<int, kExperts> valid{};
      valid[0] = begin;
      EXPECT_EQ(data.check(want, GemmKernel::Auto, valid), "");
    };
    Ends const first = {0, 130, 130, 450, 600}, second = {200, 100, 520, 700, 900};
    data.poison_d();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the poison, before the stream's work
    set_ends(first);
    grouped_gemm_contiguous(stacked, kExperts, ends, stream, tuning);
    expect_rows(first);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    grouped_gemm_contiguous(stacked, kExperts, ends, stream, tuning);
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (Ends const& e : {second, first}) {
      data.poison_d();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      set_ends(e);
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      expect_rows(e);
    }
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    EXPECT_EQ(cudaFree(ends_memory), cudaSuccess);
  }
}

}  // namespace
}  // namespace warploom::gemm::testing
