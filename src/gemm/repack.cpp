// src/gemm/repack.cpp — run_repacked (repack.hpp).
#include "repack.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>

#include "gemm/copy_matrix.hpp"  // the copy kernel (kernels/gemm)
#include "kernel_arguments.hpp"  // tma_violation, is_fp8, is_16_bit, run_checked_tensor_core
#include "workspace.hpp"

namespace warploom::gemm {
namespace {

// Below this much work (m x n x k x batch, 2^26: 134 MFLOP) the SIMT GEMM's few microseconds beat
// the copies' launches.
constexpr std::int64_t kMinWork = std::int64_t{1} << 26;

// Where an operand lies for TMA: its own storage, or a copy at `offset` in the workspace (in
// `layout`, transposed where that differs from the operand's).
struct Placement {
  bool copied = false, transposed = false;
  MatrixLayout layout = MatrixLayout::RowMajor;
  std::int64_t ld = 0, batch_stride = 0;
  std::int64_t strided = 0, contiguous = 0;  // the operand's own
  int stored_batches = 1;
  std::size_t offset = 0, bytes = 0;
};

// How a resolved rows x cols operand (`name`) is placed: in a copy when it breaks TMA's rules or
// is not in `layout` (fp8: K-major), else where it lies.
Placement place(char const* name, void const* data, ScalarType type, MatrixLayout layout,
                std::int64_t ld, std::int64_t batch_stride, int rows, int cols, int batch,
                MatrixLayout wanted) {
  Placement p;
  p.layout = layout;
  p.ld = ld;
  p.batch_stride = batch_stride;
  p.contiguous = layout == MatrixLayout::RowMajor ? cols : rows;
  p.strided = layout == MatrixLayout::RowMajor ? rows : cols;
  p.stored_batches = batch > 1 && batch_stride != 0 ? batch : 1;
  bool const keeps_rules =
      tma_violation(name, data, type, layout, ld, batch_stride, rows, cols, batch).empty();
  if (keeps_rules && layout == wanted) return p;
  std::int64_t const per16 = 16 / size_of(type);
  p.copied = true;
  p.transposed = layout != wanted;
  p.layout = wanted;
  std::int64_t const contiguous = p.transposed ? p.strided : p.contiguous;
  std::int64_t const strided = p.transposed ? p.contiguous : p.strided;
  p.ld = (contiguous + per16 - 1) / per16 * per16;
  // Batches packed one after another; one matrix (or one broadcast to all) stays one.
  p.batch_stride = p.stored_batches > 1 ? p.ld * strided : 0;
  p.bytes = static_cast<std::size_t>(p.stored_batches * p.ld * strided * size_of(type));
  return p;
}

// The copy of operand storage `from` (strides from_ld, from_batch_stride) to `to` (to_ld,
// to_batch_stride), `p`'s extents and batches.
MatrixCopy copy_of(Placement const& p, ScalarType type, void const* from, std::int64_t from_ld,
                   std::int64_t from_batch_stride, void* to, std::int64_t to_ld,
                   std::int64_t to_batch_stride) {
  return {.src = from,
          .src_ld = from_ld,
          .src_batch_stride = from_batch_stride,
          .dst = to,
          .dst_ld = to_ld,
          .dst_batch_stride = to_batch_stride,
          .strided = p.strided,
          .contiguous = p.contiguous,
          .batches = p.stored_batches,
          .element_bytes = static_cast<int>(size_of(type)),
          .transpose = p.transposed};
}

// The placements of resolved arguments `r`' operands, or none where gemm() does not copy them.
struct Placements {
  Placement a, b, d;
};
std::optional<Placements> placements(GemmArguments const& r) {
  bool const fp8 = is_fp8(r.a.type);
  if (!is_16_bit(r.a.type) && !fp8) return std::nullopt;
  if (std::int64_t{r.m} * r.n * r.k * r.batch < kMinWork) return std::nullopt;
  // wgmma reads fp8 operands K-major only: A row-major, B column-major (transposed copies).
  MatrixLayout const a_wanted = fp8 ? MatrixLayout::RowMajor : r.a.layout;
  MatrixLayout const b_wanted = fp8 ? MatrixLayout::ColMajor : r.b.layout;
  Placements p{place("a", r.a.data, r.a.type, r.a.layout, r.a.ld, r.a.batch_stride, r.m, r.k,
                     r.batch, a_wanted),
               place("b", r.b.data, r.b.type, r.b.layout, r.b.ld, r.b.batch_stride, r.k, r.n,
                     r.batch, b_wanted),
               place("d", r.d, r.d_type, r.d_layout, r.ldd, r.batch_stride_d, r.m, r.n, r.batch,
                     r.d_layout)};
  if (!p.a.copied && !p.b.copied && !p.d.copied) return std::nullopt;  // another rule keeps them
  return p;
}

}  // namespace

bool repacks(GemmArguments const& args) {
  try {
    return placements(resolved(args, GemmKernel::Simt)).has_value();
  } catch (std::invalid_argument const&) {
    return false;  // not a problem gemm()'s Auto hands the SIMT GEMM (an fp8 D): never copied
  }
}

bool run_repacked(GemmArguments const& args, GemmTuning tuning, cudaStream_t stream) {
  GemmArguments const r = resolved(args, GemmKernel::Simt);  // the caller's terms, strides filled
  std::optional<Placements> placed = placements(r);
  if (!placed) return false;
  Placement &pa = placed->a, &pb = placed->b, &pd = placed->d;

  // The copies one after another, each at a 256-byte boundary.
  auto const at = [](std::size_t end) { return (end + 255) / 256 * 256; };
  pb.offset = at(pa.bytes);
  pd.offset = at(pb.offset + pb.bytes);
  StreamWorkspace const workspace(pd.offset + pd.bytes, stream);
  auto* const base = static_cast<char*>(workspace.get());

  GemmArguments p = r;
  auto const use = [&](Matrix& x, Placement const& at) {
    if (!at.copied) return;
    x.data = base + at.offset, x.layout = at.layout, x.ld = at.ld, x.batch_stride = at.batch_stride;
  };
  use(p.a, pa);
  use(p.b, pb);
  if (pd.copied) p.d = base + pd.offset, p.ldd = pd.ld, p.batch_stride_d = pd.batch_stride;
  tuning.kernel = GemmKernel::TensorCore;
  try {
    check_arguments(p, GemmKernel::TensorCore);  // nothing enqueued yet: the SIMT GEMM runs it
  } catch (std::invalid_argument const&) {
    return false;
  }
  if (pa.copied)
    launch_matrix_copy(copy_of(pa, r.a.type, r.a.data, r.a.ld, r.a.batch_stride, base + pa.offset,
                               pa.ld, pa.batch_stride),
                       stream);
  if (pb.copied)
    launch_matrix_copy(copy_of(pb, r.b.type, r.b.data, r.b.ld, r.b.batch_stride, base + pb.offset,
                               pb.ld, pb.batch_stride),
                       stream);
  run_checked_tensor_core(p, tuning, stream);  // the caller checked the operands' pointers
  if (pd.copied)
    launch_matrix_copy(copy_of(pd, r.d_type, base + pd.offset, pd.ld, pd.batch_stride, r.d, r.ldd,
                               r.batch_stride_d),
                       stream);
  return true;
}

}  // namespace warploom::gemm
