// warploom/ops/gemm.hpp
//
// warploom::ops::Gemm: a GEMM plan. Declare the element types and layouts once, list the
// configurations the library runs for them, compile one, then run it on tensors as often as
// needed — the CUTLASS Python interface's cutlass.op.Gemm (its Basic GEMM notebook), in C++, and
// what warploom's Python surface binds.
//
//   ops::Gemm plan({.element = ScalarType::F16, .layout = MatrixLayout::RowMajor});
//   plan.run(a, b, c, d, 1.0f, 0.0f, stream);        // the default kernel, compiled on first use
//   for (ops::TileDescription const& td : plan.tile_descriptions())
//     std::printf("%s\n", ops::to_string(td).c_str());
//   plan.compile(plan.tile_descriptions()[1]);       // validated and compiled here ...
//   plan.run(a, b, c, d, 1.0f, 0.0f, stream);        // ... so that no run compiles
//
// D = activation(alpha * (A . B) + beta * C) on views (warploom/ops/tensor.hpp) A (M x K), B
// (K x N), C and D (M x N), optionally batched. Everything the plan was made for is checked
// against the views on every run (types, layouts, shapes, strides; then every rule of
// gemm::check_arguments): a wrong dtype is refused naming both types, never reinterpreted.
//
// Errors are std::invalid_argument naming the argument and the rule (a kernel compilation that
// fails is std::runtime_error with the compiler's messages). A plan is safe to run from several
// threads at once; changing it (set_*, compile) is not.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"
#include "warploom/ops/tensor.hpp"
#include "warploom/ops/tile_description.hpp"

namespace warploom::ops {

using gemm::Activation;
using gemm::Broadcast;
using gemm::GemmArguments;
using gemm::GemmEpilogue;

// A GPU architecture a plan is made for, by compute capability. This build's kernels are sm_90a
// (Hopper) code: a plan for another architecture is refused, naming it.
enum class Arch : int { Sm80 = 80, Sm90 = 90, Sm100 = 100 };
std::string_view to_string(Arch a);  // "sm_80", "sm_90a", "sm_100a"

// ops::GemmOptions
//
// How a plan is declared. Each operand's element type and layout come from, in this order of
// precedence (the seed's): its example tensor (a, b, c, d), its own element_x / layout_x, the
// generic element / layout. An example tensor and an element_x or layout_x that disagree are
// refused (neither silently wins). C and D share their type and layout (the kernels read C in
// D's type and layout): either one may set them, and they may not disagree.
struct GemmOptions {
  // (Every member has an initializer, so that designated initializers may leave any out.)
  std::optional<ScalarType> element{};  // every operand
  std::optional<MatrixLayout> layout{};
  std::optional<ScalarType> element_a{}, element_b{}, element_c{}, element_d{};
  std::optional<MatrixLayout> layout_a{}, layout_b{}, layout_c{}, layout_d{};
  std::optional<TensorView> a{}, b{}, c{}, d{};  // example tensors: their dtype and strides
  // fp32 (fp64 for fp64 inputs, which accumulate in fp64) when unset; those are the only ones a
  // kernel runs (no kernel accumulates fp16 in fp16).
  std::optional<ScalarType> element_accumulator{};
  OperatorClass opclass = OperatorClass::Auto;
  // Unset: the current CUDA device's, which must be one this build runs on. Set: the plan is made
  // for it without a device (listing, validating, printing sources; CPU tests), and runs only on
  // a device of that architecture.
  std::optional<Arch> arch{};
};

// ops::EpilogueTensors
//
// The tensors of one run's fused epilogue, as views that run() checks against the problem (the
// plan's GemmEpilogue holds bare pointers, which nothing can check). Each is optional: empty, no
// term. bias: M (PerRow) or N (PerColumn) values of fp32 or D's type; row_scale and col_scale: M
// and N fp32 values; a vector is a view with one row or one column, contiguous, shared by every
// batch. residual (added after the activation) and pre_activation (written: z before the
// activation, for a backward pass): M x N (x batch) of D's type, row- or column-major. A run
// given them uses them in place of the plan's epilogue pointers and keeps the plan's activation,
// so one plan serves every call of a layer (bindings pass a call's tensors this way).
// alpha and beta: one fp32 value each in device memory (a view of one element), read by the kernel
// when it runs in place of run()'s alpha and beta, which then keep their defaults 1 and 0
// (gemm::GemmArguments::alpha_ptr, beta_ptr: a CUDA graph captured once replays with whatever
// they hold then); beta needs C.
struct EpilogueTensors {
  TensorView bias;
  Broadcast bias_broadcast = Broadcast::PerColumn;
  TensorView row_scale, col_scale;
  TensorView residual, pre_activation;
  TensorView alpha, beta;
};

// What a plan was made for, resolved.
struct GemmTypes {
  ScalarType a, b, c, d, accumulator;
  MatrixLayout layout_a, layout_b, layout_c, layout_d;
};

// ops::Gemm
class Gemm {
 public:
  // Resolves the types and layouts (see GemmOptions), the architecture and the operator class,
  // and refuses a combination no kernel runs, naming it — at construction, not at the first run.
  explicit Gemm(GemmOptions const& options);
  Gemm(ScalarType element, MatrixLayout layout, std::optional<Arch> arch = std::nullopt);
  ~Gemm();
  Gemm(Gemm const& other);
  Gemm& operator=(Gemm const& other);
  Gemm(Gemm&&) noexcept;
  Gemm& operator=(Gemm&&) noexcept;

  // ---- What the plan is ----------------------------------------------------------------------
  Arch arch() const;
  GemmTypes const& types() const;
  // TensorOp or Simt: Auto resolved when the plan was made (TensorOp whenever the types and
  // layouts allow it).
  OperatorClass opclass() const;
  // Re-resolves the plan for `c` (Auto: as at construction); TensorOp is refused, with the
  // reason, for types or layouts the tensor cores do not run. Drops a compiled description.
  void set_opclass(OperatorClass c);
  // e.g. "Gemm bf16 x bf16 -> bf16 (row-major A, column-major B, row-major C/D; fp32
  // accumulation), tensor-op, sm_90a".
  std::string describe() const;

  // ---- The epilogue --------------------------------------------------------------------------
  // D = activation(alpha * acc + beta * C + bias ...) per GemmEpilogue (warploom/gemm.hpp); every
  // run passes it to the kernel as GemmArguments::epilogue (a run given EpilogueTensors, their
  // views in place of its pointers). The epilogue is part of the kernel's configuration: compile()
  // obtains the instance of the epilogue set then, and a run whose epilogue differs obtains its
  // own.
  Activation activation() const;
  void set_activation(Activation a);
  static std::vector<Activation> activations();  // every one gemm::Activation names
  GemmEpilogue const& epilogue() const;
  void set_epilogue(GemmEpilogue const& e);  // its activation is activation()
  // fp8 per-tensor dequantisation scales (GemmArguments::scale_a / scale_b: device pointers to one
  // float each, read when the kernel runs; null = 1).
  void set_input_scales(float const* scale_a, float const* scale_b);
  // An fp8 D's scale and amax (GemmArguments::scale_d / amax_d: device pointers to one float each;
  // D = saturate(*scale_d * z), *amax_d = max |z|, set by every run; null: scale 1, no amax).
  void set_output_scale(float const* scale_d, float* amax_d);

  // ---- Configurations ------------------------------------------------------------------------
  // Every configuration the library runs for this plan's types, layouts and architecture, the
  // default first: for TensorOp the sm90 configurations whose schedules this build verified and
  // whose stages fit shared memory (prebuilt, or compiled when first used), then split-K over
  // each design's default (not for an fp8 D); for Simt the SIMT GEMM's shape.
  std::vector<TileDescription> tile_descriptions() const;
  // Whether `td`'s kernel was compiled by the build (else compile() runs nvcc, ~20 s, once per
  // machine: the kernel cache keeps it).
  bool is_prebuilt(TileDescription const& td) const;
  // Validates `td` for this plan — refused with the reason and the numbers: another operator
  // class, a tile its design does not have, stages that do not fit shared memory (bytes needed
  // and available), a schedule the build did not verify, a scheduler not implemented — then
  // obtains its kernel (prebuilt, or compiled now) so that run() compiles nothing.
  void compile(TileDescription const& td);
  // Obtains the kernels run() uses without a compiled description (the default: the design
  // gemm() picks by the problem's size), so that no run compiles.
  void compile();
  // The description compile(td) chose; nullopt for the default.
  std::optional<TileDescription> tile_description() const;
  // The source of `td`'s kernel instance with the plan's epilogue as set now (validated as compile
  // does; split-K's: the instance its slices run): what the build or the JIT compiles for it — a
  // prebuilt instance's translation unit, nvcc's (WARPLOOM_JIT_COMPILER=nvcc) or NVRTC's two
  // sources, the kernel and its launcher, under headings. The SIMT GEMM's kernels are prebuilt
  // templates: for them, a note naming the instance.
  std::string source(TileDescription const& td) const;
  // The configuration a run on these views uses: the compiled description, else the default of
  // the design and tile width gemm() picks for the problem's size — split-K with its slices where
  // the run splits K, on D^T (its tile transposed) where it does so — or, for Simt, the SIMT GEMM's
  // shape. Checks the views as arguments() does, needs no device (without one, the tile width
  // and the slices are chosen for an H100's or H200's 132 SMs): what a binding prints before a
  // run (the seed's print_module); compile() takes it and runs the same.
  TileDescription description_for(TensorView const& a, TensorView const& b, TensorView const& c,
                                  TensorView const& d) const;

  // ---- Running ---------------------------------------------------------------------------------
  // Enqueues D = epilogue(alpha * A . B + beta * C) on `stream` and returns (asynchronous). `c` may
  // be empty (TensorView{}) when beta == 0. Checks the views against the plan and the current
  // device against its architecture; the kernel is the compiled one, else the default, obtained
  // (and possibly compiled) on the first run that needs it.
  void run(TensorView const& a, TensorView const& b, TensorView const& c, TensorView const& d,
           float alpha = 1.0f, float beta = 0.0f, cudaStream_t stream = nullptr) const;
  // The same with this call's epilogue tensors (EpilogueTensors: checked, then used in place of
  // the plan's epilogue pointers).
  void run(TensorView const& a, TensorView const& b, TensorView const& c, TensorView const& d,
           EpilogueTensors const& epilogue, float alpha = 1.0f, float beta = 0.0f,
           cudaStream_t stream = nullptr) const;
  // The gemm() arguments run() derives from the views, checked by gemm::check_arguments for the
  // plan's kernel: what a run would compute, without a device (tests, debugging, or a call of
  // gemm::gemm with the same arguments).
  GemmArguments arguments(TensorView const& a, TensorView const& b, TensorView const& c,
                          TensorView const& d, float alpha = 1.0f, float beta = 0.0f) const;
  GemmArguments arguments(TensorView const& a, TensorView const& b, TensorView const& c,
                          TensorView const& d, EpilogueTensors const& epilogue, float alpha = 1.0f,
                          float beta = 0.0f) const;

 private:
  // For GroupedGemm, which launches many problems of this plan together: what run() would launch
  // for one problem on the current device (its checks, the device's included), and how.
  friend class GroupedGemm;
  GemmArguments run_arguments(TensorView const& a, TensorView const& b, TensorView const& c,
                              TensorView const& d, float alpha, float beta) const;
  gemm::GemmTuning run_tuning() const;
  // run()'s check of the current device (std::invalid_argument when it cannot run this plan).
  void check_run_device() const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warploom::ops
