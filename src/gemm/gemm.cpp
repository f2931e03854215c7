// src/gemm/gemm.cpp
//
// Argument checks, kernel selection and normalisation for the GEMMs: every rule a kernel relies on
// is checked here, once, with an error that names the argument. A column-major D is computed as
// the row-major transpose (D^T = B^T . A^T), so the kernels only ever see row-major C and D.
#include "warploom/gemm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "current_device.hpp"
#include "gemm/simt/simt_gemm_dispatch.hpp"
#include "kernel_arguments.hpp"
#include "repack.hpp"
#include "sm90_instances.hpp"
#include "split_k.hpp"
#include "stream_k.hpp"

namespace warploom::gemm {

namespace {

[[noreturn]] void fail(std::string const& what) {
  throw std::invalid_argument("gemm: " + what);
}

std::string str(std::int64_t v) {
  return std::to_string(v);
}

// ---- Enumerations -------------------------------------------------------------------------------
// An enumeration may hold any integer a binding or deserialiser cast to it. Each one the GEMM
// takes is checked before any switch or table sees it: an out-of-range ScalarType once made
// size_of return 0 and a division by it raise SIGFPE, and an out-of-range layout or design
// reached the kernels as some other value.
// `name` + `field` names the argument (e.g. "a" ".type"); no string is built unless it is refused.
template <class E>
void check_enum(std::string_view name, E value, E last, char const* type,
                std::string_view field = {}) {
  int const v = static_cast<int>(value);
  if (v >= 0 && v <= static_cast<int>(last)) return;
  std::string values;
  for (int i = 0; i <= static_cast<int>(last); ++i)
    values += (i == 0 ? "" : ", ") + std::string(to_string(static_cast<E>(i)));
  fail(std::string(name) + std::string(field) + " = " + type + "(" + str(v) +
       ") is out of range: the " + type + " values are " + values + " (0 to " +
       str(static_cast<int>(last)) + ")");
}

void check_matrix_enums(std::string_view name, Matrix const& x) {
  check_enum(name, x.type, ScalarType::E5M2, "ScalarType", ".type");
  check_enum(name, x.layout, MatrixLayout::ColMajor, "MatrixLayout", ".layout");
}

void check_enums(GemmArguments const& args) {
  check_matrix_enums("a", args.a);
  check_matrix_enums("b", args.b);
  check_matrix_enums("c", args.c);
  check_enum("d_type", args.d_type, ScalarType::E5M2, "ScalarType");
  check_enum("d_layout", args.d_layout, MatrixLayout::ColMajor, "MatrixLayout");
  GemmEpilogue const& e = args.epilogue;
  check_enum("epilogue.activation", e.activation, Activation::Tanh, "Activation");
  check_enum("epilogue.bias_type", e.bias_type, ScalarType::E5M2, "ScalarType");
  check_enum("epilogue.bias_broadcast", e.bias_broadcast, Broadcast::PerColumn, "Broadcast");
  check_matrix_enums("epilogue.residual", e.residual);
  check_matrix_enums("epilogue.pre_activation", e.pre_activation);
}

// ---- Operands -----------------------------------------------------------------------------------
// A rows x cols matrix as stored: the extent along its contiguous dimension and across it.
struct Extents {
  std::int64_t contiguous, strided;
};
Extents extents(MatrixLayout layout, int rows, int cols) {
  return layout == MatrixLayout::RowMajor ? Extents{cols, rows} : Extents{rows, cols};
}

// The names an operand's fields have in GemmArguments.
struct Names {
  std::string data, ld, batch_stride;
};
Names names_of(std::string const& operand) {
  if (operand == "d") return {"d", "ldd", "batch_stride_d"};
  return {operand + ".data", operand + ".ld", operand + ".batch_stride"};
}

// Whether the kernels only read an operand (it may be broadcast across the batch) or write it
// (every batch its own memory).
enum class Access { Read, Write };

// Batches that a resolved operand's descriptors and offsets step through: one when there is one,
// or when one matrix is broadcast to all (batch stride 0).
std::int64_t stored_batches(std::int64_t batch_stride, int batch) {
  return batch > 1 && batch_stride != 0 ? batch : 1;
}

// Whether `batch` batches, `batch_stride` apart, share no element: each batch is `strided` runs of
// `contiguous` elements, `ld` apart. Two layouts are recognised, since testing every pair of
// batches in general costs a loop over them: batches one after the other (a stride of at least
// one batch), and batches side by side inside each run's ld (a [rows][batch][contiguous] tensor,
// or one run per batch: a batch of vectors).
bool batches_disjoint(std::int64_t ld, std::int64_t batch_stride, Extents e, int batch) {
  std::int64_t one_batch = 0;
  if (!__builtin_mul_overflow(ld, e.strided, &one_batch) && batch_stride >= one_batch) return true;
  if (batch_stride < e.contiguous) return false;
  if (e.strided == 1) return true;
  std::int64_t last = 0;
  return !__builtin_mul_overflow(batch - 1, batch_stride, &last) && last <= ld - e.contiguous;
}

// Resolves `ld` (0 = packed) and `batch_stride` (kPacked; with one batch, any value) of a rows x
// cols operand named `name` and checks the rules every kernel shares: extents, batches that do
// not overlap (or, read-only, a broadcast), offsets within 64 bits, element alignment.
void resolve_operand(std::string_view name, void const* data, ScalarType type, MatrixLayout layout,
                     std::int64_t& ld, std::int64_t& batch_stride, int rows, int cols, int batch,
                     Access access = Access::Read) {
  // Names and messages are built for a refusal only: every call checks every operand, and a valid
  // one then allocates no string (eager messages were most of check_arguments' 3 us).
  auto const n = [&] { return names_of(std::string(name)); };
  Extents const e = extents(layout, rows, cols);
  if (ld == 0) ld = e.contiguous;
  if (ld < e.contiguous)
    fail(n().ld + " = " + str(ld) + " is less than the " + std::string(to_string(layout)) +
         " operand's contiguous extent " + str(e.contiguous));
  // Offsets are 64-bit element and byte counts: an ld of 2^62 once passed the checks, and the
  // kernels' offsets wrapped around.
  auto const too_far = [&] {
    return std::string(name) + " reaches beyond 64-bit byte offsets from " + n().data + ": " +
           n().ld + " = " + str(ld) + " over " + str(e.strided) +
           (layout == MatrixLayout::RowMajor ? " rows" : " columns");
  };
  std::int64_t one_batch = 0;
  if (__builtin_mul_overflow(ld, e.strided, &one_batch)) fail(too_far());
  if (batch == 1 || batch_stride == kPacked) {
    // One batch: the stride is never followed, so any value the caller passed is replaced.
    batch_stride = one_batch;
  } else if (batch_stride == 0) {
    if (access == Access::Write)
      fail(n().batch_stride + " = 0 broadcasts one matrix across the batch, but " +
           std::string(name) + " is written: its " + str(batch) +
           " batches would all write the same memory (give each batch its own matrix)");
  } else if (batch_stride < 0) {
    fail(n().batch_stride + " = " + str(batch_stride) + " is negative: kPacked (" + str(kPacked) +
         ") packs the batches, 0 broadcasts one matrix, a positive stride places them");
  } else if (!batches_disjoint(ld, batch_stride, e, batch)) {
    fail(n().batch_stride + " = " + str(batch_stride) + " is less than one batch (" +
         str(one_batch) +
         " elements): batches would overlap (batches side by side inside each row need a batch "
         "stride of at least " +
         str(e.contiguous) + " and (batch - 1) x batch_stride + " + str(e.contiguous) +
         " <= " + n().ld + " = " + str(ld) + ")");
  }
  // The last byte: (batches - 1) x batch_stride + (strided - 1) x ld + contiguous elements on,
  // below 2^63 as an address too (the aliasing checks compute with signed addresses).
  std::int64_t const bytes = size_of(type);
  auto const base = reinterpret_cast<std::uintptr_t>(data);
  std::int64_t span = 0, rows_span = 0;
  bool const overflow =
      __builtin_mul_overflow(stored_batches(batch_stride, batch) - 1, batch_stride, &span) ||
      __builtin_mul_overflow(e.strided - 1, ld, &rows_span) ||
      __builtin_add_overflow(span, rows_span, &span) ||
      __builtin_add_overflow(span, e.contiguous, &span) ||
      __builtin_mul_overflow(span, bytes, &span) || base > std::uintptr_t{INT64_MAX} ||
      static_cast<std::uintptr_t>(span) > std::uintptr_t{INT64_MAX} - base;
  if (overflow)
    fail(too_far() + (stored_batches(batch_stride, batch) > 1
                          ? " and " + n().batch_stride + " = " + str(batch_stride) + " over " +
                                str(batch) + " batches"
                          : std::string()));
  if (base % static_cast<std::uintptr_t>(bytes) != 0)
    fail(n().data + " must be " + str(bytes) + "-byte aligned (element alignment)");
}

}  // namespace

// TMA's limit on every stride of a descriptor (cuTensorMapEncodeTiled): below 2^40 bytes. CuTe's
// descriptor builder only asserts it, so with NDEBUG a larger stride built a descriptor that ended
// the context with an illegal instruction.
constexpr std::int64_t kTmaStrideLimit = std::int64_t{1} << 40;

// The first of TMA's rules that a resolved operand breaks, as an error message; "" when it keeps
// them all: base 16-byte aligned, strides multiples of 16 bytes below 2^40 bytes.
std::string tma_violation(std::string_view name, void const* data, ScalarType type,
                          MatrixLayout layout, std::int64_t ld, std::int64_t batch_stride, int rows,
                          int cols, int batch) {
  auto const n = [&] { return names_of(std::string(name)); };  // for a violation only
  std::int64_t const bytes = size_of(type);
  auto const per16 = [&] {
    return ": for " + std::string(to_string(type)) + ", a multiple of " + str(16 / bytes);
  };
  if (reinterpret_cast<std::uintptr_t>(data) % 16 != 0)
    return n().data + " must be 16-byte aligned (TMA reads it)";
  // In elements, so that nothing overflows: the sizes are powers of 2 that divide 2^40.
  if (ld >= kTmaStrideLimit / bytes)
    return n().ld + " = " + str(ld) + " elements of " + str(bytes) +
           " bytes: TMA strides must be below 2^40 bytes";
  if ((ld * bytes) % 16 != 0)
    return n().ld + " = " + str(ld) + " elements (" + str(ld * bytes) +
           " bytes) must be a multiple of 16 bytes (TMA strides)" + per16();
  if (stored_batches(batch_stride, batch) > 1) {
    if ((batch_stride * bytes) % 16 != 0)
      return n().batch_stride + " = " + str(batch_stride) +
             " elements must be a multiple of 16 bytes (TMA strides)" + per16();
    if (batch_stride >= kTmaStrideLimit / bytes)
      return n().batch_stride + " = " + str(batch_stride) + " elements of " + str(bytes) +
             " bytes: TMA strides must be below 2^40 bytes";
  } else {
    // One batch (or one broadcast to all): the descriptor still holds a batch stride, that of one
    // packed batch (kernels/gemm/sm90/kernel.cuh), and TMA checks it though it never follows it.
    std::int64_t const one_batch = ld * extents(layout, rows, cols).strided;
    if (one_batch >= kTmaStrideLimit / bytes)
      return "one batch of " + std::string(name) + " (" + n().ld + " x " +
             str(extents(layout, rows, cols).strided) + " = " + str(one_batch) + " elements of " +
             str(bytes) +
             " bytes) must be below 2^40 bytes: TMA holds it as the batch stride, even of one "
             "batch";
  }
  return "";
}

namespace {

// ---- Extents ------------------------------------------------------------------------------------
// M x N x batch in tiles of 64 x 64 at most kMaxTiles (kernel_arguments.hpp).

void check_extents(GemmArguments const& args) {
  for (auto [name, value] : {std::pair{"m", args.m}, std::pair{"n", args.n}, std::pair{"k", args.k},
                             std::pair{"batch", args.batch}}) {
    if (value < 1) fail(std::string(name) + " = " + str(value) + " must be at least 1");
    if (std::string_view(name) != "batch" && value > kMaxExtent)
      fail(std::string(name) + " = " + str(value) + " exceeds kMaxExtent = " + str(kMaxExtent) +
           " (2^31 - 1024): the kernels index rows, columns and K in 32 bits, and a tile that "
           "starts inside the matrix must end below 2^31");
  }
  std::int64_t tiles = tiles_of_64(args.m, args.n);
  if (__builtin_mul_overflow(tiles, std::int64_t{args.batch}, &tiles) || tiles > kMaxTiles)
    fail("m x n x batch = " + str(args.m) + " x " + str(args.n) + " x " + str(args.batch) +
         " is more than 2^30 output tiles of 64 x 64: the kernels count tiles in 32 bits");
}

std::string input_type_violation(ScalarType a) {
  if (is_16_bit(a) || is_fp8(a)) return "";
  return "a.type = " + std::string(to_string(a)) +
         ": the tensor-core GEMM takes fp16, bf16, e4m3 or e5m2 inputs (GemmKernel::Simt or Auto "
         "runs it)";
}

// wgmma reads 8-bit operands from shared memory K-major only (PTX ISA, wgmma.mma_async: the
// transpose of A and B exists for .f16/.bf16 alone), so fp8 A must be row-major and fp8 B
// column-major. Unchanged by gemm()'s
// transposition for a column-major D (D^T = B^T . A^T swaps and transposes A and B, and a
// transposed row-major A is a column-major B).
std::string fp8_layout_violation(GemmArguments const& r) {
  if (!is_fp8(r.a.type)) return "";
  std::string const why =
      ": wgmma reads fp8 operands K-major only (GemmKernel::Simt or Auto runs other layouts)";
  if (r.a.layout != MatrixLayout::RowMajor)
    return "a.layout = " + std::string(to_string(r.a.layout)) + " with " +
           std::string(to_string(r.a.type)) +
           " inputs: the tensor-core GEMM needs a K-major (row-major) A" + why;
  if (r.b.layout != MatrixLayout::ColMajor)
    return "b.layout = " + std::string(to_string(r.b.layout)) + " with " +
           std::string(to_string(r.b.type)) +
           " inputs: the tensor-core GEMM needs a K-major (column-major) B" + why;
  return "";
}

// ---- The fused epilogue -------------------------------------------------------------------------

bool is_fused(GemmEpilogue const& e) {
  return e.activation != Activation::Identity || e.bias != nullptr || e.row_scale != nullptr ||
         e.col_scale != nullptr || e.residual.data != nullptr || e.pre_activation.data != nullptr;
}

// The epilogue's vectors, by their argument names.
struct Vector {
  char const* name;
  void const* data;
  ScalarType type;
  int count;
};
std::vector<Vector> vectors_of(GemmArguments const& a) {
  GemmEpilogue const& e = a.epilogue;
  std::vector<Vector> v;
  int const bias_count = e.bias_broadcast == Broadcast::PerRow ? a.m : a.n;
  if (e.bias != nullptr) v.push_back({"epilogue.bias", e.bias, e.bias_type, bias_count});
  if (e.row_scale != nullptr)
    v.push_back({"epilogue.row_scale", e.row_scale, ScalarType::F32, a.m});
  if (e.col_scale != nullptr)
    v.push_back({"epilogue.col_scale", e.col_scale, ScalarType::F32, a.n});
  return v;
}

// The device scalars the kernels read (one float each), by their argument names: set ones only.
struct Scalar {
  char const* name;
  float const* data;
};
std::vector<Scalar> scalars_of(GemmArguments const& a) {
  std::vector<Scalar> v;
  for (Scalar const s :
       {Scalar{"alpha_ptr", a.alpha_ptr}, Scalar{"beta_ptr", a.beta_ptr},
        Scalar{"scale_a", a.scale_a}, Scalar{"scale_b", a.scale_b}, Scalar{"scale_d", a.scale_d}})
    if (s.data != nullptr) v.push_back(s);
  return v;
}

// The first rule of the tensor-core GEMM that resolved arguments break, as an error message; ""
// when it can run them. (C is read by the threads, not by TMA: it has no rule of its own.)
std::string tensor_core_violation(GemmArguments const& r) {
  std::string e = input_type_violation(r.a.type);
  if (e.empty()) e = fp8_layout_violation(r);
  if (e.empty())
    e = tma_violation("a", r.a.data, r.a.type, r.a.layout, r.a.ld, r.a.batch_stride, r.m, r.k,
                      r.batch);
  if (e.empty())
    e = tma_violation("b", r.b.data, r.b.type, r.b.layout, r.b.ld, r.b.batch_stride, r.k, r.n,
                      r.batch);
  if (e.empty())
    e = tma_violation("d", r.d, r.d_type, r.d_layout, r.ldd, r.batch_stride_d, r.m, r.n, r.batch);
  return e;
}

// The bytes [first, last) a resolved rows x cols operand spans, padding included.
struct ByteRange {
  std::uintptr_t first, last;
  bool overlaps(ByteRange o) const { return first < o.last && o.first < last; }
};
ByteRange range_of(void const* data, ScalarType type, MatrixLayout layout, std::int64_t ld,
                   std::int64_t batch_stride, int rows, int cols, int batch) {
  Extents const e = extents(layout, rows, cols);
  std::int64_t const elements = (batch - 1) * batch_stride + (e.strided - 1) * ld + e.contiguous;
  auto const first = reinterpret_cast<std::uintptr_t>(data);
  return {first, first + static_cast<std::uintptr_t>(elements * size_of(type))};
}
ByteRange range_of(Matrix const& x, int rows, int cols, int batch) {
  return range_of(x.data, x.type, x.layout, x.ld, x.batch_stride, rows, cols, batch);
}

// Each CTA reads the device scalars when it starts a tile, while other CTAs already write the
// outputs: none may lie in `written`, the bytes of output `name`.
void check_scalars_outside(GemmArguments const& args, ByteRange written, char const* name) {
  for (Scalar const& s : scalars_of(args)) {
    auto const first = reinterpret_cast<std::uintptr_t>(s.data);
    if (written.overlaps({first, first + sizeof(float)}))
      fail(std::string(s.name) + " lies inside " + name +
           ": the kernel reads it while writing there (keep it in memory of its own)");
  }
}

// D may be C exactly (in place: each element of C is read by the thread that then writes it) but
// must share no byte with A or B, nor with a C laid out otherwise: another CTA could read an
// element after it was overwritten, a wrong answer that depends on the schedule.
void check_d_aliasing(GemmArguments const& args) {
  ByteRange const d = range_of(args.d, args.d_type, args.d_layout, args.ldd, args.batch_stride_d,
                               args.m, args.n, args.batch);
  if (d.overlaps(range_of(args.a, args.m, args.k, args.batch)))
    fail("d overlaps a.data: D must not alias A or B (their memory ranges overlap)");
  if (d.overlaps(range_of(args.b, args.k, args.n, args.batch)))
    fail("d overlaps b.data: D must not alias A or B (their memory ranges overlap)");
  check_scalars_outside(args, d, "d");
  // amax_d is written by every CTA while they read A and B and write D.
  if (args.amax_d != nullptr) {
    auto const first = reinterpret_cast<std::uintptr_t>(args.amax_d);
    ByteRange const amax{first, first + sizeof(float)};
    for (auto const& [name, range] :
         {std::pair{"d", d}, std::pair{"a.data", range_of(args.a, args.m, args.k, args.batch)},
          std::pair{"b.data", range_of(args.b, args.k, args.n, args.batch)}})
      if (amax.overlaps(range))
        fail("amax_d lies inside " + std::string(name) +
             ": the kernel writes it while it reads A and B and writes D (keep it in memory of "
             "its own)");
    check_scalars_outside(args, amax, "amax_d");
  }
  if (args.c.data == nullptr || !d.overlaps(range_of(args.c, args.m, args.n, args.batch))) return;
  if (args.c.data != args.d || args.c.ld != args.ldd || args.c.batch_stride != args.batch_stride_d)
    fail(
        "c.data overlaps d but is not the same matrix: D may alias C only in place (c.data == d, "
        "c.ld == ldd = " +
        str(args.ldd) + ", c.batch_stride == batch_stride_d = " + str(args.batch_stride_d) +
        "; got c.ld = " + str(args.c.ld) + ", c.batch_stride = " + str(args.c.batch_stride) + ")");
}

}  // namespace

void check_workspace_outside(GemmArguments const& r, void const* data, std::size_t bytes) {
  auto const first = reinterpret_cast<std::uintptr_t>(data);
  ByteRange const workspace{first, first + bytes};
  for (auto const& [name, range] : {std::pair{"a.data", range_of(r.a, r.m, r.k, r.batch)},
                                    std::pair{"b.data", range_of(r.b, r.k, r.n, r.batch)},
                                    std::pair{"d", range_of(r.d, r.d_type, r.d_layout, r.ldd,
                                                            r.batch_stride_d, r.m, r.n, r.batch)}})
    if (workspace.overlaps(range))
      fail("workspace overlaps " + std::string(name) +
           ": the kernel writes its workspace while it reads the operands and writes D");
  if (r.c.data != nullptr && workspace.overlaps(range_of(r.c, r.m, r.n, r.batch)))
    fail("workspace overlaps c.data: the kernel writes its workspace while it reads C");
  check_scalars_outside(r, workspace, "workspace");
}

namespace {

// A workspace the caller gave (GemmArguments::workspace) for a stream-K call that needs `needed`
// bytes of it: enough of them, 16-byte aligned (the partial sums are float4s), sharing no byte with
// the resolved operands `r`, in device memory.
void check_workspace(GemmArguments const& r, std::size_t needed) {
  if (r.workspace == nullptr) return;
  if (r.workspace_bytes < needed)
    fail(
        fmt::format("workspace_bytes = {} is less than the {} bytes this call needs "
                    "(gemm_workspace_bytes), or leave workspace null for the library's pool",
                    r.workspace_bytes, needed));
  if (reinterpret_cast<std::uintptr_t>(r.workspace) % 16 != 0)
    fail(fmt::format("workspace = {} is not 16-byte aligned (the partial sums are float4s)",
                     r.workspace));
  check_workspace_outside(r, r.workspace, needed);
  check_device_pointer("gemm: workspace", r.workspace);
}

// Checks the fused epilogue of `args` (C and D already resolved) and resolves its matrices: each
// rule names the argument. Separate from resolve() so that the epilogue's rules read in one place.
void resolve_epilogue(GemmArguments& args) {
  GemmEpilogue& e = args.epilogue;
  if (!is_fused(e)) return;
  auto const d_type = [&] { return std::string(to_string(args.d_type)); };  // for refusals
  if (e.activation == Activation::LeakyReLU && !std::isfinite(e.leaky_slope))
    fail("epilogue.leaky_slope = " + std::to_string(e.leaky_slope) + " must be finite");
  if (e.bias != nullptr) {
    if (e.bias_type != ScalarType::F32 && e.bias_type != args.d_type)
      fail("epilogue.bias_type = " + std::string(to_string(e.bias_type)) +
           ": the bias is fp32 or of D's type (d_type = " + d_type() + ")");
  }
  for (Vector const& v : vectors_of(args)) {
    std::int64_t const bytes = size_of(v.type);
    if (reinterpret_cast<std::uintptr_t>(v.data) % static_cast<std::uintptr_t>(bytes) != 0)
      fail(std::string(v.name) + " must be " + str(bytes) + "-byte aligned (element alignment)");
  }
  for (auto [name, x] :
       {std::pair<char const*, Matrix*>{"epilogue.residual", &e.residual},
        std::pair<char const*, Matrix*>{"epilogue.pre_activation", &e.pre_activation}}) {
    if (x->data == nullptr) continue;
    if (x->type != args.d_type)
      fail(std::string(name) + ".type = " + std::string(to_string(x->type)) +
           " differs from d_type = " + d_type() + " (the epilogue's matrices are of D's type)");
    resolve_operand(name, x->data, x->type, x->layout, x->ld, x->batch_stride, args.m, args.n,
                    args.batch, x == &e.pre_activation ? Access::Write : Access::Read);
  }

  // What the kernel writes must not be what it reads elsewhere: another CTA could read an element
  // after it was overwritten. Compared by the byte ranges the operands span (padding included).
  ByteRange const d = range_of(args.d, args.d_type, args.d_layout, args.ldd, args.batch_stride_d,
                               args.m, args.n, args.batch);
  if (e.pre_activation.data != nullptr) {
    ByteRange const pre = range_of(e.pre_activation, args.m, args.n, args.batch);
    std::vector<std::pair<char const*, ByteRange>> others = {
        {"a.data", range_of(args.a, args.m, args.k, args.batch)},
        {"b.data", range_of(args.b, args.k, args.n, args.batch)},
        {"d", d}};
    check_scalars_outside(args, pre, "epilogue.pre_activation.data");
    if (args.c.data != nullptr)
      others.push_back({"c.data", range_of(args.c, args.m, args.n, args.batch)});
    if (e.residual.data != nullptr)
      others.push_back(
          {"epilogue.residual.data", range_of(e.residual, args.m, args.n, args.batch)});
    for (auto const& [name, range] : others)
      if (pre.overlaps(range))
        fail("epilogue.pre_activation.data overlaps " + std::string(name) +
             ": the pre-activation output must not alias A, B, C, D or the residual (their memory "
             "ranges overlap)");
  }
  // The residual is read after z was stored (the SIMT GEMM stores z in D, then reads it back to
  // activate it), so it must not be D, not even exactly.
  if (e.residual.data != nullptr && range_of(e.residual, args.m, args.n, args.batch).overlaps(d))
    fail(
        "epilogue.residual.data overlaps d: the residual must not alias D (their memory ranges "
        "overlap)");
  for (Vector const& v : vectors_of(args)) {
    auto const first = reinterpret_cast<std::uintptr_t>(v.data);
    ByteRange const range{first, first + static_cast<std::uintptr_t>(v.count) * size_of(v.type)};
    if (range.overlaps(d))
      fail(std::string(v.name) + " overlaps d: the epilogue's vectors are read while D is written");
    if (e.pre_activation.data != nullptr &&
        range.overlaps(range_of(e.pre_activation, args.m, args.n, args.batch)))
      fail(std::string(v.name) +
           " overlaps epilogue.pre_activation.data: the epilogue's vectors are read while the "
           "pre-activation output is written");
  }
}

MatrixLayout transposed(MatrixLayout l) {
  return l == MatrixLayout::RowMajor ? MatrixLayout::ColMajor : MatrixLayout::RowMajor;
}

// Checks `args` against the rules of `kernel` (Auto: the rules every kernel shares) and resolves
// them.
GemmArguments resolve(GemmArguments args, GemmKernel kernel) {
  check_enum("kernel", kernel, GemmKernel::Simt, "GemmKernel");
  check_enums(args);
  check_extents(args);
  if (args.a.data == nullptr) fail("a.data is null");
  if (args.b.data == nullptr) fail("b.data is null");
  if (args.d == nullptr) fail("d is null");
  // With beta in device memory the kernel decides on the device whether to read C, so C must be
  // there and keep C's rules whatever value *beta_ptr holds when it runs.
  bool const reads_c = args.beta != 0.0f || args.beta_ptr != nullptr;
  bool const fp8_d = is_fp8(args.d_type);
  // The epilogue reads C into D's staging buffer, in D's type: 8 bits would lose C's precision
  // (cuBLASLt takes a 16-bit C beside an fp8 D, which this epilogue does not stage).
  if (fp8_d && reads_c)
    fail("beta = " + std::to_string(args.beta) +
         (args.beta_ptr != nullptr ? " with beta_ptr" : "") +
         " and d_type = " + std::string(to_string(args.d_type)) +
         ": an fp8 D takes no C; keep beta 0 and beta_ptr null");
  if (args.beta != 0.0f && args.c.data == nullptr) fail("c.data is null but beta != 0 reads C");
  if (args.beta_ptr != nullptr && args.c.data == nullptr)
    fail(
        "c.data is null but beta_ptr is set: the kernel reads C whenever *beta_ptr != 0, which "
        "only the device knows; pass C (it may be D, in place)");
  // One input type. An e4m3 x e5m2 mix (gradients x weights in training) is not compiled: it would
  // double the fp8 tensor-core configurations (12 translation units instead of 6).
  if (args.a.type != args.b.type)
    fail("a.type = " + std::string(to_string(args.a.type)) + " and b.type = " +
         std::string(to_string(args.b.type)) + " differ: A and B share one input type" +
         (is_fp8(args.a.type) && is_fp8(args.b.type) ? " (no e4m3 x e5m2 mix)" : ""));
  if (kernel == GemmKernel::TensorCore && !input_type_violation(args.a.type).empty())
    fail(input_type_violation(args.a.type));
  // Type names for the messages below, built for a refusal only.
  auto const in = [&] { return std::string(to_string(args.a.type)); };
  auto const d_type = [&] { return std::string(to_string(args.d_type)); };
  if (is_16_bit(args.a.type) && args.d_type != args.a.type && args.d_type != ScalarType::F32 &&
      !fp8_d)
    fail("d_type = " + d_type() + ": D is " + in() + " (the input type), fp32, or e4m3 or e5m2");
  if (is_fp8(args.a.type) && !is_16_bit(args.d_type) && args.d_type != ScalarType::F32 && !fp8_d)
    fail("d_type = " + d_type() + ": D of " + in() + " inputs is bf16, fp16, fp32, e4m3 or e5m2");
  if (fp8_d && kernel == GemmKernel::Simt)
    fail("d_type = " + d_type() +
         ": the SIMT GEMM has no fp8 output; an fp8 D runs on the tensor cores (GemmKernel::"
         "TensorCore or Auto)");
  // The fused ops read z as staged in D's type: 8 bits would feed them a coarse z.
  if (fp8_d && is_fused(args.epilogue))
    fail("epilogue is fused but d_type = " + d_type() +
         ": an fp8 D takes the plain epilogue (run a fused epilogue with a 16-bit D)");
  for (auto [name, p] : {std::pair<char const*, void const*>{"scale_d", args.scale_d},
                         std::pair<char const*, void const*>{"amax_d", args.amax_d}}) {
    if (p != nullptr && !fp8_d)
      fail(std::string(name) + " is set but d_type = " + d_type() +
           ": scale_d and amax_d belong to an fp8 (e4m3, e5m2) D");
  }
  if (!is_16_bit(args.a.type) && !is_fp8(args.a.type) && args.d_type != args.a.type)
    fail("d_type = " + d_type() + ": D is " + in() + " (the input type)");
  // Per-tensor scales dequantise fp8 data; other types have no use for them beyond alpha, and
  // cuBLASLt rejects them there too.
  for (auto [name, scale] :
       {std::pair{"scale_a", args.scale_a}, std::pair{"scale_b", args.scale_b}}) {
    if (scale != nullptr && !is_fp8(args.a.type))
      fail(std::string(name) + " is set but a.type = " + in() +
           ": per-tensor scales apply to fp8 (e4m3, e5m2) inputs only; fold the factor into alpha");
  }
  // A device alpha or beta replaces the host value; a host value set beside it would be ignored,
  // a silent wrong answer for a caller who meant the product.
  if (args.alpha_ptr != nullptr && args.alpha != 1.0f)
    fail("alpha = " + std::to_string(args.alpha) +
         " and alpha_ptr are both set: the kernel reads *alpha_ptr in place of alpha; leave alpha "
         "at 1 (or fold the factor into the device value)");
  if (args.beta_ptr != nullptr && args.beta != 0.0f)
    fail("beta = " + std::to_string(args.beta) +
         " and beta_ptr are both set: the kernel reads *beta_ptr in place of beta; leave beta at "
         "0");
  for (Scalar const& s : scalars_of(args))
    if (reinterpret_cast<std::uintptr_t>(s.data) % alignof(float) != 0)
      fail(std::string(s.name) + " must be 4-byte aligned (it points to one float)");
  if (reinterpret_cast<std::uintptr_t>(args.amax_d) % alignof(float) != 0)
    fail("amax_d must be 4-byte aligned (it points to one float, maxed atomically)");
  if (reads_c && args.c.type != args.d_type)
    fail("c.type = " + std::string(to_string(args.c.type)) +
         " differs from d_type = " + std::string(to_string(args.d_type)));
  if (reads_c && args.c.layout != args.d_layout)
    fail("c.layout = " + std::string(to_string(args.c.layout)) +
         " differs from d_layout = " + std::string(to_string(args.d_layout)));

  resolve_operand("a", args.a.data, args.a.type, args.a.layout, args.a.ld, args.a.batch_stride,
                  args.m, args.k, args.batch);
  resolve_operand("b", args.b.data, args.b.type, args.b.layout, args.b.ld, args.b.batch_stride,
                  args.k, args.n, args.batch);
  resolve_operand("d", args.d, args.d_type, args.d_layout, args.ldd, args.batch_stride_d, args.m,
                  args.n, args.batch, Access::Write);
  if (reads_c) {
    resolve_operand("c", args.c.data, args.c.type, args.c.layout, args.c.ld, args.c.batch_stride,
                    args.m, args.n, args.batch);
  } else {
    args.c = Matrix{nullptr, args.d_type, args.d_layout, args.ldd, args.batch_stride_d};
  }
  check_d_aliasing(args);
  resolve_epilogue(args);
  if (kernel == GemmKernel::TensorCore || (fp8_d && kernel == GemmKernel::Auto)) {
    std::string const e = tensor_core_violation(args);
    if (!e.empty())
      fail(e + (kernel == GemmKernel::Auto ? " (an fp8 D runs on the tensor cores only)" : ""));
  }
  return args;
}

}  // namespace

GemmArguments operands_swapped(GemmArguments args) {
  std::swap(args.m, args.n);
  std::swap(args.a, args.b);
  std::swap(args.scale_a, args.scale_b);
  args.a.layout = transposed(args.a.layout);
  args.b.layout = transposed(args.b.layout);
  return args;
}

namespace {

// The epilogue of D^T: D's rows are D^T's columns, so the row and column vectors trade places and
// the matrices are seen transposed (the same storage).
GemmEpilogue transposed(GemmEpilogue e) {
  std::swap(e.row_scale, e.col_scale);
  e.bias_broadcast =
      e.bias_broadcast == Broadcast::PerRow ? Broadcast::PerColumn : Broadcast::PerRow;
  e.residual.layout = transposed(e.residual.layout);
  e.pre_activation.layout = transposed(e.pre_activation.layout);
  return e;
}

// D column-major: compute D^T = B^T . A^T, whose D^T is row-major with the same storage.
GemmArguments with_row_major_d(GemmArguments args) {
  if (args.d_layout == MatrixLayout::RowMajor) return args;
  args = operands_swapped(args);
  args.c.layout = MatrixLayout::RowMajor;
  args.d_layout = MatrixLayout::RowMajor;
  args.epilogue = transposed(args.epilogue);
  return args;
}

}  // namespace

std::string split_k_violation(GemmArguments const& r, GemmKernel kernel) {
  if (kernel != GemmKernel::TensorCore) return "split-K runs on the tensor-core GEMM only";
  if (r.batch != 1)
    return "split-K takes one matrix (batch = " + str(r.batch) + "): its slices are the batches";
  if (is_fused(r.epilogue))
    return "split-K takes the plain epilogue (the slices' sums are added after the GEMM)";
  if (is_fp8(r.d_type)) return "split-K writes a 16-bit or fp32 D, not fp8";
  if (r.alpha_ptr != nullptr || r.beta_ptr != nullptr)
    return "split-K takes alpha and beta from the host (alpha_ptr and beta_ptr unset)";
  return {};
}

void check_arguments(GemmArguments const& args, GemmKernel kernel) {
  (void)resolve(args, kernel);
}

GemmArguments resolved(GemmArguments const& args, GemmKernel kernel) {
  return resolve(args, kernel);
}

GemmKernel selected_kernel(GemmArguments const& args, GemmKernel kernel) {
  GemmArguments const r = resolve(args, kernel);
  if (kernel != GemmKernel::Auto) return kernel;
  return tensor_core_violation(r).empty() ? GemmKernel::TensorCore : GemmKernel::Simt;
}

GemmArguments kernel_arguments(GemmArguments const& args, GemmKernel kernel) {
  if (kernel == GemmKernel::Auto)
    throw std::logic_error("gemm: internal error: kernel_arguments needs the kernel, not Auto");
  return with_row_major_d(resolve(args, kernel));
}

ConsumerDesign selected_design(GemmArguments const& args, ConsumerDesign design) {
  return selected_design(args, design, current_dram_bytes_per_s());
}

ConsumerDesign selected_design(GemmArguments const& args, ConsumerDesign design,
                               double dram_bytes_per_s) {
  check_enum("design", design, ConsumerDesign::PingPong, "ConsumerDesign");
  if (design != ConsumerDesign::Auto) return design;
  // Measured on the H200 (2026-11-29, docs/kernels/sm90_ts_gemm.md): ping-pong wins on outputs
  // of 8192 x 8192 and more, whatever K (bf16 8192x8192x1024: 620 against 582 TFLOP/s;
  // 16384x16384x4096: 684 against 658; 8192^3: within 2 % either way), where its warpgroups'
  // epilogues hide behind each other's main loops; on smaller outputs the cooperative kernel's
  // 128 x 256 tiles are faster (4096^3: 740 against 690; 1024x8192x8192: 757 against 700).
  // Not on the H100 (3.35 TB/s against the H200's 4.9; 2026-12-06, 7918cba,
  // bench/results/auto_design_h100_2026-12-06/): past K = 1024 its ping-pong kernel spends more
  // cycles than the cooperative one (16384x16384x4096: 4.57 M against 4.35 M), a third more
  // operand bytes per output tile, and under the power cap much more time (sustained medians,
  // cooperative / ping-pong: 8192^3 1.605 / 1.814 ms, 12288x12288x4096 1.779 / 2.119,
  // 16384x16384x4096 3.136 / 3.912). So large outputs take ping-pong only on the faster memory.
  // Since ping-pong hands its turn over at the last wgmma's issue (2026-12-03), it also wins where
  // K is short on outputs of 4096 x 4096 and more, an epilogue per 16 K tiles or fewer (bf16
  // 4096x4096x1024: cooperative/ping-pong 1.049 burst, 1.106 sustained, 1.111 in cycles), while at
  // longer K on those outputs the two are within 1-3.5 % either way, the cooperative ahead in
  // burst (bench/results/gemm_peers_2026-12-03/design_*.json).
  // An epilogue with a second pass over each subtile (an activation, a residual or the
  // pre-activation output: epilogue_ops.cuh's Chunk phase) goes by K alone. Below K = 4096 it takes
  // ping-pong, whose finish task runs the pass beside the other warpgroup's main loop, where the
  // cooperative design's stalls both warpgroups' tensor cores (bf16 bias + GELU, H100, 2026-12-05,
  // ncu kernel cycles, ping-pong / cooperative: 8192x8192x1024 411 K / 510 K, 8192x8192x2048
  // 702 K / 781 K, 4096x4096x2048 181 K / 205 K). From K = 4096 on the main loop hides that pass:
  // the two spend the same cycles within 2-3 % (16384x16384x4096 6 % fewer cooperative), and the
  // cooperative kernel runs faster under the power cap (burst medians, 8192x8192x4096 0.791
  // against 0.934 ms, 8192^3 1.476 against 1.638, 16384x16384x4096 3.585 against 3.758; SiLU alike;
  // bench/results/fused_epilogue_2026-12-05/fused_design_*.json).
  if (sm90::epilogue_config_of(args).second_pass())
    return args.k < 4096 ? ConsumerDesign::PingPong : ConsumerDesign::Cooperative;
  std::int64_t const output = static_cast<std::int64_t>(args.m) * args.n;
  constexpr double kPingPongDramBytesPerS = 4e12;  // between the H100's and the H200's
  bool const large_output = output >= 8192LL * 8192 && dram_bytes_per_s >= kPingPongDramBytesPerS;
  bool const short_k = output >= 4096LL * 4096 && args.k <= 1024;
  return large_output || short_k ? ConsumerDesign::PingPong : ConsumerDesign::Cooperative;
}

bool is_fp8(ScalarType t) {
  return t == ScalarType::E4M3 || t == ScalarType::E5M2;
}

bool is_16_bit(ScalarType t) {
  return t == ScalarType::F16 || t == ScalarType::BF16;
}

void check_tuning(GemmTuning const& tuning) {
  check_enum("tuning.kernel", tuning.kernel, GemmKernel::Simt, "GemmKernel");
  check_enum("tuning.design", tuning.design, ConsumerDesign::PingPong, "ConsumerDesign");
  check_enum("tuning.tile_scheduling", tuning.tile_scheduling, TileScheduling::StreamK,
             "TileScheduling");
  if (tuning.raster_panel < 1)
    fail("tuning.raster_panel = " + str(tuning.raster_panel) + " must be at least 1");
  if (tuning.max_ctas < 0)
    fail("tuning.max_ctas = " + str(tuning.max_ctas) + " must be 0 (one per SM) or positive");
  bool const cluster_ok = (tuning.cluster_m == 1 && tuning.cluster_n == 1) ||
                          (tuning.cluster_m == 2 && tuning.cluster_n == 1) ||
                          (tuning.cluster_m == 1 && tuning.cluster_n == 2);
  if (!cluster_ok)
    fail("tuning.cluster_m x tuning.cluster_n = " + str(tuning.cluster_m) + "x" +
         str(tuning.cluster_n) + " is not a cluster shape of the kernel (1x1, 2x1 or 1x2)");
  if (tuning.stages != 0 && (tuning.stages < 2 || tuning.stages > 8))
    fail("tuning.stages = " + str(tuning.stages) + " must be 0 (the design's default) or 2 to 8");
  if (tuning.staging_buffers < 0 || tuning.staging_buffers > 2)
    fail("tuning.staging_buffers = " + str(tuning.staging_buffers) +
         " must be 0 (the design's default), 1 or 2");
  check_enum("tuning.split_k_reduction", tuning.split_k_reduction, SplitKReduction::SeparateKernel,
             "SplitKReduction");
  if (tuning.split_k_reduction == SplitKReduction::InKernel &&
      (tuning.design == ConsumerDesign::PingPong || tuning.cluster_m * tuning.cluster_n != 1))
    fail(fmt::format(
        "tuning.split_k_reduction = in-kernel: the slices add themselves up on the cooperative "
        "design with 1x1 clusters (asked: design {}, cluster {}x{}); ask for design Auto or "
        "Cooperative and a 1x1 cluster, or split_k_reduction SeparateKernel",
        to_string(tuning.design), tuning.cluster_m, tuning.cluster_n));
  if (tuning.split_k < 0 || tuning.split_k > kMaxSplitK)
    fail("tuning.split_k = " + str(tuning.split_k) + " must be 0 (Auto), 1 (no split) or 2 to " +
         str(kMaxSplitK) + " slices of K");
  // The cooperative design's widths are every width there is; ping-pong runs its own alone.
  std::span<int const> const widths = sm90::tile_widths(ConsumerDesign::Cooperative);
  std::span<int const> const pingpong = sm90::tile_widths(ConsumerDesign::PingPong);
  if (tuning.tile_n != 0 && std::ranges::find(widths, tuning.tile_n) == widths.end())
    fail(fmt::format("tuning.tile_n = {} must be 0 (Auto) or one of {}", tuning.tile_n,
                     fmt::join(widths, ", ")));
  if (tuning.design == ConsumerDesign::PingPong && tuning.tile_n != 0 &&
      std::ranges::find(pingpong, tuning.tile_n) == pingpong.end())
    fail(
        fmt::format("tuning.tile_n = {} with tuning.design = pingpong: ping-pong runs tiles {} "
                    "wide, one per warpgroup ({} are the cooperative design's); leave it 0 or "
                    "ask for design Cooperative",
                    tuning.tile_n, fmt::join(pingpong, ", "), fmt::join(widths, ", ")));
}

bool auto_picks_tile_width(GemmArguments const& r, GemmTuning const& tuning) {
  // Stages or staging buffers asked for are a shape of the design's own tile: Auto keeps it. It
  // also keeps it for what narrow tiles have not been measured on yet (fp8 inputs, a fused
  // epilogue, which Auto otherwise gives ping-pong): a width asked for runs those.
  bool const own_shape = tuning.stages != 0 || tuning.staging_buffers != 0;
  bool const measured = is_16_bit(r.a.type) && !sm90::epilogue_config_of(r).fused();
  return tuning.tile_n == 0 && tuning.design != ConsumerDesign::PingPong && !own_shape && measured;
}

GemmTuning with_tile_width(GemmArguments const& r, GemmTuning tuning, int sms) {
  if (auto_picks_tile_width(r, tuning)) tuning.tile_n = selected_tile_n(r, sms);
  // A width asked for (or chosen) names the cooperative design's tile; ping-pong's is checked.
  if (tuning.tile_n != 0 && tuning.design == ConsumerDesign::Auto)
    tuning.design = ConsumerDesign::Cooperative;
  return tuning;
}

namespace {

// The tensor-core GEMM on arguments resolved (`args`, the caller's terms) and transposed for a
// row-major D (`r`), their pointers checked: split (split_k.hpp) or one launch.
void run_tensor_core(GemmArguments const& args, GemmArguments const& r, std::string const& no_split,
                     GemmTuning tuning, cudaStream_t stream) {
  // The kernel computes D^T for a column-major D: its tile rows are D's columns.
  if (args.d_layout == MatrixLayout::ColMajor) std::swap(tuning.cluster_m, tuning.cluster_n);
  if (tuning.tile_scheduling == TileScheduling::StreamK) {
    run_stream_k(r, with_tile_width(r, tuning, current_sm_count()), stream);
    return;
  }
  SplitChoice const split = split_k_choice(r, tuning, current_sm_count(), no_split.empty());
  if (split.slices > 1) {
    run_split_k(r, split.tuning, split.slices, stream, split.swap_ab);
    return;
  }
  tuning = split.tuning;
  tuning.design = selected_design(r, tuning.design);
  sm90::instance_for(sm90::config_of(r, tuning))(r, tuning, {}, stream);
}

}  // namespace

void run_checked_tensor_core(GemmArguments const& args, GemmTuning const& tuning,
                             cudaStream_t stream) {
  GemmArguments const r = with_row_major_d(resolve(args, GemmKernel::TensorCore));
  std::string const no_split = split_k_violation(r, GemmKernel::TensorCore);
  if (tuning.split_k > 1 && !no_split.empty())
    fail("tuning.split_k = " + str(tuning.split_k) + ": " + no_split);
  run_tensor_core(args, r, no_split, tuning, stream);
}

std::size_t gemm_workspace_bytes(GemmArguments const&, GemmTuning const& tuning) {
  check_tuning(tuning);
  if (tuning.tile_scheduling != TileScheduling::StreamK) return 0;
  return stream_k_workspace_bytes(tuning, current_sm_count());
}

void gemm(GemmArguments const& args, cudaStream_t stream, GemmTuning tuning) {
  check_tuning(tuning);
  if (tuning.tile_scheduling == TileScheduling::Dynamic)
    fail(
        "tuning.tile_scheduling = dynamic: the dynamic tile scheduler runs the grouped GEMMs "
        "(grouped_gemm and its layouts); gemm() walks its tiles in a static order (Auto or "
        "Static) or stream-K");
  bool const stream_k = tuning.tile_scheduling == TileScheduling::StreamK;
  if (stream_k) {
    if (std::string const why = stream_k_violation(tuning); !why.empty())
      fail("tuning.tile_scheduling = stream-k " + why);
  }
  // An asked-for kernel needs no selection: the resolution below checks the arguments for it.
  GemmKernel const kernel =
      tuning.kernel == GemmKernel::Auto ? selected_kernel(args) : tuning.kernel;
  GemmArguments const r = with_row_major_d(resolve(args, kernel));
  std::string const no_split = split_k_violation(r, kernel);
  if (tuning.split_k > 1 && !no_split.empty())
    fail("tuning.split_k = " + str(tuning.split_k) + ": " + no_split);
  if (stream_k) check_workspace(r, stream_k_workspace_bytes(tuning, current_sm_count()));
  check_device_pointers(args);
  // Auto, where only TMA's 16-byte rules keep the operands from the tensor cores: aligned copies.
  if (tuning.kernel == GemmKernel::Auto && kernel == GemmKernel::Simt &&
      run_repacked(args, tuning, stream))
    return;
  if (kernel == GemmKernel::Simt) {
    if (stream_k)
      fail(
          "tuning.tile_scheduling = stream-k runs on the tensor-core GEMM, whose rules these "
          "arguments do not keep (" +
          tensor_core_violation(args) + "): they run on the SIMT GEMM");
    simt::run_simt_gemm(r, tuning, stream);
    return;
  }
  run_tensor_core(args, r, no_split, tuning, stream);
}

}  // namespace warploom::gemm
