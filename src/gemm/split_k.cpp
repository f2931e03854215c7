// src/gemm/split_k.cpp — split-K's launches (split_k.hpp).
#include "split_k.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>

#include "gemm/split_k_fold.hpp"
#include "gemm/split_k_reduce.hpp"  // the reduction kernel (kernels/gemm)
#include "kernel_arguments.hpp"     // with_tile_width, operands_swapped
#include "sm90_instances.hpp"
#include "warploom/cuda_check.hpp"
#include "workspace.hpp"

namespace warploom::gemm {
namespace {

// Elements of A or B per K tile (the same bytes in both designs: one 128-byte swizzle row).
int k_tile_elements(ScalarType t) {
  return sm90::design_shape(ConsumerDesign::Cooperative).tile_k_bytes / size_of(t);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

SplitKOutputType output_type(ScalarType t) {
  switch (t) {
    case ScalarType::F32:
      return SplitKOutputType::F32;
    case ScalarType::F16:
      return SplitKOutputType::F16;
    case ScalarType::BF16:
      return SplitKOutputType::BF16;
    default:
      throw std::logic_error("gemm: internal error: split-K writes an fp16, bf16 or fp32 D only");
  }
}

// Elements between one slice of `x` and the next along K: x is M x K (A) or K x N (B); K runs
// along its contiguous dimension when `k_contiguous`.
std::int64_t slice_step(Matrix const& x, bool k_contiguous, std::int64_t slice_k) {
  return k_contiguous ? slice_k : slice_k * x.ld;
}

// Output tiles of `r` 128 rows high and `tile_n` wide.
std::int64_t tiles_of(GemmArguments const& r, int tile_n) {
  return ceil_div(r.m, 128) * ceil_div(r.n, tile_n) * r.batch;
}

}  // namespace

KSlices split_k_slices(std::int64_t k, int k_tile, int wanted) {
  std::int64_t const tiles = ceil_div(k, k_tile);
  if (k % k_tile == 0) {
    for (int d = wanted; d * 2 > wanted; --d) {
      if (tiles % d == 0) return {.slice_k = k / d, .count = d, .last_k = k / d};
    }
  }
  std::int64_t const slice_k = ceil_div(tiles, wanted) * k_tile;
  auto const count = static_cast<int>(ceil_div(k, slice_k));
  return {.slice_k = slice_k, .count = count, .last_k = k - (count - 1) * slice_k};
}

int selected_tile_n(GemmArguments const& r, int sms) {
  // Widest first; the first is the design's own (0).
  std::span<int const> const widths = sm90::tile_widths(ConsumerDesign::Cooperative);
  for (int width : widths)
    if (tiles_of(r, width) * 2 > sms) return width == widths.front() ? 0 : width;
  // Split-K's regime: the width with the fewest slices' partial sums to add that still reads each
  // operand a few times at most (bf16, H200, 2026-12-04, bench/results/split_k_*_2026-12-04.json:
  // 512x512x65536 128 wide in 8 slices 53 us against 57 at 256 in 16 and 60 at 64 in 4;
  // 64x4096x16384 128 in 4 47 us, 64 in 2 63; 1024x16x8192 64 in 8 12.7 us, 128 in 16 13.8).
  return r.n <= 64 ? 64 : 128;
}

int auto_split_k(GemmArguments const& r, int tile_n, int sms) {
  std::int64_t const tiles = tiles_of(r, tile_n != 0 ? tile_n : 256);
  if (tiles * 2 > sms) return 1;
  std::int64_t const by_sms = sms / tiles;
  // Each slice at least twice the ring's stages long, so that it runs full between filling and
  // draining it (1024x16x8192 in 128 x 64 tiles, 8 stages: 8 slices of 16 K tiles 12.7 us, 16 of
  // 8 13.3).
  int const stages = sm90::design_shape(ConsumerDesign::Cooperative, tile_n).stages;
  std::int64_t const by_k = r.k / (2 * stages * k_tile_elements(r.a.type));
  return static_cast<int>(std::clamp<std::int64_t>(std::min(by_sms, by_k), 1, kMaxSplitK));
}

bool auto_folds(bool swap_ab, std::int64_t m, std::int64_t n, int slices, int tile_m, int tile_n) {
  std::int64_t const inside = std::min<std::int64_t>(m, tile_m) * std::min<std::int64_t>(n, tile_n);
  return swap_ab && slices * inside <= std::int64_t{tile_m} * tile_n;
}

void run_split_k(GemmArguments const& r, GemmTuning tuning, int slices, cudaStream_t stream,
                 bool swap_ab) {
  // The problem the slices compute: D's, or D^T's.
  GemmArguments const v = swap_ab ? operands_swapped(r) : r;
  KSlices const cut = split_k_slices(v.k, k_tile_elements(v.a.type), slices);
  std::int64_t const slice_k = cut.slice_k;
  int const count = cut.count;
  std::int64_t const a_step = slice_step(v.a, v.a.layout == MatrixLayout::RowMajor, slice_k);
  std::int64_t const b_step = slice_step(v.b, v.b.layout == MatrixLayout::ColMajor, slice_k);
  // The workspace's rows are whole 16-byte units (TMA's rule for the slices' D).
  std::int64_t const ldw = ceil_div(v.n, 4) * 4;
  std::int64_t const matrix = v.m * ldw;
  // Equal slices: one launch. Otherwise every slice but the last, then the last (what is left
  // of K).
  int const batched = cut.even() ? count : count - 1;

  // The slices' GEMM: alpha 1, no C, fp32 row-major partial sums; the fp8 scales stay (the
  // partial sums are linear in them).
  GemmArguments p = v;
  p.k = static_cast<int>(slice_k);
  p.batch = std::max(batched, 1);
  p.c = Matrix{};
  p.beta = 0.0f;
  p.alpha = 1.0f;
  p.d_type = ScalarType::F32;
  p.d_layout = MatrixLayout::RowMajor;
  p.ldd = ldw;
  p.batch_stride_d = matrix;
  p.a.batch_stride = a_step;
  p.b.batch_stride = b_step;
  GemmTuning t = tuning;
  t.split_k = 1;
  if (tuning.split_k_reduction == SplitKReduction::InKernel && t.design == ConsumerDesign::Auto)
    t.design = ConsumerDesign::Cooperative;
  t.design = selected_design(p, t.design);
  sm90::KernelConfig const config = sm90::config_of(p, t);
  int const tile_m = sm90::design_shape(config.design).tile_m;
  int const tile_n = sm90::tile_n_of(config);
  bool const fold =
      tuning.split_k_reduction == SplitKReduction::InKernel ||
      (tuning.split_k_reduction == SplitKReduction::Auto && sm90::folds_split_k(config) &&
       auto_folds(swap_ab, v.m, v.n, count, tile_m, tile_n));
  if (fold && !sm90::folds_split_k(config))
    throw std::logic_error("split-K: in-kernel reduction asked of slices that cannot fold");

  SplitKOutput const out{.m = v.m,
                         .n = v.n,
                         .alpha = r.alpha,
                         .beta = r.beta,
                         .transposed = swap_ab,
                         .c = r.c.data,
                         .ldc = r.c.ld,
                         .d = r.d,
                         .d_type = output_type(r.d_type),
                         .ldd = r.ldd};
  std::int64_t const tiles = ceil_div(v.m, tile_m) * ceil_div(v.n, tile_n);
  std::size_t const bytes = fold ? SplitKFold::workspace_bytes(tiles, count, tile_m, tile_n)
                                 : static_cast<std::size_t>(count * matrix) * sizeof(float);
  StreamWorkspace const workspace(bytes, stream);
  auto* const partials = static_cast<float*>(workspace.get());
  p.d = partials;  // the slices' D: their partial sums, or (folding) never written
  SplitKFold sum_in_kernel;
  if (fold) {
    sum_in_kernel = SplitKFold::in(workspace.get(), tiles, count, tile_m, tile_n, out);
    WL_CUDA_CHECK(cudaMemsetAsync(sum_in_kernel.arrivals, 0,
                                  static_cast<std::size_t>(tiles) * sizeof(int), stream));
  }
  sm90::LaunchFn const launch = sm90::instance_for(config);
  if (batched > 0) launch(p, t, sum_in_kernel, stream);
  if (!cut.even()) {
    GemmArguments last = p;
    last.batch = 1;
    last.k = static_cast<int>(cut.last_k);
    last.a.data = static_cast<char const*>(v.a.data) + batched * a_step * size_of(v.a.type);
    last.b.data = static_cast<char const*>(v.b.data) + batched * b_step * size_of(v.b.type);
    last.d = partials + (fold ? 0 : batched * matrix);
    sum_in_kernel.first_slice = batched;
    launch(last, t, sum_in_kernel, stream);
  }
  if (fold) return;
  launch_split_k_reduce(
      {.partials = partials, .ld = ldw, .slice_stride = matrix, .slices = count, .out = out},
      stream);
}

SplitChoice split_k_choice(GemmArguments const& r, GemmTuning const& tuning, int sms,
                           bool splittable) {
  if (!splittable) return {.tuning = with_tile_width(r, tuning, sms)};
  // D^T's split wherever it splits, also where D's own 64-wide tiles would fill the SMs unsplit
  // (H100, 2026-12-06, bench/results/split_k_small_m_h100_2026-12-06/: 32x8192x8192 54.5 us in two
  // slices of D^T against 64-65 for D's 128 tiles of 128 x 64, half of each empty).
  if (tuning.split_k != 1 && r.m <= 64 && r.n > 64 && auto_picks_tile_width(r, tuning)) {
    GemmArguments const v = operands_swapped(r);
    GemmTuning swapped = tuning;
    std::swap(swapped.cluster_m, swapped.cluster_n);
    swapped = with_tile_width(v, swapped, sms);
    int const slices = tuning.split_k == 0 ? auto_split_k(v, swapped.tile_n, sms) : tuning.split_k;
    if (slices > 1) return {.slices = slices, .swap_ab = true, .tuning = swapped};
  }
  GemmTuning const own = with_tile_width(r, tuning, sms);
  int const slices = tuning.split_k == 0 ? auto_split_k(r, own.tile_n, sms) : tuning.split_k;
  return {.slices = slices, .tuning = own};
}

}  // namespace warploom::gemm
