// tests/gpu/ops/gemm_plan_test.cpp
//
// The GEMM plan (warploom/ops/gemm.hpp) on the GPU: a plan's run() writes exactly what gemm()
// writes for the same arguments and configuration (byte for byte: both run the same
// deterministic kernel, and gemm() is checked against the float64 reference in gemm_test), by
// default, with a compiled description, through transposed, sliced and batched views, on the SIMT
// GEMM; and its host overhead: run() on a compiled plan against gemm() and against the kernel's
// own launcher, printed, with the target (run() at most 3 us above gemm()) checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernel_arguments.hpp"
#include "sm90_instances.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"
#include "warploom/ops/gemm.hpp"
#include "warploom/ops/grouped_gemm.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::ops {
namespace {

using gemm::ConsumerDesign;
using gemm::GemmKernel;
using gemm::GemmTuning;
using warploom::testing::DeviceBuffer;

constexpr auto kRow = MatrixLayout::RowMajor;
constexpr auto kCol = MatrixLayout::ColMajor;

// Device memory for `elements` values of `t`, random in [-1, 1).
DeviceBuffer random_buffer(ScalarType t, std::size_t elements, std::uint64_t seed) {
  DeviceBuffer b(elements * static_cast<std::size_t>(gemm::size_of(t)));
  switch (t) {
    case ScalarType::BF16:
      warploom::testing::fill_uniform(b.as<__nv_bfloat16>(), elements, seed);
      break;
    case ScalarType::F16:
      warploom::testing::fill_uniform(b.as<__half>(), elements, seed);
      break;
    case ScalarType::F32:
      warploom::testing::fill_uniform(b.as<float>(), elements, seed);
      break;
    default:
      ADD_FAILURE() << "no random fill for " << gemm::to_string(t);
  }
  return b;
}

// Runs `plan` on the views and gemm() on plan.arguments() of the same views with `tuning` into a
// second D; both D (`d_bytes` from the start of `d`) must be equal byte for byte.
void expect_same_as_gemm(Gemm const& plan, TensorView const& a, TensorView const& b,
                         TensorView const& c, TensorView d, std::size_t d_bytes, float alpha,
                         float beta, GemmTuning const& tuning) {
  DeviceBuffer other(d_bytes);
  warploom::testing::poison(d.data, d_bytes);
  warploom::testing::poison(other.get(), d_bytes);
  plan.run(a, b, c, d, alpha, beta);
  TensorView d2 = d;
  d2.data = other.get();
  gemm::gemm(plan.arguments(a, b, c, d2, alpha, beta), nullptr, tuning);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  warploom::testing::Comparison const cmp =
      warploom::testing::compare_bytes(d.data, other.get(), d_bytes);
  EXPECT_TRUE(cmp.equal()) << plan.describe() << ": " << cmp.mismatched_bytes
                           << " bytes differ from gemm()'s, first at byte " << cmp.first_mismatch;
}

// gemm()'s tuning for `td` of a plan whose D is column-major when `transposed` (the kernel's tile
// width is then D's rows).
GemmTuning tuning_of(TileDescription const& td, bool transposed = false) {
  GemmTuning t;
  t.design = td.design;
  if (td.opclass == OperatorClass::TensorOp) t.tile_n = transposed ? td.tile_m : td.tile_n;
  t.stages = td.stages;
  t.staging_buffers = td.staging_buffers;
  t.cluster_m = td.cluster_m;
  t.cluster_n = td.cluster_n;
  t.raster_panel = td.raster_panel;
  t.max_ctas = td.max_ctas;
  t.kernel = td.opclass == OperatorClass::Simt ? GemmKernel::Simt : GemmKernel::TensorCore;
  t.split_k = td.scheduler == TileScheduler::SplitK ? td.split_k : 1;
  if (td.scheduler == TileScheduler::StreamK) t.tile_scheduling = gemm::TileScheduling::StreamK;
  return t;
}

Gemm bf16_tn(MatrixLayout d = kRow) {
  return Gemm({.element = ScalarType::BF16, .layout_a = kRow, .layout_b = kCol, .layout_d = d});
}

TEST(GemmPlanRun, DefaultAndCompiledWriteWhatGemmWrites) {
  int const m = 300, n = 520, k = 264;
  DeviceBuffer a = random_buffer(ScalarType::BF16, std::size_t{m} * k, 1);
  DeviceBuffer b = random_buffer(ScalarType::BF16, std::size_t{k} * n, 2);
  DeviceBuffer d(std::size_t{m} * n * 2);
  TensorView const va = row_major(a.get(), ScalarType::BF16, m, k);
  TensorView const vb = column_major(b.get(), ScalarType::BF16, k, n);
  TensorView const vd = row_major(d.get(), ScalarType::BF16, m, n);
  Gemm plan = bf16_tn();
  // The default: the design gemm() picks by size, compiled (here: found prebuilt) on first use.
  expect_same_as_gemm(plan, va, vb, {}, vd, d.bytes(), 1.5f, 0.0f, GemmTuning{});
  for (TileDescription td : plan.tile_descriptions()) {
    if (!plan.is_prebuilt(td)) continue;  // no JIT compiles in this test
    td.raster_panel = 2;
    SCOPED_TRACE(to_string(td));
    plan.compile(td);
    expect_same_as_gemm(plan, va, vb, {}, vd, d.bytes(), 1.0f, 0.0f, tuning_of(td));
  }
}

// A plan with a fused epilogue runs the epilogue's own instance, by default and compiled: its D is
// gemm()'s with the same epilogue (which gemm_test checks against the float64 reference), and a
// plan that ran the plain kernel instead would differ.
TEST(GemmPlanRun, AFusedEpilogueRunsItsOwnInstance) {
  int const m = 300, n = 520, k = 264;
  DeviceBuffer a = random_buffer(ScalarType::BF16, std::size_t{m} * k, 11);
  DeviceBuffer b = random_buffer(ScalarType::BF16, std::size_t{k} * n, 12);
  DeviceBuffer bias = random_buffer(ScalarType::BF16, std::size_t{n}, 13);
  DeviceBuffer d(std::size_t{m} * n * 2);
  TensorView const va = row_major(a.get(), ScalarType::BF16, m, k);
  TensorView const vb = column_major(b.get(), ScalarType::BF16, k, n);
  TensorView const vd = row_major(d.get(), ScalarType::BF16, m, n);
  Gemm plan = bf16_tn();
  GemmEpilogue epilogue;
  epilogue.activation = Activation::GELU;
  epilogue.bias = bias.get();
  epilogue.bias_type = ScalarType::BF16;
  epilogue.bias_broadcast = gemm::Broadcast::PerColumn;
  plan.set_epilogue(epilogue);
  expect_same_as_gemm(plan, va, vb, {}, vd, d.bytes(), 1.0f, 0.0f, GemmTuning{});
  int compiled = 0;
  for (TileDescription const& td : plan.tile_descriptions()) {
    if (!plan.is_prebuilt(td)) continue;                  // no JIT compiles in this test
    if (td.scheduler == TileScheduler::SplitK) continue;  // the plain epilogue only (below)
    SCOPED_TRACE(to_string(td));
    plan.compile(td);
    expect_same_as_gemm(plan, va, vb, {}, vd, d.bytes(), 1.0f, 0.0f, tuning_of(td));
    ++compiled;
  }
  if (compiled == 0) GTEST_SKIP() << "this build prebuilds no bf16 column-bias GELU instance";
}

// A bf16 "tn" problem on the device: random A (M x K, row-major), B (K x N, column-major) and C,
// D (row-major, written by the test), and their views.
struct TnOperands {
  DeviceBuffer a, b, c, d;
  TensorView va, vb, vc, vd;
  TnOperands(int m, int n, int k, std::uint64_t seed)
      : a(random_buffer(ScalarType::BF16, std::size_t(m) * k, seed)),
        b(random_buffer(ScalarType::BF16, std::size_t(k) * n, seed + 1)),
        c(random_buffer(ScalarType::BF16, std::size_t(m) * n, seed + 2)),
        d(std::size_t(m) * n * 2),
        va(row_major(a.get(), ScalarType::BF16, m, k)),
        vb(column_major(b.get(), ScalarType::BF16, k, n)),
        vc(row_major(c.get(), ScalarType::BF16, m, n)),
        vd(row_major(d.get(), ScalarType::BF16, m, n)) {}
};

// The first of `plan`'s descriptions with `scheduler` (the cooperative default's, listed first).
TileDescription first_with(Gemm const& plan, TileScheduler scheduler) {
  std::vector<TileDescription> const all = plan.tile_descriptions();
  auto const it = std::find_if(
      all.begin(), all.end(), [&](TileDescription const& td) { return td.scheduler == scheduler; });
  EXPECT_NE(it, all.end()) << to_string(scheduler);
  return it == all.end() ? TileDescription{} : *it;
}

// A grouped plan compiled to `td`, which cuts K, is refused with `message`: the grouped kernel runs
// each group's tiles whole.
void expect_grouped_refuses(TileDescription const& td, TnOperands const& x,
                            std::string const& message) {
  GroupedGemm grouped(
      {.element = ScalarType::BF16, .layout_a = kRow, .layout_b = kCol, .layout_d = kRow});
  grouped.plan().compile(td);
  GemmGroup const group{.a = x.va, .b = x.vb, .c = {}, .d = x.vd};
  try {
    grouped.run({&group, 1});
    ADD_FAILURE() << "a grouped plan compiled to " << to_string(td) << " ran";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

// Split-K descriptions (compiled: the slices' fp32 instance, a JIT compile where not prebuilt)
// write what gemm() writes with the same slices, beta and C included; a fused epilogue set after
// compile is refused naming the description and the rule, and so is a grouped plan compiled to
// split K.
TEST(GemmPlanRun, SplitKDescriptionsWriteWhatGemmWrites) {
  TnOperands const x(200, 264, 8192, 21);
  Gemm plan = bf16_tn();
  TileDescription split = first_with(plan, TileScheduler::SplitK);
  ASSERT_EQ(split.scheduler, TileScheduler::SplitK);
  for (int slices : {0, 5}) {
    split.split_k = slices;
    SCOPED_TRACE(to_string(split));
    plan.compile(split);
    expect_same_as_gemm(plan, x.va, x.vb, x.vc, x.vd, x.d.bytes(), 0.5f, 0.25f, tuning_of(split));
  }
  GemmEpilogue relu;
  relu.activation = Activation::ReLU;
  plan.set_epilogue(relu);
  plan.compile(split);
  try {
    plan.run(x.va, x.vb, {}, x.vd, 1.0f, 0.0f);
    ADD_FAILURE() << "a fused epilogue on a split-K description ran";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("split-k scheduler, 5 slices) splits K, and split-K takes "
                                         "the plain epilogue"),
              std::string::npos)
        << e.what();
  }
  expect_grouped_refuses(split, x, "GroupedGemm.run: the plan's compiled tile description");
}

// A D of few rows splits on D^T (split_k_choice's swap): the default run, description_for's
// description compiled, and the turned 64-wide tile with slices of its own write what gemm()
// writes with the same split, C and beta included.
TEST(GemmPlanRun, SplitKOnTheTransposeWritesWhatGemmWrites) {
  TnOperands const x(40, 1024, 8192, 22);  // 8 tiles of D^T's 128 x 64: 8 slices on 132 SMs
  Gemm plan = bf16_tn();
  GemmTuning const auto_split{.kernel = GemmKernel::TensorCore};
  expect_same_as_gemm(plan, x.va, x.vb, x.vc, x.vd, x.d.bytes(), 0.5f, 0.25f, auto_split);
  TileDescription turned = plan.description_for(x.va, x.vb, x.vc, x.vd);
  ASSERT_EQ(turned.scheduler, TileScheduler::SplitK);
  ASSERT_EQ(turned.tile_m, 64);
  SCOPED_TRACE(to_string(turned));
  plan.compile(turned);
  expect_same_as_gemm(plan, x.va, x.vb, x.vc, x.vd, x.d.bytes(), 0.5f, 0.25f, auto_split);
  turned.split_k = 3;
  plan.compile(turned);
  expect_same_as_gemm(plan, x.va, x.vb, x.vc, x.vd, x.d.bytes(), 0.5f, 0.25f,
                      GemmTuning{.kernel = GemmKernel::TensorCore, .split_k = 3});
}

// Stream-K descriptions (the cooperative default's instance, its workspace from the pool) write
// what gemm() writes with stream-K, C and beta included (the pieces added in a fixed order: the
// same bytes); a grouped plan compiled to stream-K is refused by name.
TEST(GemmPlanRun, StreamKDescriptionsWriteWhatGemmWrites) {
  TnOperands const x(1000, 1104, 2504, 31);  // 40 tiles of 128 x 256: every tile cut
  Gemm plan = bf16_tn();
  TileDescription const stream_k = first_with(plan, TileScheduler::StreamK);
  ASSERT_EQ(stream_k.scheduler, TileScheduler::StreamK);
  SCOPED_TRACE(to_string(stream_k));
  plan.compile(stream_k);
  expect_same_as_gemm(plan, x.va, x.vb, x.vc, x.vd, x.d.bytes(), 0.5f, 0.25f, tuning_of(stream_k));
  expect_grouped_refuses(stream_k, x,
                         "stream-k scheduler) cuts K, and the grouped kernel does not");
}

// An Auto plan runs views TMA cannot read as they lie (contiguous operands of odd widths) the way
// gemm()'s Auto does — aligned copies for the tensor cores — and writes what gemm() writes.
TEST(GemmPlanRun, AnAutoPlanRunsUnalignedViewsAsGemmDoes) {
  int const m = 300, n = 500, k = 700;  // rows of 1400 and 1000 bytes: no whole 16-byte units
  DeviceBuffer a = random_buffer(ScalarType::BF16, std::size_t{m} * k, 31);
  DeviceBuffer b = random_buffer(ScalarType::BF16, std::size_t{k} * n, 32);
  DeviceBuffer d(std::size_t{m} * n * 2);
  TensorView const va = row_major(a.get(), ScalarType::BF16, m, k);
  TensorView const vb = column_major(b.get(), ScalarType::BF16, k, n);
  TensorView const vd = row_major(d.get(), ScalarType::BF16, m, n);
  Gemm const plan = bf16_tn();
  EXPECT_EQ(plan.description_for(va, vb, {}, vd).opclass, OperatorClass::TensorOp);
  expect_same_as_gemm(plan, va, vb, {}, vd, d.bytes(), 1.0f, 0.0f, GemmTuning{});
}

TEST(GemmPlanRun, TransposedSlicedAndBatchedViews) {
  // D column-major (the kernel computes D^T): the bf16 "tn" instances run it too, so nothing is
  // compiled. A is a slice of a wider, padded matrix; B the transpose of a row-major weight; C is
  // read with beta; three batches with padded batch strides.
  int const m = 200, n = 136, k = 96, batch = 3, lda = 128;
  std::int64_t const batch_a = std::int64_t{m + 8} * lda;
  DeviceBuffer a = random_buffer(ScalarType::BF16, static_cast<std::size_t>(batch_a * batch), 3);
  DeviceBuffer w = random_buffer(ScalarType::BF16, std::size_t{n} * k * batch, 4);
  DeviceBuffer c = random_buffer(ScalarType::BF16, std::size_t{m} * n * batch, 5);
  DeviceBuffer d(std::size_t{m} * n * batch * 2);
  TensorView va{.data = static_cast<char*>(a.get()) + 8 * lda * 2,  // rows 8..207
                .dtype = ScalarType::BF16,
                .batch = batch,
                .rows = m,
                .cols = k,
                .batch_stride = batch_a,
                .row_stride = lda,
                .col_stride = 1};
  TensorView const vb = row_major(w.get(), ScalarType::BF16, n, k, batch).transposed();
  TensorView const vc = column_major(c.get(), ScalarType::BF16, m, n, batch);
  TensorView const vd = column_major(d.get(), ScalarType::BF16, m, n, batch);
  Gemm plan = bf16_tn(kCol);
  expect_same_as_gemm(plan, va, vb, vc, vd, d.bytes(), 1.0f, 0.5f, GemmTuning{});
  TileDescription td = plan.tile_descriptions().front();
  td.cluster_m = 2;  // D's 2x1 cluster is the kernel's 1x2: prebuilt in every build
  ASSERT_TRUE(plan.is_prebuilt(td));
  plan.compile(td);
  expect_same_as_gemm(plan, va, vb, vc, vd, d.bytes(), 1.0f, 0.5f, tuning_of(td, true));
}

TEST(GemmPlanRun, SimtPlans) {
  int const m = 130, n = 70, k = 33;
  DeviceBuffer a = random_buffer(ScalarType::F32, std::size_t{m} * k, 6);
  DeviceBuffer b = random_buffer(ScalarType::F32, std::size_t{k} * n, 7);
  DeviceBuffer d(std::size_t{m} * n * 4);
  Gemm plan(ScalarType::F32, kRow);
  ASSERT_EQ(plan.opclass(), OperatorClass::Simt);
  TensorView const va = row_major(a.get(), ScalarType::F32, m, k);
  TensorView const vb = row_major(b.get(), ScalarType::F32, k, n);
  TensorView const vd = row_major(d.get(), ScalarType::F32, m, n);
  GemmTuning simt;
  simt.kernel = GemmKernel::Simt;
  expect_same_as_gemm(plan, va, vb, {}, vd, d.bytes(), 1.0f, 0.0f, simt);
  TileDescription td = plan.tile_descriptions().front();
  td.raster_panel = 3;
  plan.compile(td);
  expect_same_as_gemm(plan, va, vb, {}, vd, d.bytes(), 1.0f, 0.0f, tuning_of(td));
}

// alpha and beta as one-element device views (EpilogueTensors::alpha, beta): the plan's D is
// gemm()'s with the same values passed from the host (the kernels compute alike either way;
// gemm_test checks device scalars against the float64 reference), on both operator classes, and a
// CUDA graph that captured one run replays with the values the views hold at each replay.
TEST(GemmPlanRun, DeviceScalarsAndAGraphReplay) {
  int const m = 200, n = 136, k = 96;
  struct Case {
    ScalarType type;
    MatrixLayout layout_b;
  };
  for (Case const& c : {Case{ScalarType::BF16, kCol}, Case{ScalarType::F32, kRow}}) {
    SCOPED_TRACE(gemm::to_string(c.type));
    std::size_t const size = static_cast<std::size_t>(gemm::size_of(c.type));
    DeviceBuffer a = random_buffer(c.type, std::size_t{m} * k, 21);
    DeviceBuffer b = random_buffer(c.type, std::size_t{k} * n, 22);
    DeviceBuffer cm = random_buffer(c.type, std::size_t{m} * n, 23);
    DeviceBuffer d(std::size_t{m} * n * size), expected(std::size_t{m} * n * size);
    DeviceBuffer scalars(2 * sizeof(float));
    TensorView const va = row_major(a.get(), c.type, m, k);
    TensorView const vb =
        c.layout_b == kCol ? column_major(b.get(), c.type, k, n) : row_major(b.get(), c.type, k, n);
    TensorView const vc = row_major(cm.get(), c.type, m, n);
    TensorView const vd = row_major(d.get(), c.type, m, n);
    Gemm const plan(
        {.element = c.type, .layout_a = kRow, .layout_b = c.layout_b, .layout_d = kRow});
    EpilogueTensors scalar_views;
    scalar_views.alpha = row_major(scalars.as<float>(), ScalarType::F32, 1, 1);
    scalar_views.beta = row_major(scalars.as<float>() + 1, ScalarType::F32, 1, 1);
    GemmTuning tuning;
    tuning.kernel =
        plan.opclass() == OperatorClass::Simt ? GemmKernel::Simt : GemmKernel::TensorCore;

    cudaStream_t stream = nullptr;
    WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    // Relaxed: run() asks the driver about the device and its pointers before it launches, which
    // the default global capture mode refuses as unsafe.
    WL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    plan.run(va, vb, vc, vd, scalar_views, 1.0f, 0.0f, stream);
    WL_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    WL_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (auto [alpha, beta] :
         {std::pair{1.5f, 0.0f}, std::pair{-0.5f, 2.0f}, std::pair{0.0f, 1.0f}}) {
      SCOPED_TRACE("alpha " + std::to_string(alpha) + " beta " + std::to_string(beta));
      float const values[2] = {alpha, beta};
      WL_CUDA_CHECK(cudaMemcpy(scalars.get(), values, sizeof(values), cudaMemcpyHostToDevice));
      for (DeviceBuffer const* out : {&d, &expected})
        warploom::testing::poison(out->get(), out->bytes());
      // The poison and the fills ran on the legacy stream, which a non-blocking stream does not
      // wait for.
      WL_CUDA_CHECK(cudaDeviceSynchronize());
      WL_CUDA_CHECK(cudaGraphLaunch(exec, stream));
      WL_CUDA_CHECK(cudaStreamSynchronize(stream));
      TensorView ve = vd;
      ve.data = expected.get();
      gemm::gemm(plan.arguments(va, vb, vc, ve, alpha, beta), nullptr, tuning);
      WL_CUDA_CHECK(cudaDeviceSynchronize());
      warploom::testing::Comparison const cmp =
          warploom::testing::compare_bytes(d.get(), expected.get(), d.bytes());
      EXPECT_TRUE(cmp.equal()) << plan.describe() << ": " << cmp.mismatched_bytes
                               << " bytes differ from gemm()'s with host scalars, first at byte "
                               << cmp.first_mismatch;
    }
    WL_CUDA_CHECK(cudaGraphExecDestroy(exec));
    WL_CUDA_CHECK(cudaGraphDestroy(graph));
    WL_CUDA_CHECK(cudaStreamDestroy(stream));
  }
}

TEST(GemmPlanRun, AViewOfAnotherDeviceOrTypeIsRefused) {
  DeviceBuffer a = random_buffer(ScalarType::BF16, 64 * 64, 8);
  Gemm const plan = bf16_tn();
  TensorView va = row_major(a.get(), ScalarType::BF16, 64, 64);
  TensorView const vb = column_major(a.get(), ScalarType::BF16, 64, 64);
  TensorView const vd = row_major(a.get(), ScalarType::BF16, 64, 64);
  int device = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  va.device = device + 1;
  try {
    plan.run(va, vb, {}, vd);
    ADD_FAILURE() << "a view of another device ran";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("lives on device"), std::string::npos) << e.what();
  }
}

// ---- Host overhead ---------------------------------------------------------------------------

// Median host time per call of `call`, in microseconds: batches of `calls` enqueues (timed) with
// the stream drained between them (not timed), `batches` times, interleaved with the other
// contenders by the caller. A 128^3 problem is a single tile: the GPU keeps up, the queue never
// fills, and the time is the host's.
struct Contender {
  char const* name;
  std::function<void()> call;
  std::vector<double> us_per_call;
};

void time_interleaved(std::vector<Contender>& contenders, int batches, int calls) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < batches; ++i) {
    for (Contender& c : contenders) {
      WL_CUDA_CHECK(cudaDeviceSynchronize());
      auto const start = clock::now();
      for (int j = 0; j < calls; ++j) c.call();
      auto const stop = clock::now();
      c.us_per_call.push_back(std::chrono::duration<double, std::micro>(stop - start).count() /
                              calls);
    }
  }
  WL_CUDA_CHECK(cudaDeviceSynchronize());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(GemmPlanOverhead, RunOnACompiledPlanAgainstGemmAndTheLauncher) {
  int const s = 128;
  DeviceBuffer a = random_buffer(ScalarType::BF16, s * s, 9);
  DeviceBuffer b = random_buffer(ScalarType::BF16, s * s, 10);
  DeviceBuffer d(s * s * 2);
  TensorView const va = row_major(a.get(), ScalarType::BF16, s, s);
  TensorView const vb = column_major(b.get(), ScalarType::BF16, s, s);
  TensorView const vd = row_major(d.get(), ScalarType::BF16, s, s);
  cudaStream_t stream = nullptr;
  WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  Gemm compiled = bf16_tn();
  TileDescription const td = compiled.tile_descriptions().front();  // cooperative default
  compiled.compile(td);
  Gemm by_default = bf16_tn();
  by_default.compile();
  GemmArguments const args = compiled.arguments(va, vb, {}, vd);
  GemmTuning const tuning = tuning_of(td);
  // The floor: the instance's launcher on arguments resolved once (TMA descriptors, grid, launch).
  GemmArguments const resolved = gemm::kernel_arguments(args, GemmKernel::TensorCore);
  gemm::sm90::LaunchFn const launch =
      gemm::sm90::instance_for(gemm::sm90::config_of(resolved, tuning));

  std::vector<Contender> contenders = {
      {"launcher alone", [&] { launch(resolved, tuning, {}, stream); }, {}},
      {"gemm::gemm()", [&] { gemm::gemm(args, stream, tuning); }, {}},
      {"plan.run(), compiled", [&] { compiled.run(va, vb, {}, vd, 1.0f, 0.0f, stream); }, {}},
      {"plan.run(), default", [&] { by_default.run(va, vb, {}, vd, 1.0f, 0.0f, stream); }, {}},
  };
  time_interleaved(contenders, /*batches=*/5, /*calls=*/50);  // warm-up
  for (Contender& c : contenders) c.us_per_call.clear();
  time_interleaved(contenders, /*batches=*/31, /*calls=*/200);
  WL_CUDA_CHECK(cudaStreamDestroy(stream));

  double const floor = median(contenders[0].us_per_call);
  std::printf("host time per call, bf16 %dx%dx%d (median of 31 batches of 200):\n", s, s, s);
  for (Contender const& c : contenders)
    std::printf("  %-22s %6.2f us  (%+5.2f us over the launcher)\n", c.name, median(c.us_per_call),
                median(c.us_per_call) - floor);
  double const over_gemm = median(contenders[2].us_per_call) - median(contenders[1].us_per_call);
  std::printf("  plan.run() - gemm(): %+.2f us (target: at most 3 us)\n", over_gemm);
  EXPECT_LE(over_gemm, 3.0);
}

}  // namespace
}  // namespace warploom::ops
