// src/ops/gemm.cpp
//
// The GEMM plan (warploom/ops/gemm.hpp). It adds no rule of its own to gemm(): a plan's type
// combination, operator class and kernel configuration are what gemm::check_arguments,
// selected_kernel and sm90::config_of say for a stand-in problem of the plan's types and layouts,
// and every run goes through gemm::kernel_arguments (gemm.cpp's checks and transposition). What
// the plan adds is what only it knows: which operand came from where, views and their strides,
// the configuration the user chose, and the kernel it keeps so that run() neither looks it up
// nor compiles it.
#include "warploom/ops/gemm.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "device.hpp"
#include "gemm/simt/shape.hpp"
#include "gemm/simt/simt_gemm_dispatch.hpp"
#include "kernel_arguments.hpp"
#include "repack.hpp"
#include "sm90_instances.hpp"
#include "split_k.hpp"
#include "stream_k.hpp"
#include "warploom/ts/model.hpp"
#include "warploom/ts/schedule_unit.hpp"

namespace warploom::ops {

namespace sm90 = gemm::sm90;
using gemm::ConsumerDesign;
using gemm::GemmKernel;
using gemm::GemmTuning;

std::string_view to_string(Arch a) {
  switch (a) {
    case Arch::Sm80:
      return "sm_80";
    case Arch::Sm90:
      return "sm_90a";
    case Arch::Sm100:
      return "sm_100a";
  }
  return "sm_?";
}

namespace {

// ---- Declaring a plan ---------------------------------------------------------------------------

// One property (type or layout) of one operand, and where it came from, for the messages.
template <class T>
struct Given {
  std::optional<T> value;
  std::string source;  // e.g. "element_a", "tensor a", "element"
};

std::string text(ScalarType t) {
  return std::string(gemm::to_string(t));
}
std::string text(MatrixLayout l) {
  return std::string(gemm::to_string(l));
}

// The layout an example tensor shows, if it shows one: a view of extent 1 in a dimension reads as
// either layout, and leaves the choice to the next source.
std::optional<MatrixLayout> layout_of_example(TensorView const& t, char operand) {
  bool const row = t.is(MatrixLayout::RowMajor);
  bool const col = t.is(MatrixLayout::ColMajor);
  if (!row && !col)
    throw std::invalid_argument(fmt::format(
        "Gemm: example tensor {} ({}) is neither row-major (column stride 1) nor column-major "
        "(row stride 1): a GEMM operand has one unit stride",
        operand, to_string(t)));
  if (row && col) return std::nullopt;
  return row ? MatrixLayout::RowMajor : MatrixLayout::ColMajor;
}

// An operand's own type or layout: its example tensor's, or its element_x / layout_x; both given
// must agree (the seed lets the tensor win silently; a disagreement is a mistake to name).
template <class T>
Given<T> own(std::optional<T> from_tensor, std::optional<T> explicit_value, char operand,
             char const* field) {
  std::string const field_name = fmt::format("{}_{}", field, operand);
  if (from_tensor && explicit_value && *from_tensor != *explicit_value) {
    std::string const why = fmt::format(
        "Gemm: example tensor {} is {} but {} = {}: give one of them, or make them agree", operand,
        text(*from_tensor), field_name, text(*explicit_value));
    if constexpr (std::is_same_v<T, ScalarType>) throw DtypeError(why);
    throw std::invalid_argument(why);
  }
  if (from_tensor) return {from_tensor, fmt::format("tensor {}", operand)};
  if (explicit_value) return {explicit_value, field_name};
  return {};
}

template <class T>
T required(Given<T> const& g, std::optional<T> generic, char const* what, char operand,
           char const* field) {
  if (g.value) return *g.value;
  if (generic) return *generic;
  throw std::invalid_argument(
      fmt::format("Gemm: no {} for {}: set the generic {}, {}_{}, or the example tensor {}", what,
                  static_cast<char>(operand - 'a' + 'A'), field, field, operand, operand));
}

// C and D share their type and layout: each one's own value, else the other's, else the generic.
template <class T>
T shared_cd(Given<T> const& c, Given<T> const& d, std::optional<T> generic, char const* what,
            char const* field) {
  if (c.value && d.value && *c.value != *d.value)
    throw std::invalid_argument(fmt::format(
        "Gemm: C is {} ({}) and D is {} ({}): C and D share one {} (the kernels read C in D's "
        "type and layout)",
        text(*c.value), c.source, text(*d.value), d.source, what));
  if (d.value) return *d.value;
  if (c.value) return *c.value;
  if (generic) return *generic;
  throw std::invalid_argument(fmt::format(
      "Gemm: no {} for C and D: set the generic {}, {}_c or {}_d, or the example tensor c or d",
      what, field, field, field));
}

std::optional<ScalarType> dtype_of(std::optional<TensorView> const& t) {
  return t ? std::optional<ScalarType>(t->dtype) : std::nullopt;
}

GemmTypes resolve_types(GemmOptions const& o) {
  auto const layout = [](std::optional<TensorView> const& t, char operand) {
    return t ? layout_of_example(*t, operand) : std::nullopt;
  };
  GemmTypes t{};
  t.a = required(own(dtype_of(o.a), o.element_a, 'a', "element"), o.element, "element type", 'a',
                 "element");
  t.b = required(own(dtype_of(o.b), o.element_b, 'b', "element"), o.element, "element type", 'b',
                 "element");
  t.c = t.d = shared_cd(own(dtype_of(o.c), o.element_c, 'c', "element"),
                        own(dtype_of(o.d), o.element_d, 'd', "element"), o.element, "element type",
                        "element");
  // A layout nothing names is row-major when an example tensor of extent 1 allowed either (what a
  // contiguous tensor of that shape is); otherwise it must be named.
  auto const with_example_default = [&](std::optional<TensorView> const& example) {
    return o.layout
               ? o.layout
               : (example ? std::optional<MatrixLayout>(MatrixLayout::RowMajor) : std::nullopt);
  };
  t.layout_a = required(own(layout(o.a, 'a'), o.layout_a, 'a', "layout"), with_example_default(o.a),
                        "layout", 'a', "layout");
  t.layout_b = required(own(layout(o.b, 'b'), o.layout_b, 'b', "layout"), with_example_default(o.b),
                        "layout", 'b', "layout");
  t.layout_c = t.layout_d = shared_cd(own(layout(o.c, 'c'), o.layout_c, 'c', "layout"),
                                      own(layout(o.d, 'd'), o.layout_d, 'd', "layout"),
                                      with_example_default(o.c ? o.c : o.d), "layout", "layout");

  // The accumulator the kernels use: fp32, fp64 for fp64 inputs (the SIMT GEMM's fp64 schedule).
  ScalarType const accumulator = t.a == ScalarType::F64 ? ScalarType::F64 : ScalarType::F32;
  if (o.element_accumulator && *o.element_accumulator != accumulator)
    throw std::invalid_argument(
        *o.element_accumulator == ScalarType::F16 && t.a == ScalarType::F16
            ? std::string("Gemm: element_accumulator = fp16: no kernel of this build accumulates "
                          "in fp16 (the tensor-core and SIMT GEMMs accumulate fp16 inputs in "
                          "fp32); leave it unset or pass fp32")
            : fmt::format("Gemm: element_accumulator = {}: {} inputs accumulate in {} in this "
                          "build's kernels; leave it unset or pass {}",
                          text(*o.element_accumulator), text(t.a), text(accumulator),
                          text(accumulator)));
  t.accumulator = accumulator;
  return t;
}

// A problem of the plan's types and layouts that breaks no other rule, for asking gemm's own checks
// which combinations and kernels exist: 256-byte aligned stand-in addresses (the checks read
// pointers' values only), extents that are multiples of every alignment, and beta = 1 so that C's
// rules are checked too (not for an fp8 D, which takes no C).
GemmArguments stand_in(GemmTypes const& t) {
  auto const fake = [](std::uintptr_t i) { return reinterpret_cast<void*>(i << 20); };
  GemmArguments p;
  p.m = p.n = p.k = 256;
  p.a = {fake(1), t.a, t.layout_a};
  p.b = {fake(2), t.b, t.layout_b};
  p.c = {fake(3), t.c, t.layout_c};
  p.d = fake(4);
  p.d_type = t.d;
  p.d_layout = t.layout_d;
  bool const fp8_d = t.d == ScalarType::E4M3 || t.d == ScalarType::E5M2;
  p.beta = fp8_d ? 0.0f : 1.0f;
  return p;
}

std::string combination(GemmTypes const& t) {
  return fmt::format("{} x {} -> {} (A x B -> C/D; {} A, {} B, {} C/D)", text(t.a), text(t.b),
                     text(t.d), text(t.layout_a), text(t.layout_b), text(t.layout_d));
}

// The kernel a plan of `t` runs when asked for `c`, or the refusal naming the combination.
GemmKernel kernel_for(GemmTypes const& t, OperatorClass c) {
  GemmArguments const probe = stand_in(t);
  try {
    gemm::check_arguments(probe, GemmKernel::Auto);
  } catch (std::invalid_argument const& e) {
    throw std::invalid_argument(
        fmt::format("Gemm: no kernel runs {}: {}", combination(t), e.what()));
  }
  switch (c) {
    case OperatorClass::Auto:
      return gemm::selected_kernel(probe, GemmKernel::Auto);
    case OperatorClass::Simt:
      return GemmKernel::Simt;
    case OperatorClass::TensorOp:
      try {
        gemm::check_arguments(probe, GemmKernel::TensorCore);
      } catch (std::invalid_argument const& e) {
        throw std::invalid_argument(
            fmt::format("Gemm: opclass = tensor-op: the tensor cores do not run {}: {}",
                        combination(t), e.what()));
      }
      return GemmKernel::TensorCore;
  }
  throw std::logic_error("Gemm: internal error: unknown operator class");
}

// ---- Configurations -----------------------------------------------------------------------------

// The candidates tile_descriptions() filters: every value gemm() accepts for GemmTuning's stages,
// staging buffers and cluster (gemm.cpp). The filter — the build verified the schedule and it fits
// shared memory — decides; ops_test checks that every verified sm90 schedule is listed.
constexpr int kMinStages = 2, kMaxStages = 8;
constexpr int kMaxStagingBuffers = 2;
constexpr std::pair<int, int> kClusters[] = {{1, 1}, {2, 1}, {1, 2}};

bool is_cluster(int m, int n) {
  return std::find(std::begin(kClusters), std::end(kClusters), std::pair{m, n}) !=
         std::end(kClusters);
}

// The SIMT GEMM's shape for the plan's accumulator (kernels/gemm/simt/shape.hpp).
struct SimtShape {
  int tile_m, tile_n, tile_k, stages;
  std::string_view schedule;
};
template <class S>
SimtShape simt_shape_from() {
  static constexpr auto kName = gemm::simt::schedule_name<S>();
  return {S::kTileM, S::kTileN, S::kTileK, S::kStages, kName.view()};
}
SimtShape simt_shape(ScalarType accumulator) {
  return accumulator == ScalarType::F64 ? simt_shape_from<gemm::simt::DefaultShape<8>>()
                                        : simt_shape_from<gemm::simt::DefaultShape<4>>();
}

bool registered(std::string_view schedule) {
  for (ts::RegisteredSchedule const& s : ts::registered_schedules())
    if (s.name == schedule) return true;
  return false;
}

[[noreturn]] void refuse_td(TileDescription const& td, std::string const& rule) {
  throw std::invalid_argument(
      fmt::format("Gemm.compile: {} (tile description: {})", rule, to_string(td)));
}

// A copyable atomic: the caches run() fills (a plan may run on several threads at once) travel
// with a copied plan.
template <class T>
struct Cached {
  std::atomic<T> value;
  explicit Cached(T v = T{}) : value(v) {}
  Cached(Cached const& o) : value(o.value.load()) {}
  Cached& operator=(Cached const& o) {
    value.store(o.value.load());
    return *this;
  }
};

}  // namespace

// ---- The plan -----------------------------------------------------------------------------------

struct Gemm::Impl {
  Arch arch = Arch::Sm90;
  GemmTypes types{};
  GemmKernel kernel = GemmKernel::TensorCore;  // TensorCore or Simt
  // Made with OperatorClass::Auto: views the tensor cores cannot read as they lie go to gemm()'s
  // Auto (aligned copies for the tensor cores, or the SIMT GEMM), as they would through gemm().
  bool auto_opclass = true;
  bool transposed = false;      // column-major D: the kernel computes D^T
  GemmArguments kernel_probe;   // stand_in(types) as the kernel sees it
  GemmArguments swapped_probe;  // its operands swapped: what a split on D^T's kernel sees
  GemmEpilogue epilogue;
  float const* scale_a = nullptr;
  float const* scale_b = nullptr;
  float const* scale_d = nullptr;
  float* amax_d = nullptr;

  // compile(td): the description, its tuning (in the kernel's terms) and its tensor-core kernel.
  std::optional<TileDescription> compiled;
  GemmTuning compiled_tuning;
  sm90::LaunchFn compiled_launch = nullptr;
  sm90::EpilogueConfig compiled_epilogue;  // the fused epilogue compiled_launch runs
  // Without one: the default configuration of each design and tile width Auto may pick (the
  // cooperative design's widths, then ping-pong's own), obtained on first use — a run finds its
  // launcher here, not by a search of the prebuilt instances.
  static constexpr std::size_t kDefaultSlots = 4;
  mutable Cached<sm90::LaunchFn> default_launch[kDefaultSlots];
  // The current device, checked against the plan's architecture the first time a run sees it.
  detail::RunDevice device;

  void set_kernel(OperatorClass c) {
    kernel = kernel_for(types, c);
    auto_opclass = c == OperatorClass::Auto;
    kernel_probe = gemm::kernel_arguments(stand_in(types), kernel);
    swapped_probe = gemm::operands_swapped(kernel_probe);
    compiled.reset();
    compiled_launch = nullptr;
  }

  // Whether the kernel's tile rows are D's columns: a column-major D (the kernel computes D^T), or
  // a row-major one whose split-K slices compute D^T (`on_transpose`), not both.
  bool flipped(bool on_transpose) const { return transposed != on_transpose; }

  // The sm90 configuration of a design, stages, staging buffers and cluster in D's terms and a
  // kernel tile width, as gemm() derives it (stages and staging buffers 0: the design's defaults
  // for the width; tile_n 0: the design's own width); `on_transpose`: the instance that computes
  // split-K's slices of D^T = B^T . A^T (its operands' majors swapped).
  sm90::KernelConfig config(ConsumerDesign design, int stages, int staging_buffers, int cluster_m,
                            int cluster_n, int tile_n = 0, bool on_transpose = false) const {
    GemmTuning t;
    t.design = design;
    t.stages = stages;
    t.staging_buffers = staging_buffers;
    t.tile_n = tile_n;
    t.cluster_m = flipped(on_transpose) ? cluster_n : cluster_m;
    t.cluster_n = flipped(on_transpose) ? cluster_m : cluster_n;
    return sm90::config_of(on_transpose ? swapped_probe : kernel_probe, t);
  }

  TileDescription tensor_op_description(sm90::KernelConfig const& c, int cluster_m, int cluster_n,
                                        bool on_transpose = false) const {
    sm90::DesignShape const s = sm90::design_shape(c.design, c.tile_n);
    TileDescription td;
    td.opclass = OperatorClass::TensorOp;
    td.design = c.design;
    td.tile_m = flipped(on_transpose) ? s.tile_n : s.tile_m;
    td.tile_n = flipped(on_transpose) ? s.tile_m : s.tile_n;
    td.tile_k = s.tile_k_bytes / gemm::size_of(types.a);
    td.cluster_m = cluster_m;
    td.cluster_n = cluster_n;
    td.stages = c.stages;
    td.staging_buffers = c.staging_buffers;
    return td;
  }

  TileDescription simt_description() const {
    SimtShape const s = simt_shape(types.accumulator);
    TileDescription td;
    td.opclass = OperatorClass::Simt;
    td.design = ConsumerDesign::Auto;
    td.tile_m = transposed ? s.tile_n : s.tile_m;
    td.tile_n = transposed ? s.tile_m : s.tile_n;
    td.tile_k = s.tile_k;
    td.stages = s.stages;
    td.staging_buffers = 0;
    return td;
  }

  // Whether `td`'s tile is a kernel tile of its design (any width) as this plan's D reads it when
  // the kernel runs on D (`on_transpose` false) or on D^T.
  bool tile_fits(TileDescription const& td, bool on_transpose) const {
    std::span<int const> const widths = sm90::tile_widths(td.design);
    bool const flip = flipped(on_transpose);
    return std::ranges::any_of(widths, [&](int width) {
      sm90::DesignShape const s =
          sm90::design_shape(td.design, width == widths.front() ? 0 : width);
      return (flip ? s.tile_n : s.tile_m) == td.tile_m && (flip ? s.tile_m : s.tile_n) == td.tile_n;
    });
  }

  // Whether tensor-op description `td` splits K on D^T = B^T . A^T (split_k_choice's swap): a
  // split-K description whose tile reads transposed in D's terms, a kernel tile of D^T's and none
  // of D's own (64 x 128 for a row-major D: the narrowest width along D's few rows).
  bool on_transpose(TileDescription const& td) const {
    return td.scheduler == TileScheduler::SplitK && td.design != ConsumerDesign::Auto &&
           !tile_fits(td, false) && tile_fits(td, true);
  }

  // Checks `td` for this plan; returns its sm90 configuration (TensorOp) or nothing (Simt).
  std::optional<sm90::KernelConfig> validate(TileDescription const& td) const {
    OperatorClass const mine =
        kernel == GemmKernel::TensorCore ? OperatorClass::TensorOp : OperatorClass::Simt;
    if (td.opclass != mine)
      refuse_td(td, fmt::format("tile_description.opclass = {}: this plan runs {} (set_opclass "
                                "changes it, where its types allow)",
                                to_string(td.opclass), to_string(mine)));
    if (td.scheduler == TileScheduler::StreamK) {
      if (kernel != GemmKernel::TensorCore)
        refuse_td(td,
                  "tile_description.scheduler = stream-k runs on the tensor-core GEMM only "
                  "(this plan runs the SIMT GEMM)");
      if (td.design != ConsumerDesign::Cooperative)
        refuse_td(td, fmt::format("tile_description.scheduler = stream-k runs on the cooperative "
                                  "design, whose two warpgroups hold the whole tile a piece adds "
                                  "(design = {})",
                                  gemm::to_string(td.design)));
      if (td.cluster_m != 1 || td.cluster_n != 1)
        refuse_td(td, fmt::format("tile_description.scheduler = stream-k runs 1x1 clusters "
                                  "(cluster = {}x{})",
                                  td.cluster_m, td.cluster_n));
    }
    if (td.scheduler == TileScheduler::SplitK) {
      if (kernel != GemmKernel::TensorCore)
        refuse_td(td,
                  "tile_description.scheduler = split-k runs on the tensor-core GEMM only "
                  "(this plan runs the SIMT GEMM)");
      if (td.split_k != 0 && (td.split_k < 2 || td.split_k > gemm::kMaxSplitK))
        refuse_td(td, fmt::format("tile_description.split_k = {} must be 0 (slices per problem) "
                                  "or 2 to {} slices of K",
                                  td.split_k, gemm::kMaxSplitK));
      if (gemm::is_fp8(types.d))
        refuse_td(td, fmt::format("tile_description.scheduler = split-k writes a 16-bit or fp32 "
                                  "D, and this plan's D is {}",
                                  text(types.d)));
    } else if (td.split_k != 0) {
      refuse_td(td, fmt::format("tile_description.split_k = {} takes scheduler = split-k (it is "
                                "{})",
                                td.split_k, to_string(td.scheduler)));
    }
    if (td.raster_panel < 1)
      refuse_td(td, fmt::format("tile_description.raster_panel = {} must be at least 1",
                                td.raster_panel));
    if (td.max_ctas < 0)
      refuse_td(td, fmt::format("tile_description.max_ctas = {} must be 0 (one CTA per SM) or "
                                "positive",
                                td.max_ctas));
    if (kernel == GemmKernel::Simt) {
      TileDescription const s = simt_description();
      if (td.design != ConsumerDesign::Auto)
        refuse_td(td, fmt::format("tile_description.design = {}: the SIMT GEMM has no consumer "
                                  "designs (leave it Auto)",
                                  gemm::to_string(td.design)));
      if (td.cluster_m != 1 || td.cluster_n != 1 || td.staging_buffers != 0)
        refuse_td(td, fmt::format("tile_description.cluster = {}x{}, staging_buffers = {}: the "
                                  "SIMT GEMM has no clusters and no staging buffers (1x1 and 0)",
                                  td.cluster_m, td.cluster_n, td.staging_buffers));
      if (td.tile_m != s.tile_m || td.tile_n != s.tile_n || td.tile_k != s.tile_k ||
          td.stages != s.stages)
        refuse_td(td, fmt::format("tile {}x{}x{} with {} stages: the SIMT GEMM runs {}x{}x{} "
                                  "tiles with {} stages for {} accumulation",
                                  td.tile_m, td.tile_n, td.tile_k, td.stages, s.tile_m, s.tile_n,
                                  s.tile_k, s.stages, text(types.accumulator)));
      return std::nullopt;
    }
    if (td.design == ConsumerDesign::Auto)
      refuse_td(td,
                "tile_description.design = auto: a tile description names one design, "
                "cooperative or pingpong (pick one of tile_descriptions())");
    if (!is_cluster(td.cluster_m, td.cluster_n))
      refuse_td(td, fmt::format("tile_description.cluster = {}x{} is not a cluster shape of the "
                                "kernel (1x1, 2x1 or 1x2)",
                                td.cluster_m, td.cluster_n));
    if (td.stages < kMinStages)
      refuse_td(td, fmt::format("tile_description.stages = {}: the A/B ring needs at least {} "
                                "stages to overlap TMA and wgmma",
                                td.stages, kMinStages));
    if (td.staging_buffers < 1 || td.staging_buffers > kMaxStagingBuffers)
      refuse_td(td, fmt::format("tile_description.staging_buffers = {} must be 1 or 2",
                                td.staging_buffers));
    // The kernel's tile width (D's rows where the kernel's tile rows are D's columns), one of the
    // design's.
    bool const swap = on_transpose(td);
    int const width = flipped(swap) ? td.tile_m : td.tile_n;
    std::span<int const> const widths = sm90::tile_widths(td.design);
    bool const known_width = std::find(widths.begin(), widths.end(), width) != widths.end();
    sm90::KernelConfig const c =
        config(td.design, td.stages, td.staging_buffers, td.cluster_m, td.cluster_n,
               known_width && width != widths.front() ? width : 0, swap);
    TileDescription const shape = tensor_op_description(c, td.cluster_m, td.cluster_n, swap);
    if (td.tile_m != shape.tile_m || td.tile_n != shape.tile_n || td.tile_k != shape.tile_k)
      refuse_td(
          td, fmt::format("tile {}x{}x{}: the {} design computes {}x{}x{} tiles for this "
                          "plan{}{} (pick one of tile_descriptions())",
                          td.tile_m, td.tile_n, td.tile_k, gemm::to_string(td.design), shape.tile_m,
                          shape.tile_n, shape.tile_k,
                          widths.size() < 2 ? std::string()
                                            : fmt::format(", or their {} narrowed to {}",
                                                          transposed ? "tile_m" : "tile_n",
                                                          fmt::join(widths.subspan(1), " or ")),
                          td.scheduler == TileScheduler::SplitK
                              ? "; split-K also takes them transposed (its slices on D^T)"
                              : ""));
    long long const bytes = sm90::smem_bytes_of(c);
    if (bytes > ts::kSmemCapacityBytes)
      refuse_td(td, fmt::format("tile_description.stages = {} and staging_buffers = {} do not fit "
                                "shared memory with the {} design: {} bytes of stages and staging "
                                "needed, {} available per block",
                                td.stages, td.staging_buffers, gemm::to_string(td.design), bytes,
                                ts::kSmemCapacityBytes));
    if (!sm90::schedule_verified(c)) {
      try {
        sm90::check_schedule(c);  // its message lists the schedules that exist
      } catch (std::invalid_argument const& e) {
        refuse_td(td, e.what());
      }
    }
    return c;
  }

  // The tuning of `td` in the kernel's terms (D^T's where its slices compute D^T).
  GemmTuning tuning_of(TileDescription const& td) const {
    GemmTuning t;
    t.raster_panel = td.raster_panel;
    t.max_ctas = td.max_ctas;
    t.kernel = kernel;
    if (kernel == GemmKernel::TensorCore) {
      bool const flip = flipped(on_transpose(td));
      t.design = td.design;
      t.stages = td.stages;
      t.staging_buffers = td.staging_buffers;
      // Explicit, the design's own width included: Auto must not narrow a description's tile.
      t.tile_n = flip ? td.tile_m : td.tile_n;
      t.cluster_m = flip ? td.cluster_n : td.cluster_m;
      t.cluster_n = flip ? td.cluster_m : td.cluster_n;
      if (td.scheduler == TileScheduler::StreamK) t.tile_scheduling = gemm::TileScheduling::StreamK;
    }
    return t;
  }

  // The slot of `design` at `tile_n` (0: the design's own width) in default_launch: the
  // cooperative widths in order, then ping-pong's own; kDefaultSlots (looked up each time, never
  // cached) for any other width, so that no two configurations share a slot.
  static std::size_t default_slot(ConsumerDesign design, int tile_n) {
    std::span<int const> const widths = sm90::tile_widths(ConsumerDesign::Cooperative);
    if (design == ConsumerDesign::PingPong) return tile_n == 0 ? widths.size() : kDefaultSlots;
    if (tile_n == 0) return 0;
    auto const at = std::ranges::find(widths, tile_n);
    return at == widths.end() ? kDefaultSlots : static_cast<std::size_t>(at - widths.begin());
  }

  sm90::LaunchFn default_instance(ConsumerDesign design, int tile_n = 0) const {
    std::size_t const index = default_slot(design, tile_n);
    if (index >= kDefaultSlots)  // a width list longer than the slots: look it up each time
      return sm90::instance_for(config(design, 0, 0, 1, 1, tile_n));
    Cached<sm90::LaunchFn>& slot = default_launch[index];
    sm90::LaunchFn fn = slot.value.load(std::memory_order_acquire);
    if (fn == nullptr) {  // first use: prebuilt, or compiled now (instance_for is thread-safe)
      fn = sm90::instance_for(config(design, 0, 0, 1, 1, tile_n));
      slot.value.store(fn, std::memory_order_release);
    }
    return fn;
  }

  int run_device() const { return device.checked(arch); }

  // `tensors`: a run's own epilogue tensors, in place of the plan's pointers (null: none given).
  GemmArguments map(TensorView const& a, TensorView const& b, TensorView const& c,
                    TensorView const& d, float alpha, float beta, int device,
                    EpilogueTensors const* tensors = nullptr) const;
  void run(GemmArguments const& args, cudaStream_t stream) const;    // checks and launches
  GemmArguments checked_arguments(GemmArguments const& args) const;  // arguments()'s checks
  // Whether `args`, refused by the plan's tensor-core kernel, run through gemm()'s Auto instead
  // (an Auto plan's views that only TMA's 16-byte rules keep from the tensor cores).
  bool runs_through_gemm_auto(GemmArguments const& args) const;

  // The kernel's view of the plan's fused epilogue (which ops, the activation, the bias's type and
  // broadcast — after a column-major D's transposition): what gemm() derives from real arguments,
  // derived from stand-ins, so compile() can obtain the fused instance before any run().
  sm90::EpilogueConfig epilogue_config() const {
    if (kernel != GemmKernel::TensorCore) return {};
    GemmArguments probe = stand_in(types);
    auto const fake = [](std::uintptr_t i) { return reinterpret_cast<void*>(i << 20); };
    GemmEpilogue e = epilogue;
    if (e.bias != nullptr) e.bias = fake(5);
    if (e.row_scale != nullptr) e.row_scale = static_cast<float const*>(fake(6));
    if (e.col_scale != nullptr) e.col_scale = static_cast<float const*>(fake(7));
    if (e.residual.data != nullptr) e.residual = {fake(8), types.d, types.layout_d};
    if (e.pre_activation.data != nullptr) e.pre_activation = {fake(9), types.d, types.layout_d};
    probe.epilogue = e;
    return sm90::epilogue_config_of(gemm::kernel_arguments(probe, kernel));
  }

  // The tensor-core instance `td` names, with the plan's epilogue as set now; none for the SIMT.
  // Split-K's is the one its slices run: fp32 partial sums, the plain epilogue.
  std::optional<sm90::KernelConfig> instance_config(TileDescription const& td) const {
    std::optional<sm90::KernelConfig> c = validate(td);
    if (c && td.scheduler == TileScheduler::SplitK) {
      c->out = ScalarType::F32;
      c->epilogue = {};
    } else if (c) {
      c->epilogue = epilogue_config();
    }
    return c;
  }

  // A run of a description that splits K (compile() took the slices' instance): as gemm() splits,
  // its own count of slices or Auto's for the problem (no split where the tiles fill the SMs).
  void run_split_k(GemmArguments const& r, cudaStream_t stream) const {
    std::string const why = gemm::split_k_violation(r, GemmKernel::TensorCore);
    if (!why.empty())
      throw std::invalid_argument(
          fmt::format("Gemm.run: the compiled tile description ({}) splits K, and {}",
                      to_string(*compiled), why));
    // Slices on D^T: the compiled instance computes D^T, which one slice still writes through the
    // reduction's transpose (D is row-major in the kernel's terms).
    bool const swap = on_transpose(*compiled);
    int const slices =
        compiled->split_k != 0
            ? compiled->split_k
            : gemm::auto_split_k(swap ? gemm::operands_swapped(r) : r, compiled_tuning.tile_n);
    if (slices > 1 || swap) return gemm::run_split_k(r, compiled_tuning, slices, stream, swap);
    sm90::instance_for(sm90::config_of(r, compiled_tuning))(r, compiled_tuning, {}, stream);
  }
};

namespace {

// ---- Views as gemm() operands -------------------------------------------------------------------
// The checks below run on every call: plain comparisons, with every message built only once a
// check has failed (run()'s host overhead stays a few hundred nanoseconds).

[[noreturn]] void refuse_view(char const* name, std::string const& rule) {
  throw std::invalid_argument(fmt::format("Gemm.run: argument `{}` {}", name, rule));
}

char const* plan_field(char const* name) {
  switch (name[0]) {
    case 'a':
      return "layout_a";
    case 'b':
      return "layout_b";
    case 'c':
      return "layout_c";
    default:
      return "layout_d";
  }
}

// `v` as operand `name` of a plan that expects `type` in `layout`: the gemm::Matrix that reads it.
gemm::Matrix to_matrix(TensorView const& v, char const* name, ScalarType type, MatrixLayout layout,
                       int device) {
  if (v.data == nullptr) refuse_view(name, "has no data");
  if (v.dtype != type)
    throw DtypeError(fmt::format("Gemm.run: argument `{}` is {}; this plan expects {}", name,
                                 text(v.dtype), text(type)));
  if (device >= 0 && v.device >= 0 && v.device != device)
    refuse_view(name, fmt::format("lives on device {}; the current device is {} (run the plan "
                                  "with its device current)",
                                  v.device, device));
  if (!v.is(layout)) {
    MatrixLayout const other =
        layout == MatrixLayout::RowMajor ? MatrixLayout::ColMajor : MatrixLayout::RowMajor;
    if (v.is(other))
      refuse_view(name, fmt::format("({}) is {}; this plan expects {} (make the plan with {} = "
                                    "{}, or pass a {} view)",
                                    to_string(v), text(other), text(layout), plan_field(name),
                                    text(other), text(layout)));
    refuse_view(name, fmt::format("({}) is neither row-major (column stride 1, row stride at least "
                                  "the columns) nor column-major (row stride 1, column stride at "
                                  "least the rows): the GEMM reads matrices with one unit stride; "
                                  "copy it into a contiguous tensor",
                                  to_string(v)));
  }
  // Batch stride 0 is a broadcast (torch.expand, DLPack): gemm() runs it for A, B and C and
  // refuses it, by name, for D, whose batches would all write one matrix.
  if (v.batch > 1 && v.batch_stride < 0)
    refuse_view(
        name, fmt::format("has batch stride {}: batches lie at a positive stride", v.batch_stride));
  gemm::Matrix m;
  m.data = v.data;
  m.type = v.dtype;
  m.layout = layout;
  // The leading dimension is the stride across the contiguous dimension; with one row (row-major)
  // or column (column-major) it is never stepped, so any stride is fine and the packed one stands
  // in for one that is smaller (TMA still wants a valid one).
  if (layout == MatrixLayout::RowMajor)
    m.ld = v.row_stride >= v.cols ? v.row_stride : v.cols;
  else
    m.ld = v.col_stride >= v.rows ? v.col_stride : v.rows;
  // One matrix is shared by every batch of D (torch.matmul broadcasts a 2-D operand the same way).
  m.batch_stride = v.batch > 1 ? v.batch_stride : 0;
  return m;
}

// A refusal of gemm's own checks, from run() or arguments(): when only the tensor cores refuse the
// views (TMA's 16-byte rules), the SIMT GEMM would run them, and the message says so.
[[noreturn]] void refuse_arguments(GemmArguments const& args, GemmKernel kernel,
                                   std::invalid_argument const& e) {
  bool simt_runs = false;
  if (kernel == GemmKernel::TensorCore) {
    try {
      gemm::check_arguments(args, GemmKernel::Simt);
      simt_runs = true;
    } catch (std::invalid_argument const&) {
    }
  }
  throw std::invalid_argument(
      fmt::format("Gemm.run: {}{}", e.what(),
                  simt_runs ? " (the tensor cores cannot read these views; a plan made with "
                              "OperatorClass::Auto runs them through aligned copies, and one "
                              "made with OperatorClass::Simt runs them)"
                            : ""));
}

int to_int(std::int64_t v, char const* name, char const* what) {
  if (v > INT_MAX)
    refuse_view(name,
                fmt::format("has {} {}: M, N, K and the batch count must fit an int", v, what));
  return static_cast<int>(v);
}

// Vector `name` of a run's epilogue (bias, a scale): `count` values of `type` (or of `other`,
// when given), one row or one column, contiguous — the kernel reads it as a packed array.
void const* to_vector(TensorView const& v, char const* name, std::int64_t count, char const* what,
                      ScalarType type, std::optional<ScalarType> other, int device) {
  if (v.dtype != type && v.dtype != other)
    throw DtypeError(fmt::format("Gemm.run: argument `{}` is {}; the epilogue reads it as {}{}",
                                 name, text(v.dtype), text(type),
                                 other ? " or " + text(*other) : std::string()));
  if (device >= 0 && v.device >= 0 && v.device != device)
    refuse_view(name,
                fmt::format("lives on device {}; the current device is {}", v.device, device));
  bool const row = v.rows == 1, column = v.cols == 1;
  std::int64_t const length = row ? v.cols : v.rows;
  if (v.batch != 1 || (!row && !column))
    refuse_view(name, fmt::format("({}) is not a vector: give {} {} values, shared by every batch",
                                  to_string(v), count, what));
  if (length != count)
    refuse_view(name,
                fmt::format("has {} values; the epilogue reads {} ({})", length, count, what));
  if (length > 1 && (row ? v.col_stride : v.row_stride) != 1)
    refuse_view(
        name, fmt::format("({}) is strided: the epilogue reads a contiguous vector", to_string(v)));
  return v.data;
}

// Scalar `name` of a run (alpha, beta): one fp32 value in device memory, or null when the view is
// empty. (to_vector checks its type and device.)
float const* to_scalar(TensorView const& v, char const* name, int device) {
  if (v.empty()) return nullptr;
  if (v.rows != 1 || v.cols != 1 || v.batch != 1)
    refuse_view(name, fmt::format("({}) is not one value: the kernel reads {} as one fp32 value "
                                  "in device memory",
                                  to_string(v), name));
  return static_cast<float const*>(
      to_vector(v, name, 1, "value", ScalarType::F32, std::nullopt, device));
}

// Matrix `name` of a run's epilogue (residual, pre-activation): D's type and shape, in whichever
// layout the view has.
gemm::Matrix to_epilogue_matrix(TensorView const& v, char const* name, TensorView const& d,
                                ScalarType type, int device) {
  if (v.rows != d.rows || v.cols != d.cols || v.batch != d.batch)
    refuse_view(name, fmt::format("is {}: it has D's shape, {}", to_string(v), to_string(d)));
  MatrixLayout const layout =
      v.is(MatrixLayout::RowMajor) ? MatrixLayout::RowMajor : MatrixLayout::ColMajor;
  return to_matrix(v, name, type, layout, device);
}

}  // namespace

GemmArguments Gemm::Impl::map(TensorView const& a, TensorView const& b, TensorView const& c,
                              TensorView const& d, float alpha, float beta, int device,
                              EpilogueTensors const* tensors) const {
  GemmArguments r;
  r.a = to_matrix(a, "a", types.a, types.layout_a, device);
  r.b = to_matrix(b, "b", types.b, types.layout_b, device);
  gemm::Matrix const dm = to_matrix(d, "d", types.d, types.layout_d, device);
  if (b.rows != a.cols)
    refuse_view("b", fmt::format("is {} x {}: A is {} x {}, so B has K = {} rows", b.rows, b.cols,
                                 a.rows, a.cols, a.cols));
  if (d.rows != a.rows || d.cols != b.cols)
    refuse_view("d", fmt::format("is {} x {}: A . B is {} x {}", d.rows, d.cols, a.rows, b.cols));
  // An input of batch 1 is broadcast to D's batches (to_matrix gives it batch stride 0).
  auto const batch_fits = [&](TensorView const& v) { return v.batch == 1 || v.batch == d.batch; };
  if (!batch_fits(a) || !batch_fits(b))
    refuse_view(!batch_fits(a) ? "a" : "b",
                fmt::format("has batch {} and D batch {}: an input has D's batch count, or 1 to "
                            "be shared by every batch",
                            !batch_fits(a) ? a.batch : b.batch, d.batch));
  if (!c.empty()) {
    r.c = to_matrix(c, "c", types.c, types.layout_c, device);
    if (c.rows != d.rows || c.cols != d.cols || !batch_fits(c))
      refuse_view("c", fmt::format("is {}: C has D's shape, {}", to_string(c), to_string(d)));
  } else {
    r.c = gemm::Matrix{nullptr, types.c, types.layout_c, 0, gemm::kPacked};
  }
  r.m = to_int(a.rows, "a", "rows");
  r.k = to_int(a.cols, "a", "columns");
  r.n = to_int(b.cols, "b", "columns");
  r.batch = to_int(d.batch, "d", "batches");
  r.d = d.data;
  r.d_type = dm.type;
  r.d_layout = dm.layout;
  r.ldd = dm.ld;
  r.batch_stride_d = dm.batch_stride;
  r.alpha = alpha;
  r.beta = beta;
  r.scale_a = scale_a;
  r.scale_b = scale_b;
  r.scale_d = scale_d;
  r.amax_d = amax_d;
  r.epilogue = epilogue;
  if (tensors != nullptr) {
    EpilogueTensors const& t = *tensors;
    GemmEpilogue& e = r.epilogue;
    bool const per_row = t.bias_broadcast == Broadcast::PerRow;
    e.bias = nullptr;
    e.bias_broadcast = t.bias_broadcast;
    if (!t.bias.empty()) {
      e.bias = to_vector(t.bias, "bias", per_row ? r.m : r.n,
                         per_row ? "M, one per row of D" : "N, one per column of D",
                         ScalarType::F32, types.d, device);
      e.bias_type = t.bias.dtype;
    }
    e.row_scale = t.row_scale.empty()
                      ? nullptr
                      : static_cast<float const*>(to_vector(t.row_scale, "row_scale", r.m, "M",
                                                            ScalarType::F32, std::nullopt, device));
    e.col_scale = t.col_scale.empty()
                      ? nullptr
                      : static_cast<float const*>(to_vector(t.col_scale, "col_scale", r.n, "N",
                                                            ScalarType::F32, std::nullopt, device));
    e.residual = t.residual.empty()
                     ? gemm::Matrix{}
                     : to_epilogue_matrix(t.residual, "residual", d, types.d, device);
    e.pre_activation =
        t.pre_activation.empty()
            ? gemm::Matrix{}
            : to_epilogue_matrix(t.pre_activation, "pre_activation", d, types.d, device);
    r.alpha_ptr = to_scalar(t.alpha, "alpha", device);
    r.beta_ptr = to_scalar(t.beta, "beta", device);
  }
  return r;
}

Gemm::Gemm(GemmOptions const& options) : impl_(std::make_unique<Impl>()) {
  impl_->types = resolve_types(options);
  impl_->arch = detail::plan_arch(options.arch, detail::current_device());
  impl_->transposed = impl_->types.layout_d == MatrixLayout::ColMajor;
  impl_->set_kernel(options.opclass);
}

Gemm::Gemm(ScalarType element, MatrixLayout layout, std::optional<Arch> arch)
    : Gemm(GemmOptions{.element = element, .layout = layout, .arch = arch}) {}

Gemm::~Gemm() = default;
Gemm::Gemm(Gemm const& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
Gemm& Gemm::operator=(Gemm const& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
Gemm::Gemm(Gemm&&) noexcept = default;
Gemm& Gemm::operator=(Gemm&&) noexcept = default;

Arch Gemm::arch() const {
  return impl_->arch;
}

GemmTypes const& Gemm::types() const {
  return impl_->types;
}

OperatorClass Gemm::opclass() const {
  return impl_->kernel == GemmKernel::TensorCore ? OperatorClass::TensorOp : OperatorClass::Simt;
}

void Gemm::set_opclass(OperatorClass c) {
  impl_->set_kernel(c);
}

std::string Gemm::describe() const {
  GemmTypes const& t = impl_->types;
  return fmt::format("Gemm {} x {} -> {} ({} A, {} B, {} C and D; {} accumulation), {}, {}",
                     text(t.a), text(t.b), text(t.d), text(t.layout_a), text(t.layout_b),
                     text(t.layout_d), text(t.accumulator), to_string(opclass()),
                     to_string(impl_->arch));
}

Activation Gemm::activation() const {
  return impl_->epilogue.activation;
}

void Gemm::set_activation(Activation a) {
  impl_->epilogue.activation = a;
}

std::vector<Activation> Gemm::activations() {
  return {Activation::Identity, Activation::ReLU,     Activation::LeakyReLU,
          Activation::GELU,     Activation::GELUTanh, Activation::HardSwish,
          Activation::Sigmoid,  Activation::SiLU,     Activation::Tanh};
}

GemmEpilogue const& Gemm::epilogue() const {
  return impl_->epilogue;
}

void Gemm::set_epilogue(GemmEpilogue const& e) {
  impl_->epilogue = e;
}

void Gemm::set_output_scale(float const* scale_d, float* amax_d) {
  impl_->scale_d = scale_d;
  impl_->amax_d = amax_d;
}

void Gemm::set_input_scales(float const* scale_a, float const* scale_b) {
  impl_->scale_a = scale_a;
  impl_->scale_b = scale_b;
}

std::vector<TileDescription> Gemm::tile_descriptions() const {
  Impl const& p = *impl_;
  if (p.kernel == GemmKernel::Simt) {
    if (!registered(simt_shape(p.types.accumulator).schedule)) return {};
    return {p.simt_description()};
  }
  std::vector<TileDescription> all, leaders;
  for (ConsumerDesign design : {ConsumerDesign::Cooperative, ConsumerDesign::PingPong}) {
    std::span<int const> const widths = sm90::tile_widths(design);
    for (int width : widths) {
      int const tile_n = width == widths.front() ? 0 : width;
      std::size_t const first = all.size();
      // gemm()'s stages and staging buffers for the design and width (a ping-pong plan with a
      // second pass in its epilogue has defaults of its own: sm90::config_of).
      sm90::KernelConfig const defaults = p.config(design, 0, 0, 1, 1, tile_n);
      for (auto [cluster_m, cluster_n] : kClusters)
        for (int stages = kMinStages; stages <= kMaxStages; ++stages)
          for (int buffers = 1; buffers <= kMaxStagingBuffers; ++buffers) {
            sm90::KernelConfig const c =
                p.config(design, stages, buffers, cluster_m, cluster_n, tile_n);
            if (sm90::smem_bytes_of(c) > ts::kSmemCapacityBytes || !sm90::schedule_verified(c))
              continue;
            all.push_back(p.tensor_op_description(c, cluster_m, cluster_n));
          }
      // The width's default (what gemm() runs) leads its group.
      std::stable_partition(all.begin() + static_cast<std::ptrdiff_t>(first), all.end(),
                            [&](TileDescription const& td) {
                              return td.stages == defaults.stages &&
                                     td.staging_buffers == defaults.staging_buffers &&
                                     td.cluster_m == 1 && td.cluster_n == 1;
                            });
      if (all.size() > first) leaders.push_back(all[first]);
    }
  }
  // Split-K over each design's and width's default, its slices chosen per problem (small outputs,
  // long K), where the plan's D can take the slices' sum.
  if (!gemm::is_fp8(p.types.d)) {
    for (TileDescription td : leaders) {
      td.scheduler = TileScheduler::SplitK;
      all.push_back(td);
    }
    // And on D^T (its slices computing B^T . A^T), at each cooperative width whose tile reads
    // transposed as no tile of D's own does: 64 x 128 puts the narrowest width along a D of few
    // rows (a decode step's), where D's own tiles would be mostly empty rows.
    std::span<int const> const widths = sm90::tile_widths(ConsumerDesign::Cooperative);
    for (int width : widths) {
      sm90::KernelConfig const c = p.config(ConsumerDesign::Cooperative, 0, 0, 1, 1,
                                            width == widths.front() ? 0 : width, true);
      TileDescription td = p.tensor_op_description(c, 1, 1, true);
      td.scheduler = TileScheduler::SplitK;
      if (p.on_transpose(td) && sm90::schedule_verified(c)) all.push_back(td);
    }
  }
  // Stream-K over the cooperative design's default at each width (the design it runs on).
  for (TileDescription td : leaders)
    if (td.design == ConsumerDesign::Cooperative) {
      td.scheduler = TileScheduler::StreamK;
      all.push_back(td);
    }
  return all;
}

bool Gemm::is_prebuilt(TileDescription const& td) const {
  std::optional<sm90::KernelConfig> const c = impl_->instance_config(td);
  if (!c) return true;  // the SIMT GEMM's kernels are all prebuilt
  for (sm90::PrebuiltInstance const& i : sm90::prebuilt_instances())
    if (i.config == *c) return true;
  return false;
}

void Gemm::compile(TileDescription const& td) {
  Impl& p = *impl_;
  std::optional<sm90::KernelConfig> const c = p.instance_config(td);
  sm90::LaunchFn const fn = c ? sm90::instance_for(*c) : nullptr;
  p.compiled_epilogue = c ? c->epilogue : sm90::EpilogueConfig{};
  p.compiled = td;
  p.compiled_tuning = p.tuning_of(td);
  p.compiled_launch = fn;
}

void Gemm::compile() {
  Impl& p = *impl_;
  p.compiled.reset();
  p.compiled_launch = nullptr;
  if (p.kernel != GemmKernel::TensorCore) return;  // the SIMT GEMM is prebuilt
  (void)p.default_instance(ConsumerDesign::Cooperative);
  (void)p.default_instance(ConsumerDesign::PingPong);
}

std::optional<TileDescription> Gemm::tile_description() const {
  return impl_->compiled;
}

std::string Gemm::source(TileDescription const& td) const {
  std::optional<sm90::KernelConfig> const c = impl_->instance_config(td);
  if (!c)
    return fmt::format(
        "// The SIMT GEMM, {} x {} -> {} with {} accumulation: prebuilt by the build\n"
        "// (kernels/gemm/simt/kernel.cuh, explicitly instantiated in instances_wide.cu and\n"
        "// instances_fp8.cu); operand layouts are run-time strides, not template arguments.\n"
        "// Its schedule: {}.\n",
        text(impl_->types.a), text(impl_->types.b), text(impl_->types.d),
        text(impl_->types.accumulator), simt_shape(impl_->types.accumulator).schedule);
  return sm90::source_of(*c);
}

TileDescription Gemm::description_for(TensorView const& a, TensorView const& b, TensorView const& c,
                                      TensorView const& d) const {
  Impl const& p = *impl_;
  if (p.compiled) return *p.compiled;
  if (p.kernel == GemmKernel::Simt) return p.simt_description();
  GemmArguments const args = p.map(a, b, c, d, 1.0f, c.empty() ? 0.0f : 1.0f, /*device=*/-1);
  GemmArguments r;
  try {
    r = gemm::kernel_arguments(args, p.kernel);
  } catch (std::invalid_argument const& e) {
    if (!p.runs_through_gemm_auto(args)) refuse_arguments(args, p.kernel, e);
    // gemm()'s Auto: the tensor cores on aligned copies, or the SIMT GEMM (too small to copy).
    if (!gemm::repacks(args)) return p.simt_description();
    r = gemm::kernel_arguments(args, GemmKernel::Simt);  // the same problem, transposed alike
  }
  // As run() chooses: split-K (on D^T for a D of few rows) where the output tiles leave most SMs
  // idle, and the tile width and design for the size of the problem the kernel sees (D^T for a
  // column-major D), in their default configuration.
  gemm::SplitChoice const split = gemm::split_k_choice(
      r, GemmTuning{.kernel = GemmKernel::TensorCore}, gemm::current_sm_count(),
      gemm::split_k_violation(r, GemmKernel::TensorCore).empty());
  bool const swap = split.swap_ab;  // set only where it splits
  GemmArguments const seen = swap ? gemm::operands_swapped(r) : r;
  sm90::KernelConfig const config = p.config(gemm::selected_design(seen, split.tuning.design), 0, 0,
                                             1, 1, split.tuning.tile_n, swap);
  TileDescription td = p.tensor_op_description(config, 1, 1, swap);
  if (split.slices > 1) {
    td.scheduler = TileScheduler::SplitK;
    td.split_k = split.slices;
  }
  return td;
}

GemmArguments Gemm::arguments(TensorView const& a, TensorView const& b, TensorView const& c,
                              TensorView const& d, float alpha, float beta) const {
  return impl_->checked_arguments(impl_->map(a, b, c, d, alpha, beta, /*device=*/-1));
}

GemmArguments Gemm::arguments(TensorView const& a, TensorView const& b, TensorView const& c,
                              TensorView const& d, EpilogueTensors const& epilogue, float alpha,
                              float beta) const {
  return impl_->checked_arguments(impl_->map(a, b, c, d, alpha, beta, /*device=*/-1, &epilogue));
}

bool Gemm::Impl::runs_through_gemm_auto(GemmArguments const& args) const {
  if (!auto_opclass || kernel != GemmKernel::TensorCore) return false;
  try {
    gemm::check_arguments(args, GemmKernel::Auto);
    return true;
  } catch (std::invalid_argument const&) {
    return false;
  }
}

GemmArguments Gemm::Impl::checked_arguments(GemmArguments const& args) const {
  try {
    gemm::check_arguments(args, kernel);
  } catch (std::invalid_argument const& e) {
    if (!runs_through_gemm_auto(args)) refuse_arguments(args, kernel, e);
  }
  return args;
}

void Gemm::run(TensorView const& a, TensorView const& b, TensorView const& c, TensorView const& d,
               float alpha, float beta, cudaStream_t stream) const {
  Impl const& p = *impl_;
  int const device = p.run_device();
  p.run(p.map(a, b, c, d, alpha, beta, device), stream);
}

void Gemm::run(TensorView const& a, TensorView const& b, TensorView const& c, TensorView const& d,
               EpilogueTensors const& epilogue, float alpha, float beta,
               cudaStream_t stream) const {
  Impl const& p = *impl_;
  int const device = p.run_device();
  p.run(p.map(a, b, c, d, alpha, beta, device, &epilogue), stream);
}

GemmArguments Gemm::run_arguments(TensorView const& a, TensorView const& b, TensorView const& c,
                                  TensorView const& d, float alpha, float beta) const {
  Impl const& p = *impl_;
  return p.checked_arguments(p.map(a, b, c, d, alpha, beta, p.run_device()));
}

void Gemm::check_run_device() const {
  (void)impl_->run_device();
}

GemmTuning Gemm::run_tuning() const {
  Impl const& p = *impl_;
  return p.compiled ? p.compiled_tuning : GemmTuning{.kernel = p.kernel};
}

void Gemm::Impl::run(GemmArguments const& args, cudaStream_t stream) const {
  Impl const& p = *this;
  GemmArguments r;
  try {
    r = gemm::kernel_arguments(args, p.kernel);
  } catch (std::invalid_argument const& e) {
    if (!runs_through_gemm_auto(args)) refuse_arguments(args, p.kernel, e);
    // Views TMA cannot read as they lie: gemm()'s Auto (src/gemm/repack.hpp), with the compiled
    // description's knobs.
    GemmTuning tuning = p.compiled ? p.compiled_tuning : GemmTuning{};
    tuning.kernel = GemmKernel::Auto;
    try {
      gemm::gemm(args, stream, tuning);
    } catch (std::invalid_argument const& g) {
      throw std::invalid_argument(fmt::format("Gemm.run: {}", g.what()));
    }
    return;
  }
  try {
    gemm::check_device_pointers(args);  // no kernel reads host memory: no hint to give
  } catch (std::invalid_argument const& e) {
    throw std::invalid_argument(fmt::format("Gemm.run: {}", e.what()));
  }
  if (p.kernel == GemmKernel::Simt) {
    gemm::simt::run_simt_gemm(r, p.compiled ? p.compiled_tuning : GemmTuning{.kernel = p.kernel},
                              stream);
    return;
  }
  // The instance kept by compile(), or the default (the design gemm() picks for the problem's
  // size, its default configuration) — when it runs this call's epilogue: an epilogue set after
  // compile(), or a fused one without it, takes its own instance (prebuilt, cached or compiled
  // now), never the plain one.
  if (p.compiled && p.compiled->scheduler == TileScheduler::SplitK) return p.run_split_k(r, stream);
  // Stream-K takes its workspace from the library's pool on the stream (stream_k.hpp).
  if (p.compiled && p.compiled->scheduler == TileScheduler::StreamK)
    return gemm::run_stream_k(r, p.compiled_tuning, stream);
  sm90::EpilogueConfig const epilogue = sm90::epilogue_config_of(r);
  if (p.compiled_launch != nullptr) {
    sm90::LaunchFn const fn = epilogue == p.compiled_epilogue
                                  ? p.compiled_launch
                                  : sm90::instance_for(sm90::config_of(r, p.compiled_tuning));
    fn(r, p.compiled_tuning, {}, stream);
    return;
  }
  GemmTuning tuning;
  tuning.kernel = GemmKernel::TensorCore;
  // The default splits K where gemm()'s Auto does and takes its tile width (src/gemm/split_k.hpp):
  // the same D.
  gemm::SplitChoice const split =
      gemm::split_k_choice(r, tuning, gemm::current_sm_count(),
                           gemm::split_k_violation(r, GemmKernel::TensorCore).empty());
  if (split.slices > 1)
    return gemm::run_split_k(r, split.tuning, split.slices, stream, split.swap_ab);
  tuning = split.tuning;
  tuning.design = gemm::selected_design(r, tuning.design);
  sm90::LaunchFn const fn = epilogue.fused() ? sm90::instance_for(sm90::config_of(r, tuning))
                                             : p.default_instance(tuning.design, tuning.tile_n);
  fn(r, tuning, {}, stream);
}

}  // namespace warploom::ops
