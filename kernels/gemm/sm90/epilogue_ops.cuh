// kernels/gemm/sm90/epilogue_ops.cuh
//
// The sm90 TS GEMM's fused epilogue (issue 13; warploom/gemm.hpp, GemmEpilogue) as a compile-time
// composition of small ops. With acc = A . B, for D's row i and column j:
//
//   z = alpha * scale_a * scale_b * row_scale[i] * col_scale[j] * acc + beta * C + bias
//   pre_activation = z;   D = activation(z) + residual
//
// An instance's epilogue is a Chain<Ops...> (part of its configuration, sm90_instances.hpp
// EpilogueConfig): which ops exist, the activation, the bias's broadcast and element type are
// types; pointers, strides and LeakyReLU's slope are run-time Params, filled on the host from the
// resolved arguments. Chain<> is the plain GEMM: every hook below compiles away, and its SASS is
// the unfused kernel's.
//
// Each op takes part in one of three phases of epilogue.cuh, chosen so that the unrolled loop over
// the accumulator stays what its header comment asks (one multiply or FMA per value and the
// shared-memory store):
//   Row     once per tile: folded into the thread's per-row factor (alpha * row_scale[i]) and bias;
//           a thread holds 2 (cooperative) or 4 (ping-pong) rows. RowScale, Bias<PerRow>.
//   Column  once per epilogue subtile: the thread's 16 (8 for fp32 D) columns loaded into
//           registers, then one multiply (col_scale) or add (bias) per value. ColScale,
//           Bias<PerColumn>.
//   Chunk   after z is staged in shared memory, a rolled pass over the subtile in 16-byte chunks:
//           pre_activation stored from the chunk, the activation applied, the residual added.
//           PreActivation, Act<kind>, Residual. The activation is not in the unrolled loop, even
//           alone (a Linear layer's bias + GELU), where it would save the pass: copied for each of
//           a tile's 128 values per thread it doubled the ping-pong kernel's code (bias + GELU
//           12.1 K SASS instructions against 5.8 K plain; SiLU 9.5 K) and stalled instruction
//           fetch (28.5 % of GELU's warp samples "no instruction", 6 % SiLU's): bias + GELU at
//           8192x8192x1024 took 0.377 ms against this pass's 0.288, SiLU 0.283 against 0.272
//           (H200, 2026-12-02, tools/epilogue_variants.sh; knowledge base:
//           anti-patterns/unrolled-epilogue-code-bloat.md).
// The Chunk phase reads z as staged, in D's type: the activation sees exactly the value stored as
// pre_activation (what the backward pass differentiates at), as an unfused Linear layer followed
// by the activation in D's type would. For 16-bit D that is one more rounding before the
// activation (at most |activation'| <= 1.5 half-ulps of z; the GPU tests allow for it).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_runtime_api.h>

#if defined(__CUDACC__)
#include <cute/arch/copy.hpp>  // cute::prefetch
#endif

#include "gemm/activation.cuh"
#include "warploom/config.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm::sm90::epi {

enum class Phase { Row, Column, Chunk };

// A thread's folded terms of one row: z = scale * acc (* column scale) (+ beta C) + bias; scale
// starts at alpha * scale_a * scale_b.
struct RowTerms {
  float scale, bias;
};
// ... of a pair of adjacent columns (the two values of one wgmma register pair).
struct ColumnTerms {
  float2 scale, bias;
};

// One 16-byte run of a staged subtile in the Chunk phase: kN values of D's row `row`, columns
// `col` ... col + kN - 1, of batch `l`, in fp32; the problem is m x n (the run may stick out).
template <int kN>
struct Chunk {
  float v[kN];
  int row, col, l, m, n;
};

// An M x N matrix of the epilogue (residual, pre_activation) as the kernel addresses it: element
// (i, j) of batch l at data + l * batch_stride + i * stride_row + j * stride_col. Either layout:
// a column-major one has stride_row 1.
struct MatrixParams {
  void const* data = nullptr;
  std::int64_t stride_row = 0, stride_col = 0, batch_stride = 0;
};
inline MatrixParams matrix_params(Matrix const& x) {
  bool const row_major = x.layout == MatrixLayout::RowMajor;
  return {x.data, row_major ? x.ld : 1, row_major ? 1 : x.ld, x.batch_stride};
}

// The part of an epilogue matrix one output tile covers: rows [row0, row0 + rows) and columns
// [col0, col0 + cols) of batch l, of an m x n problem (the tile may stick out).
struct TileRegion {
  int row0, col0, rows, cols, l, m, n;
};

#if defined(__CUDACC__)
namespace detail {

// v[i] as fp32; 0 outside [0, count) (rows or columns past the matrix: never stored).
template <class T>
WL_DEVICE float element(T const* v, int i, int count) {
  return i < count ? static_cast<float>(v[i]) : 0.0f;
}

// v[i] and v[i + 1] as fp32, 0 past count (count >= 1). Two loads at indices clamped into v, and
// no branch: a thread's column terms are an unrolled loop of these, whose loads the compiler now
// issues back to back before the first use. With a branch per pair (one vector load where v was
// aligned to two elements, else two guarded loads) each load's latency was waited out in turn:
// ncu put 20 % of the MMA warps' stall samples of bias + GELU at 8192x8192x1024 on the first use
// of each bias load (H200, 2026-12-02).
template <class T>
WL_DEVICE float2 pair(T const* v, int i, int count) {
  float const x = static_cast<float>(v[min(i, count - 1)]);
  float const y = static_cast<float>(v[min(i + 1, count - 1)]);
  return {i < count ? x : 0.0f, i + 1 < count ? y : 0.0f};
}

// The address of element (row, col) of batch l; row clamped into the matrix (rows past M are
// never read or written, but their address is formed).
template <class T>
WL_DEVICE T* address(MatrixParams const& x, int row, int col, int l, int m) {
  return const_cast<T*>(static_cast<T const*>(x.data)) + l * x.batch_stride +
         static_cast<std::int64_t>(row < m ? row : 0) * x.stride_row +
         static_cast<std::int64_t>(col) * x.stride_col;
}

// kN elements of one run (16 bytes of T): a whole, row-contiguous, 16-byte-aligned run in one
// vector access, else element by element inside the matrix.
template <class T, int kN>
struct alignas(16) Run {
  static_assert(kN * sizeof(T) == 16);
  T v[kN];
};

// Asks L2 for every 128-byte line of x's part of `r` (elements of T): one prefetch.global.L2 each
// (cute::prefetch), whatever x's layout and alignment. Its contiguous runs (rows of a row-major x,
// columns of a column-major one) are dealt out to `lanes` threads from `lane` on; each takes a
// line per 128 bytes of its runs and one for a run's last byte, in case the run starts mid-line.
template <class T>
WL_DEVICE void prefetch_l2(MatrixParams const& x, TileRegion const& r, int lane, int lanes) {
  int const rows = min(r.rows, r.m - r.row0), cols = min(r.cols, r.n - r.col0);
  if (rows <= 0 || cols <= 0) return;
  bool const column_major = x.stride_row == 1;
  int const runs = column_major ? cols : rows;
  int const run_bytes = (column_major ? rows : cols) * static_cast<int>(sizeof(T));
#pragma unroll 1
  for (int run = lane; run < runs; run += lanes) {
    auto const* const first =
        reinterpret_cast<char const*>(column_major ? address<T>(x, r.row0, r.col0 + run, r.l, r.m)
                                                   : address<T>(x, r.row0 + run, r.col0, r.l, r.m));
#pragma unroll 1
    for (int byte = 0; byte < run_bytes; byte += 128) cute::prefetch(first + byte);
    cute::prefetch(first + run_bytes - 1);
  }
}

template <class T, int kN>
WL_DEVICE bool whole_run(MatrixParams const& x, Chunk<kN> const& c, T const* at) {
  return c.row < c.m && c.col + kN <= c.n && x.stride_col == 1 &&
         reinterpret_cast<std::uintptr_t>(at) % 16 == 0;
}

}  // namespace detail
#endif  // __CUDACC__

// ---- Row and Column ops -------------------------------------------------------------------------

// z *= row_scale[i] (M floats).
struct RowScale {
  static constexpr Phase kPhase = Phase::Row;
  struct Params {
    float const* v;
  };
  static Params params(GemmArguments const& r) { return {r.epilogue.row_scale}; }
#if defined(__CUDACC__)
  static WL_DEVICE void row(Params const& p, int row, int m, RowTerms& t) {
    t.scale *= detail::element(p.v, row, m);
  }
#endif
};

// z *= col_scale[j] (N floats).
struct ColScale {
  static constexpr Phase kPhase = Phase::Column;
  struct Params {
    float const* v;
  };
  static Params params(GemmArguments const& r) { return {r.epilogue.col_scale}; }
#if defined(__CUDACC__)
  static WL_DEVICE void column(Params const& p, int col, int n, ColumnTerms& t) {
    float2 const s = detail::pair(p.v, col, n);
    t.scale.x *= s.x;
    t.scale.y *= s.y;
  }
#endif
};

// z += bias[i] (kAlong PerRow: M values) or bias[j] (PerColumn: N values), of type T: float or
// D's element type.
template <Broadcast kAlong, class T>
struct Bias {
  static constexpr Phase kPhase = kAlong == Broadcast::PerRow ? Phase::Row : Phase::Column;
  struct Params {
    T const* v;
  };
  static Params params(GemmArguments const& r) { return {static_cast<T const*>(r.epilogue.bias)}; }
#if defined(__CUDACC__)
  static WL_DEVICE void row(Params const& p, int row, int m, RowTerms& t) {
    t.bias += detail::element(p.v, row, m);
  }
  static WL_DEVICE void column(Params const& p, int col, int n, ColumnTerms& t) {
    float2 const b = detail::pair(p.v, col, n);
    t.bias.x += b.x;
    t.bias.y += b.y;
  }
#endif
};

// ---- Chunk ops ----------------------------------------------------------------------------------

// pre_activation = z (D's type, either layout).
struct PreActivation {
  static constexpr Phase kPhase = Phase::Chunk;
  using Params = MatrixParams;
  static Params params(GemmArguments const& r) { return matrix_params(r.epilogue.pre_activation); }
#if defined(__CUDACC__)
  static WL_DEVICE bool column_major(Params const& p) {
    return p.stride_row == 1;
  }
  template <class T, int kN>
  static WL_DEVICE void chunk(Params const& p, Chunk<kN>& c) {
    if (c.row >= c.m) return;
    T* const at = detail::address<T>(p, c.row, c.col, c.l, c.m);
    if (detail::whole_run<T>(p, c, at)) {
      detail::Run<T, kN> run;
#pragma unroll
      for (int j = 0; j < kN; ++j) run.v[j] = T(c.v[j]);
      *reinterpret_cast<detail::Run<T, kN>*>(at) = run;
    } else {
#pragma unroll
      for (int j = 0; j < kN; ++j)
        if (c.col + j < c.n) at[j * p.stride_col] = T(c.v[j]);
    }
  }
#endif
};

// z = activation(z); Params::slope is LeakyReLU's.
template <Activation kA>
struct Act {
  static constexpr Phase kPhase = Phase::Chunk;
  static constexpr Activation kActivation = kA;
  struct Params {
    float slope;
  };
  static Params params(GemmArguments const& r) { return {r.epilogue.leaky_slope}; }
#if defined(__CUDACC__)
  static WL_DEVICE bool column_major(Params const&) {
    return false;
  }
  template <class T, int kN>
  static WL_DEVICE void chunk(Params const& p, Chunk<kN>& c) {
#pragma unroll
    for (int j = 0; j < kN; ++j) c.v[j] = activate<kA>(c.v[j], p.slope);
  }
#endif
};

// z += residual (D's type, either layout), after the activation. The one op that reads a matrix
// (Chain::prefetch): the load warp asks L2 for a tile's part of it a few K tiles before the tile's
// main loop ends (mainloop.cuh, kPrefetchLead), so the Chunk pass's reads, one 16-byte run per
// thread at a time, wait on L2 rather than DRAM.
struct Residual {
  static constexpr Phase kPhase = Phase::Chunk;
  using Params = MatrixParams;
  static Params params(GemmArguments const& r) { return matrix_params(r.epilogue.residual); }
#if defined(__CUDACC__)
  template <class T>
  static WL_DEVICE void prefetch(Params const& p, TileRegion const& r, int lane, int lanes) {
    detail::prefetch_l2<T>(p, r, lane, lanes);
  }
  static WL_DEVICE bool column_major(Params const& p) {
    return p.stride_row == 1;
  }
  template <class T, int kN>
  static WL_DEVICE void chunk(Params const& p, Chunk<kN>& c) {
    T const* const at = detail::address<T>(p, c.row, c.col, c.l, c.m);
    if (detail::whole_run<T>(p, c, at)) {
      detail::Run<T, kN> const run = *reinterpret_cast<detail::Run<T, kN> const*>(at);
#pragma unroll
      for (int j = 0; j < kN; ++j) c.v[j] += static_cast<float>(run.v[j]);
    } else {
#pragma unroll
      for (int j = 0; j < kN; ++j)
        if (c.row < c.m && c.col + j < c.n) c.v[j] += static_cast<float>(at[j * p.stride_col]);
    }
  }
#endif
};

// ---- The composition ----------------------------------------------------------------------------

template <class Op>
struct Slot {
  typename Op::Params params;
};

template <class Op>
inline constexpr bool kIsBias = false;
template <Broadcast kAlong, class T>
inline constexpr bool kIsBias<Bias<kAlong, T>> = true;

// Whether op Op reads a matrix the epilogue can ask L2 for ahead of time (Op::prefetch).
template <class Op>
inline constexpr bool kPrefetches = std::is_same_v<Op, Residual>;

template <class Op>
inline constexpr int kChunkOrder = std::is_same_v<Op, PreActivation> ? 0
                                   : std::is_same_v<Op, Residual>    ? 2
                                                                     : 1;

// Whether the Chunk ops among Ops come in the order they must apply, each at most once.
template <class... Ops>
constexpr bool chunks_in_order() {
  int const orders[] = {-1, (Ops::kPhase == Phase::Chunk ? kChunkOrder<Ops> : -1)...};
  int last = -1;
  for (int o : orders) {
    if (o < 0) continue;
    if (o <= last) return false;
    last = o;
  }
  return true;
}

// The ops of one epilogue, in the order they apply within each phase.
template <class... Ops>
struct Chain {
  template <class Op>
  static constexpr int count = (static_cast<int>(std::is_same_v<Op, Ops>) + ... + 0);

  // Preconditions
  static_assert(((Ops::kPhase == Phase::Row || Ops::kPhase == Phase::Column ||
                  Ops::kPhase == Phase::Chunk) &&
                 ...),
                "epi::Chain: every op takes part in one Phase (Row, Column or Chunk)");
  static_assert(((count<Ops> == 1) && ...), "epi::Chain: each op at most once");
  static_assert(chunks_in_order<Ops...>(),
                "epi::Chain: the Chunk ops go PreActivation (stores z), Act (activates it), "
                "Residual (adds after the activation), each at most once: list them so");

  struct Params : Slot<Ops>... {};

  static constexpr bool kFused = sizeof...(Ops) > 0;
  static constexpr bool kRowTerms = ((Ops::kPhase == Phase::Row) || ...);
  static constexpr bool kRowBias = ((Ops::kPhase == Phase::Row && kIsBias<Ops>) || ...);
  static constexpr bool kColumnScale = (std::is_same_v<Ops, ColScale> || ...);
  static constexpr bool kColumnBias = ((Ops::kPhase == Phase::Column && kIsBias<Ops>) || ...);
  static constexpr bool kColumnTerms = kColumnScale || kColumnBias;
  static constexpr bool kChunks = ((Ops::kPhase == Phase::Chunk) || ...);
  static constexpr bool kPrefetches = (epi::kPrefetches<Ops> || ...);

  // Host: every op's Params from resolved, row-major-D arguments (gemm.cpp).
  static Params params([[maybe_unused]] GemmArguments const& r) {
    Params p{};
    ((static_cast<Slot<Ops>&>(p).params = Ops::params(r)), ...);
    return p;
  }

#if defined(__CUDACC__)
  template <class Op>
  static WL_DEVICE typename Op::Params const& of(Params const& p) {
    return static_cast<Slot<Op> const&>(p).params;
  }

  static WL_DEVICE void rows([[maybe_unused]] Params const& p, [[maybe_unused]] int row,
                             [[maybe_unused]] int m, [[maybe_unused]] RowTerms& t) {
    (
        [&] {
          if constexpr (Ops::kPhase == Phase::Row) Ops::row(of<Ops>(p), row, m, t);
        }(),
        ...);
  }
  static WL_DEVICE void columns([[maybe_unused]] Params const& p, [[maybe_unused]] int col,
                                [[maybe_unused]] int n, [[maybe_unused]] ColumnTerms& t) {
    (
        [&] {
          if constexpr (Ops::kPhase == Phase::Column) Ops::column(of<Ops>(p), col, n, t);
        }(),
        ...);
  }
  template <class T, int kN>
  static WL_DEVICE void chunk([[maybe_unused]] Params const& p, [[maybe_unused]] Chunk<kN>& c) {
    (
        [&] {
          if constexpr (Ops::kPhase == Phase::Chunk) Ops::template chunk<T>(of<Ops>(p), c);
        }(),
        ...);
  }
  // Every op's matrix (of T elements) in region `r` asked of L2, by `lanes` threads from `lane`.
  template <class T>
  static WL_DEVICE void prefetch([[maybe_unused]] Params const& p,
                                 [[maybe_unused]] TileRegion const& r, [[maybe_unused]] int lane,
                                 [[maybe_unused]] int lanes) {
    (
        [&] {
          if constexpr (epi::kPrefetches<Ops>)
            Ops::template prefetch<T>(of<Ops>(p), r, lane, lanes);
        }(),
        ...);
  }
  // Whether a Chunk op addresses a column-major matrix: then the pass walks the subtile down its
  // columns, so that a warp's 32 accesses of one element are 32 consecutive rows (coalesced).
  static WL_DEVICE bool walks_columns([[maybe_unused]] Params const& p) {
    bool by_column = false;
    (
        [&] {
          if constexpr (Ops::kPhase == Phase::Chunk) by_column |= Ops::column_major(of<Ops>(p));
        }(),
        ...);
    return by_column;
  }
#endif
};

}  // namespace warploom::gemm::sm90::epi
