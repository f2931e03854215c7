// kernels/gemm/sm90/grouped.cuh
//
// The grouped sm90 TS GEMM: many problems of different M, N and K (one instance's types, layouts
// and fused epilogue) in one persistent launch. It runs the dense kernel's schedule unchanged —
// the same verified Cooperative or Pingpong, with works that look up each tile's problem:
//
//   setup kernel (one warp per problem)          grouped kernel (persistent CTAs, launched
//   template Params ──copy──▶ Params[g]          while the setup kernel runs: PDL)
//   GroupTiles[g]: g's first tile, raster, K     Tiles: cluster tile t ──▶ problem g (binary
//   tiles and valid rows (what a tile lookup     search of GroupTiles), its own tile of it;
//   reads, 32 bytes a problem)                   SmemAB / GmemD: the dense main loop and
//   TMA descriptors of A, B, D patched on        epilogue on Params[g]; K loops as long as g's
//   the device (tensormap.replace); a release    K (k_tiles_of: a bound read from the data)
//   fence for the TMA unit
//
// Nothing is encoded on the host per problem: the host builds one template (the instance's box,
// swizzle and element type, from the first problem) and hands every problem's scalars to the
// setup kernel in its parameters (kChunk problems a launch), so a launch needs no copy from host
// memory and no synchronization, and a CUDA graph captures it. The per-problem Params live in a
// workspace the host hands the launch (kGroupedWorkspaceBytesPerGroup a problem,
// grouped_workspace.hpp: the caller's, or one taken on the stream from the library's pool,
// src/gemm/grouped_gemm.cpp).
//
// Problems come from the host (ops::GroupedGemm, gemm::grouped_gemm): their tile counts and the
// prefix sums the tile walk searches are known there. The masked layout keeps every problem's
// tiles and reads its valid rows on the device; the contiguous layout (grouped_gemm_contiguous)
// finds each problem's rows on the device, so its setup kernel scans the row ends for the prefix
// sums and counts the tiles the walk runs.
//
// A tile's lookup reads GroupTiles, not Params: the search's probes and the tile's raster, K and
// rows lie in 32 bytes per problem (1.6 KiB for the seed's 50), where each problem's Params (its
// three descriptors, its epilogue) spans several cache lines. Measured, it did not shorten the
// seed's kernel (ncu: 57.1 K cycles, 54.5 K before, docs/kernels/sm90_grouped_gemm.md): the
// lookup's stall samples were not L2 misses. It stays as the smaller read.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include <cute/arch/copy_sm90_desc.hpp>

#include "gemm/sm90/grouped_workspace.hpp"
#include "gemm/sm90/launch.cuh"
#include "warploom/ts/device/grid_dependency.hpp"

namespace warploom::gemm::sm90 {

// What the setup kernel reads of one problem (a row-major D; A and B in the instance's majors).
template <class Cfg>
struct GroupProblem {
  int m, n, k;
  int tile_start;      // cluster tiles of the problems before this one
  int const* valid_m;  // null, or the rows of A and D that hold data (masked layout; [0, m])
  void const* a;
  void const* b;
  void const* c;
  void* d;
  std::int64_t lda, ldb, ldc, ldd;
  float alpha, beta;
  float const* alpha_ptr;
  float const* beta_ptr;
  float const* scale_a;
  float const* scale_b;
  typename Cfg::Epilogue::Params epilogue;
};

// What the tile walk reads of one problem, written by the setup kernel.
struct alignas(32) GroupTiles {
  int start;    // cluster tiles of the problems before this one
  int k_tiles;  // K tiles of each of its tiles
  int rows;     // valid rows (M, or the masked layout's count): tiles past them run no K tile
  TileRaster raster;
};
static_assert(sizeof(GroupTiles) == 32);

// The grouped kernel's works: the dense main loop and epilogue (mainloop.cuh, epilogue.cuh) on the
// problem of each tile. A tile's coordinate carries its problem's index in `l` (the dense kernel's
// batch), which the works turn into the problem's Params and a tile of batch 0. A phantom tile
// (past the last one, ping-pong's odd pairs) is tile (0, 0, 1) of problem 0: batch 1 of a problem
// of one batch, loads zero-filled, MMA and store skipped, as in the dense kernel.
template <class Cfg>
struct GroupedWorks : Mainloop<Cfg> {
  using Problem = typename Cfg::Params;
  struct Params {
    Problem const* problems;  // per problem, in global memory (the setup kernel writes them)
    GroupTiles const* tiles;  // per problem, likewise
    int count;
    int num_tiles;  // cluster tiles of all problems (the contiguous layout: a bound on them)
    // The contiguous layout's tile count, written by the setup kernel (the problems' rows are
    // known on the device only); null otherwise.
    int const* counted_tiles;
    // The dynamic tile scheduler's counter (cooperative_dynamic.hpp) and its count of CTAs done
    // fetching (ts::DynamicTileQueue::drained): zeroed by the setup kernel, and by the launch's
    // last CTA for the next launch (a prepared run has no setup kernel); null for the static walk.
    int* tile_counter;
    int* drained;
  };
  using ElementA = typename Cfg::TA;
  using ElementB = typename Cfg::TB;
  using ElementD = typename Cfg::TD;
  using Accumulator = typename Cfg::Accumulator;
  static_assert(Cfg::kClusterSize == 1, "the grouped GEMM runs 1x1 clusters");

  // The cluster tiles of all problems, as the tile walk runs them.
  static WL_DEVICE int num_tiles(Params const& gp) {
    return gp.counted_tiles != nullptr ? __ldg(gp.counted_tiles) : gp.num_tiles;
  }
  static WL_DEVICE TileCoord tile_at(Params const& gp, int t) {
    if (t >= num_tiles(gp)) return {0, 0, gp.count};  // phantom
    int lo = 0, hi = gp.count - 1;                    // the last problem starting at or before t
    while (lo < hi) {
      int const mid = (lo + hi + 1) / 2;
      if (__ldg(&gp.tiles[mid].start) <= t) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return tile_in(gp, lo, t);
  }
  // tile_at by every lane of a warp (the dynamic queue's scheduler, ts::DynamicTileQueue): the
  // problems' starts read 32 at a time, one load per lane, and counted with a ballot — one round
  // trip to L2 per 32 problems, where the binary search waits on one per probe (six for the seed's
  // 50 problems, at every CTA's first tile). Its lanes then prefetch the problem's Params into L1
  // (1 KiB: eight lines), which the load warp and the MMA warps read at the tile's start and in
  // its epilogue: the scheduler runs a tile ahead of them.
  static WL_DEVICE TileCoord tile_at_warp(Params const& gp, int t) {
    if (t >= num_tiles(gp)) return {0, 0, gp.count};  // phantom
    int const lane = static_cast<int>(threadIdx.x) % 32;
    int at_or_before = 0;  // problems starting at or before t (the starts ascend)
    for (int base = 0; base < gp.count; base += 32) {
      int const g = base + lane;
      unsigned const before =
          __ballot_sync(0xffffffffu, g < gp.count && __ldg(&gp.tiles[g].start) <= t);
      at_or_before += __popc(before);
      if (before != 0xffffffffu) break;  // no later problem starts at or before t
    }
    int const g = at_or_before - 1;  // problem 0 starts at tile 0
    constexpr int kLines = static_cast<int>((sizeof(Problem) + 127) / 128);
    static_assert(kLines <= 32, "a lane prefetches each line of a problem's Params");
    if (lane < kLines)
      asm volatile("prefetch.global.L1 [%0];" ::"l"(reinterpret_cast<char const*>(gp.problems + g) +
                                                    128 * lane));
    return tile_in(gp, g, t);
  }
  // A tile past a problem's valid rows (the masked layout: its M is the valid count, its tiles
  // those of the whole) runs one K tile, as every tile does (the schedules' K loops are promised
  // at least one: ping-pong hands its turn over in the last): its A rows lie past the
  // descriptor's (zero-filled) and store() writes nothing of it. Its MMA runs on the zeros, as a
  // phantom's does: a test for it in mma() costs every K tile of every tile (measured: +7 %
  // instructions and +5 % cycles on the MoE layer) to save one K tile of a rare one.
  static WL_DEVICE int k_tiles(Params const& gp, TileCoord tile) {
    if (tile.l >= gp.count) return 1;  // phantom: one zero-filled K tile
    return past_valid_rows(gp, tile) ? 1 : __ldg(&gp.tiles[tile.l].k_tiles);
  }

  template <class Ring>
  static WL_DEVICE void tma_load(Ring& ring, ts::Produce const& stage, TileCoord tile) {
    Problem const& q = problem(*ring.p, tile);
    // The descriptors were written through the generic proxy (setup kernel): acquire them for the
    // TMA unit before their first use in this tile.
    if (stage.loop_offset == stage.loop_start) {
      cute::tma_descriptor_fence_acquire(q.tma_a.get_tma_descriptor());
      cute::tma_descriptor_fence_acquire(q.tma_b.get_tma_descriptor());
    }
    Mainloop<Cfg>::load(q, ring, stage, local(*ring.p, tile));
  }
  // The phantom test from the tile's problem index, not its Params: they lie in global memory,
  // and read at each K tile (the test in issue_mma) they kept the MMA warps waiting on L2 at
  // every tile's first (Nsight Compute, the seed, H200, 2026-12-07: 5 % of their samples).
  template <class Ring>
  static WL_DEVICE void mma(Ring const& ring, ts::Consume const& stage, Accumulator& acc,
                            TileCoord tile) {
    if (tile.l >= ring.p->count) return;  // phantom: its stage holds zeros
    Mainloop<Cfg>::issue_batch(ring, stage, acc);
  }
  template <class D>
  static WL_DEVICE void store(D& d, ts::Produce const& s, TileCoord tile, Accumulator const& acc) {
    Problem const& q = problem(*d.p, tile);
    if (past_valid_rows(*d.p, tile)) return;  // no valid row: nothing computed (k_tiles)
    cute::tma_descriptor_fence_acquire(reinterpret_cast<cute::TmaDescriptor const*>(&q.tma_d));
    Epilogue<Cfg, D::kSlot>{reinterpret_cast<char*>(d.staging.get()), &q, s.context}.store(
        local(*d.p, tile), acc);
  }

 private:
  // Tile t of the launch, in problem g (the last to start at or before it): its coordinate.
  static WL_DEVICE TileCoord tile_in(Params const& gp, int g, int t) {
    GroupTiles const& at = gp.tiles[g];
    TileRaster const raster{__ldg(&at.raster.tiles_m), __ldg(&at.raster.tiles_n),
                            __ldg(&at.raster.panel)};
    TileCoord c = raster.coord(t - __ldg(&at.start));
    c.l = g;
    return c;
  }
  // Whether tile `tile` (not a phantom) starts past its problem's valid rows.
  static WL_DEVICE bool past_valid_rows(Params const& gp, TileCoord tile) {
    return tile.l < gp.count && tile.m * Cfg::kTileM >= __ldg(&gp.tiles[tile.l].rows);
  }
  static WL_DEVICE Problem const& problem(Params const& gp, TileCoord tile) {
    return gp.problems[tile.l < gp.count ? tile.l : 0];
  }
  static WL_DEVICE TileCoord local(Params const& gp, TileCoord tile) {
    return {tile.m, tile.n, tile.l < gp.count ? 0 : 1};
  }
};

// Instance I's grouped kernel: the same design and configuration on GroupedWorks.
template <class I>
struct GroupedInstance {
  using Instance = I;
  using Cfg = typename I::Cfg;
  using Schedule = typename I::Schedule;
  using Works = GroupedWorks<Cfg>;
  using Kernel = typename I::template DesignOn<Works>;
  using Manager = typename Kernel::Manager;
  using Params = typename Works::Params;
  using Problem = typename Works::Problem;
  // The dynamic tile scheduler (cooperative_dynamic.hpp): a queue beside the static walk, fed by
  // a counter in the workspace.
  static constexpr bool kDynamicTiles = requires { typename Kernel::Queue; };
};

template <class G>
__global__ void __launch_bounds__(G::Manager::num_threads, 1)
    ts_grouped_gemm_kernel(__grid_constant__ typename G::Params const p) {
  extern __shared__ __align__(1024) char smem[];
  using Kernel = typename G::Kernel;
  // Launched while the setup kernel runs (StreamOrder::Programmatic): what it writes (Params,
  // GroupTiles, descriptors) is read only after it finished.
  ts::wait_for_prior_grid();
  // And the launch after this one (a prepared GEMM's next run, a layer's next list) may start its
  // CTAs now: they take each SM as this grid's CTA there exits and wait above for all of this
  // grid's writes, so its launch and its CTAs' start overlap this grid's last tiles rather than
  // follow them. It takes no SM from this grid: it launches once every CTA of this one has
  // signalled, so every one of them is resident.
  ts::allow_dependent_launch();
  typename Kernel::Tiles const tiles{.p = &p,
                                     .first = static_cast<int>(blockIdx.x),
                                     .stride = static_cast<int>(gridDim.x),
                                     .num_tiles = G::Works::num_tiles(p)};
  if constexpr (G::kDynamicTiles) {
    typename Kernel::Queue queue{};
    queue.p = &p;
    queue.counter = p.tile_counter;
    queue.drained = p.drained;
    queue.num_tiles = tiles.num_tiles;
    Kernel::run(p, tiles, queue, smem);
  } else {
    Kernel::run(p, tiles, smem);
  }
}

// Problems per setup launch: at most as many as its parameters hold beside the template (4 KiB of
// room kept under the 32 KiB parameter limit of sm_70+ with CUDA 12.1+). A launch of few problems
// takes a smaller parameter block (16 or 64 problems; launch_ts_grouped_gemm): every launch copies
// its whole block, and the largest is 28 KiB where the seed's 50 problems need 9.
template <class G>
inline constexpr int kSetupChunk = static_cast<int>(std::min<std::size_t>(
    256, (28 * 1024 - sizeof(typename G::Problem)) / sizeof(GroupProblem<typename G::Cfg>)));

// What a setup launch reads besides its problems.
template <class G>
struct SetupHeader {
  typename G::Problem tmpl;  // the instance's Params for the first problem
  typename G::Problem* out;  // Params of problems first, first + 1, ...
  GroupTiles* tiles;         // their GroupTiles
  int first, count;
  // The contiguous layout (grouped_gemm_contiguous): the launch's `row_groups` cumulative row ends
  // in device memory, problem i's rows [end of i - 1, end of i) of the stacked A, C and D (each
  // problem's m: the rows of all of them, a clamp); null otherwise. The setup counts the tiles
  // into *counted_tiles.
  int const* row_ends;
  int row_groups;
  int* counted_tiles;
  int* tile_counter;  // null, or the dynamic tile scheduler's two counters: the first launch
                      // zeroes them (tile_counter[0] and [1]: Params' tile_counter and drained)
};

// A setup launch's parameters: the header and up to kChunk problems.
template <class G, int kChunk>
struct SetupParams : SetupHeader<G> {
  GroupProblem<typename G::Cfg> problems[kChunk];
};

// Problem `group` of the contiguous layout, as its warp of the setup kernel reads `row_ends`:
// its first row, its rows and the tile rows of the problems before it. An end is read as the
// largest of it and the ends before it, clamped to [0, rows] (the stacked operands' rows), so the
// problems' rows never overlap and never leave the operands, whatever the ends hold.
struct ContiguousRows {
  int begin = 0, rows = 0, tile_rows_before = 0;
};
template <int kTileM>
WL_DEVICE ContiguousRows contiguous_rows(int const* row_ends, int group, int rows) {
  unsigned const all = 0xffffffffu;
  int const lane = static_cast<int>(threadIdx.x) % 32;
  ContiguousRows out;
  int carry = 0;  // the running end before this chunk of 32 problems
  for (int base = 0; base <= group; base += 32) {
    int const h = base + lane;
    int end = h <= group ? ::max(0, ::min(__ldg(row_ends + h), rows)) : 0;
    for (int offset = 1; offset < 32; offset *= 2) {  // a running maximum across the lanes
      int const before = __shfl_up_sync(all, end, offset);
      if (lane >= offset) end = ::max(end, before);
    }
    end = ::max(end, carry);
    int begin = __shfl_up_sync(all, end, 1);
    if (lane == 0) begin = carry;
    int const tile_rows = h < group ? (end - begin + kTileM - 1) / kTileM : 0;
    out.tile_rows_before += __reduce_add_sync(all, tile_rows);
    if (group - base < 32) {  // this chunk holds the problem
      out.begin = __shfl_sync(all, begin, group - base);
      out.rows = __shfl_sync(all, end, group - base) - out.begin;
    }
    carry = __shfl_sync(all, end, 31);
  }
  return out;
}

// The (rows, K, 1) view of one problem's operand as its TMA descriptor sees it: kernel.cuh's
// operand_tensor of one batch (a batch stride of 0 gives that of one packed batch).
template <bool kKMajor, class T>
WL_DEVICE auto operand_view(void const* data, int rows, int k, std::int64_t ld) {
  return operand_tensor<kKMajor, T>(Matrix{.data = data, .ld = ld, .batch_stride = 0}, rows, k, 1);
}

// Descriptor `from` (the template's, in the launch's parameters) for `data`, with the extents and
// byte strides `shape` and `stride` (TMA's modes, innermost first), patched in shared memory
// `slot` by the calling thread (one lane of the warp).
WL_DEVICE void patch_descriptor(cute::TmaDescriptor const& from, cute::TmaDescriptor& slot,
                                void const* data, cute::array<std::uint32_t, 5> const& shape,
                                cute::array<std::uint64_t, 5> const& stride) {
  slot = from;
  cute::tma_descriptor_replace_addr_in_shared_mem(slot, data);
  cute::tma_descriptor_replace_dims_strides_in_shared_mem(slot, shape, stride);
}

// An operand descriptor's TMA modes for one problem, in bytes (CuTe's own mapping of the view's
// modes onto the descriptor's, as its host-side encoder uses).
template <class Tma, class View>
WL_DEVICE void tma_modes(Tma const& tma, View const& view, cute::array<std::uint32_t, 5>& shape,
                         cute::array<std::uint64_t, 5>& stride) {
  using T = typename View::value_type;
  cute::array<std::uint64_t, 5> shape64 = {1, 1, 1, 1, 1};
  stride = {0, 0, 0, 0, 0};
  cute::detail::fill_tma_gmem_shape_stride(tma, view, shape64, stride);
  for (int i = 0; i < 5; ++i) {
    shape[i] = static_cast<std::uint32_t>(shape64[i]);
    stride[i] = stride[i] * sizeof(T);
  }
}

template <class G, int kChunk>
__global__ void __launch_bounds__(128)
    grouped_setup_kernel(__grid_constant__ SetupParams<G, kChunk> const s) {
  using Cfg = typename G::Cfg;
  using Problem = typename G::Problem;
  __shared__ alignas(128) cute::TmaDescriptor scratch[4][3];  // A, B, D of each warp's problem
  // The grouped kernel may start launching now: its CTAs wait for this grid's results before they
  // read them (ts::wait_for_prior_grid), and its launch overlaps this kernel.
  ts::allow_dependent_launch();
  int const warp = static_cast<int>(threadIdx.x) / 32;
  int const i = static_cast<int>(blockIdx.x) * 4 + warp;
  // Every launch starts the dynamic scheduler's count from zero (a graph replay too).
  if (s.tile_counter != nullptr && s.first == 0 && i == 0 && threadIdx.x % 32 == 0)
    s.tile_counter[0] = s.tile_counter[1] = 0;
  if (i >= s.count) return;
  GroupProblem<Cfg> const& g = s.problems[i];
  Problem* out = s.out + s.first + i;
  // Where the problem's rows lie: the host's M; the masked layout's count, read now (a graph replay
  // reads the current counts) and clamped, its tile walk the whole M's (the host counted them); the
  // contiguous layout's slice of the stacked operands, its tile walk the slice's (counted here).
  int rows = g.m, walk_rows = g.m, tile_start = g.tile_start;
  void const* a = g.a;
  void const* c = g.c;
  void* d = g.d;
  if (g.valid_m != nullptr) rows = ::max(0, ::min(*g.valid_m, g.m));
  if (s.row_ends != nullptr) {
    int const group = s.first + i;
    ContiguousRows const r = contiguous_rows<Cfg::kTileM>(s.row_ends, group, g.m);
    rows = walk_rows = r.rows;
    int const tiles_n = (g.n + Cfg::kTileN - 1) / Cfg::kTileN;
    tile_start = r.tile_rows_before * tiles_n;
    // Row-major A, C and D (grouped_gemm_contiguous's rule): the slice starts begin rows down.
    a = static_cast<typename Cfg::TA const*>(g.a) + r.begin * g.lda;
    if (c != nullptr) c = static_cast<typename Cfg::TD const*>(g.c) + r.begin * g.ldc;
    d = static_cast<typename Cfg::TD*>(g.d) + r.begin * g.ldd;
    if (group == s.row_groups - 1 && threadIdx.x % 32 == 0)
      *s.counted_tiles = tile_start + (rows + Cfg::kTileM - 1) / Cfg::kTileM * tiles_n;
  }
  // The template's bytes, a lane per 16 (its descriptors among them), then the scalars.
  static_assert(sizeof(Problem) % 16 == 0 && alignof(Problem) >= 16);
  auto const* from = reinterpret_cast<uint4 const*>(&s.tmpl);
  auto* to = reinterpret_cast<uint4*>(out);
  for (int w = static_cast<int>(threadIdx.x) % 32; w < static_cast<int>(sizeof(Problem) / 16);
       w += 32)
    to[w] = from[w];
  __syncwarp();
  cute::TmaDescriptor* const slot = scratch[warp];
  if (threadIdx.x % 32 == 0) {
    using namespace cute;
    int const tma_rows = ::max(rows, 1);  // a TMA extent is at least 1; no tile reads row 0 of 0
    out->m = rows;
    out->n = g.n;
    out->k = g.k;
    out->batch = 1;
    out->d = static_cast<typename Cfg::TD*>(d);
    out->c = static_cast<typename Cfg::TD const*>(c);
    out->stride_c = make_stride(g.ldc, _1{}, g.ldc * tma_rows);
    out->stride_d = make_stride(g.ldd, _1{}, g.ldd * tma_rows);
    out->alpha = g.alpha;
    out->beta = g.beta;
    out->alpha_ptr = g.alpha_ptr;
    out->beta_ptr = g.beta_ptr;
    out->scale_a = g.scale_a;
    out->scale_b = g.scale_b;
    out->scale_d = nullptr;
    out->amax_d = nullptr;
    int const tiles_m = (walk_rows + Cfg::kTileM - 1) / Cfg::kTileM;
    int const tiles_n = (g.n + Cfg::kTileN - 1) / Cfg::kTileN;
    out->raster = TileRaster{.tiles_m = tiles_m, .tiles_n = tiles_n, .panel = s.tmpl.raster.panel};
    out->num_tiles = tiles_m * tiles_n;
    out->k_tiles = (g.k + Cfg::kTileK - 1) / Cfg::kTileK;
    s.tiles[s.first + i] = GroupTiles{
        .start = tile_start, .k_tiles = out->k_tiles, .rows = rows, .raster = out->raster};
    out->batch_step_a = 1;
    out->batch_step_b = 1;
    out->epilogue = g.epilogue;
    // The three descriptors patched from the template's (kernel parameters: nothing read back
    // from global memory that this warp just wrote), then copied out together below.
    cute::array<std::uint32_t, 5> shape;
    cute::array<std::uint64_t, 5> stride;
    tma_modes(s.tmpl.tma_a, operand_view<Cfg::kAKMajor, typename Cfg::TA>(a, tma_rows, g.k, g.lda),
              shape, stride);
    patch_descriptor(*s.tmpl.tma_a.get_tma_descriptor(), slot[0], a, shape, stride);
    tma_modes(s.tmpl.tma_b, operand_view<Cfg::kBKMajor, typename Cfg::TB>(g.b, g.n, g.k, g.ldb),
              shape, stride);
    patch_descriptor(*s.tmpl.tma_b.get_tma_descriptor(), slot[1], g.b, shape, stride);
    // D as (N, M, 1), kernel.cuh's make_params: row stride ldd, a batch stride of one matrix.
    constexpr std::uint64_t kBytesD = sizeof(typename Cfg::TD);
    shape = {static_cast<std::uint32_t>(g.n), static_cast<std::uint32_t>(tma_rows), 1, 1, 1};
    stride = {kBytesD, static_cast<std::uint64_t>(g.ldd) * kBytesD,
              static_cast<std::uint64_t>(g.ldd) * tma_rows * kBytesD, 0, 0};
    patch_descriptor(*reinterpret_cast<cute::TmaDescriptor const*>(&s.tmpl.tma_d), slot[2], d,
                     shape, stride);
  }
  __syncwarp();
  // Out to global memory, each with a release fence for the TMA unit (tensormap.cp_fenceproxy is
  // warp-wide); the grouped kernel acquires them before use.
  cute::tma_descriptor_cp_fence_release(out->tma_a.get_tma_descriptor(), slot[0]);
  cute::tma_descriptor_cp_fence_release(out->tma_b.get_tma_descriptor(), slot[1]);
  cute::tma_descriptor_cp_fence_release(reinterpret_cast<cute::TmaDescriptor const*>(&out->tma_d),
                                        slot[2]);
}

// The cluster tiles of problem `a` (M x N) in configuration Cfg's tile.
template <class Cfg>
std::int64_t cluster_tiles(GemmArguments const& a) {
  return ceil_div64(a.m, Cfg::kTileM) * ceil_div64(a.n, Cfg::kTileN);
}

// The setup launches of grouped GEMM G over `groups` (launch_ts_grouped_gemm's arguments): every
// problem's Params and GroupTiles written into `problems` and `group_tiles`, the counters zeroed.
template <class G>
void set_up_grouped_gemm(std::span<GemmArguments const> groups, std::span<int const* const> valid_m,
                         int const* row_ends, GemmTuning const& tuning,
                         typename G::Problem* problems, GroupTiles* group_tiles, int* counted_tiles,
                         int* tile_counter, cudaStream_t stream) {
  using Cfg = typename G::Cfg;
  int const count = static_cast<int>(groups.size());
  // The problems with the most K tiles first: CTAs take tiles round robin, so the longest tiles
  // start first and the short ones fill in at the end (a longest-processing-time-first order; the
  // problems are independent, so their order is free). The contiguous layout's keep theirs: the
  // setup finds a group's rows by its index among the row ends (and they share one K).
  std::vector<int> order(groups.size());
  for (int i = 0; i < count; ++i) order[i] = i;
  if (row_ends == nullptr)
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return groups[x].k > groups[y].k; });

  SetupHeader<G> header{.tmpl = make_params<typename G::Instance>(groups.front(), tuning),
                        .out = problems,
                        .tiles = group_tiles,
                        .first = 0,
                        .count = 0,
                        .row_ends = row_ends,
                        .row_groups = count,
                        .counted_tiles = counted_tiles,
                        .tile_counter = tile_counter};
  std::int64_t tiles = 0;  // of the problems before the next (the host's layouts)
  // Problems first .. first + header.count into a parameter block of kChunk, and its launch.
  auto const launch_setup = [&]<int kChunk>(std::integral_constant<int, kChunk>) {
    auto setup = std::make_unique<SetupParams<G, kChunk>>();
    static_cast<SetupHeader<G>&>(*setup) = header;
    for (int i = 0; i < header.count; ++i) {
      int const first = header.first;
      GemmArguments const& a = groups[order[first + i]];
      setup->problems[i] = GroupProblem<Cfg>{
          .m = a.m,
          .n = a.n,
          .k = a.k,
          .tile_start = static_cast<int>(tiles),
          .valid_m = valid_m.empty() ? nullptr : valid_m[order[first + i]],
          .a = a.a.data,
          .b = a.b.data,
          .c = a.c.data,
          .d = a.d,
          .lda = a.a.ld,
          .ldb = a.b.ld,
          .ldc = a.c.ld,
          .ldd = a.ldd,
          .alpha = a.alpha,
          .beta = a.beta,
          .alpha_ptr = a.alpha_ptr,
          .beta_ptr = a.beta_ptr,
          .scale_a = a.scale_a,
          .scale_b = a.scale_b,
          .epilogue = Cfg::Epilogue::params(a),
      };
      if (row_ends == nullptr) tiles += cluster_tiles<Cfg>(a);
    }
    unsigned const blocks = static_cast<unsigned>((header.count + 3) / 4);
    grouped_setup_kernel<G, kChunk><<<blocks, 128, 0, stream>>>(*setup);
    WL_CUDA_CHECK(cudaGetLastError());
  };
  constexpr int kLarge = kSetupChunk<G>, kMedium = std::min(64, kLarge),
                kSmall = std::min(16, kLarge);
  for (int first = 0; first < count; first += kLarge) {
    header.first = first;
    header.count = std::min(kLarge, count - first);
    if (header.count <= kSmall) {
      launch_setup(std::integral_constant<int, kSmall>{});
    } else if (header.count <= kMedium) {
      launch_setup(std::integral_constant<int, kMedium>{});
    } else {
      launch_setup(std::integral_constant<int, kLarge>{});
    }
  }
}

// Launches the grouped GEMM of instance I over `groups` (resolved, row-major-D arguments, each
// checked by gemm.cpp; none empty; one configuration: I's); `valid_m`: empty, or each group's
// device count of valid rows (grouped_gemm_masked); `row_ends`: null, or the groups' cumulative
// row ends in device memory, each group then the whole stacked A, C and D with its slice of rows
// found on the device (grouped_gemm_contiguous; the groups' order is kept).
// `workspace`: kGroupedWorkspaceBytesPerGroup x groups.size() bytes of device memory, aligned to
// kGroupedWorkspaceAlignment, that no other work uses while the launch runs. `steps`: both kernels,
// or one of them (GroupedSteps; Run on a workspace a SetUp of the same groups and tuning wrote,
// the masked and contiguous layouts never).
template <class I>
void launch_ts_grouped_gemm(std::span<GemmArguments const> groups,
                            std::span<int const* const> valid_m, int const* row_ends,
                            GemmTuning const& tuning, void* workspace, GroupedSteps steps,
                            cudaStream_t stream) {
  using G = GroupedInstance<I>;
  using Cfg = typename G::Cfg;
  using Problem = typename G::Problem;
  if (groups.empty()) return;
  if (steps != GroupedSteps::SetUpAndRun && (!valid_m.empty() || row_ends != nullptr))
    throw std::logic_error(
        "launch_ts_grouped_gemm: the masked and contiguous layouts set up at every launch");
  int const count = static_cast<int>(groups.size());
  // The workspace: the problems' Params, then their GroupTiles, then three counters.
  std::size_t const params_bytes = (sizeof(Problem) * groups.size() + alignof(GroupTiles) - 1) /
                                   alignof(GroupTiles) * alignof(GroupTiles);
  std::size_t const tiles_bytes = sizeof(GroupTiles) * groups.size();
  // Within the bytes the host sized it by (one problem's share holds its Params, its GroupTiles,
  // the padding between the two tables and the counters), and aligned for Params' descriptors.
  static_assert(sizeof(Problem) + sizeof(GroupTiles) + alignof(GroupTiles) + 3 * sizeof(int) <=
                kGroupedWorkspaceBytesPerGroup);
  static_assert(alignof(Problem) <= kGroupedWorkspaceAlignment);
  auto* problems = static_cast<Problem*>(workspace);
  auto* group_tiles = reinterpret_cast<GroupTiles*>(static_cast<char*>(workspace) + params_bytes);
  int* const counters =
      reinterpret_cast<int*>(static_cast<char*>(workspace) + params_bytes + tiles_bytes);
  int* counted_tiles = row_ends == nullptr ? nullptr : counters;
  int* tile_counter = G::kDynamicTiles ? counters + 1 : nullptr;

  // The launch's cluster tiles: every problem's (the contiguous layout: a bound, below).
  std::int64_t tiles = 0;
  if (row_ends == nullptr) {
    for (GemmArguments const& a : groups) tiles += cluster_tiles<Cfg>(a);
  } else {
    // The contiguous layout's slices of M rows: at most ceil(M / tile) tile rows, and one more per
    // group that ends mid-tile (the grid's bound; the setup counts the tiles the walk runs).
    GemmArguments const& a = groups.front();
    tiles = (ceil_div64(a.m, Cfg::kTileM) + count) * ceil_div64(a.n, Cfg::kTileN);
  }
  if (steps != GroupedSteps::Run)
    set_up_grouped_gemm<G>(groups, valid_m, row_ends, tuning, problems, group_tiles, counted_tiles,
                           tile_counter, stream);
  if (steps == GroupedSteps::SetUp) return;
  typename G::Params const p{.problems = problems,
                             .tiles = group_tiles,
                             .count = count,
                             .num_tiles = static_cast<int>(tiles),
                             .counted_tiles = counted_tiles,
                             .tile_counter = tile_counter,
                             .drained = tile_counter == nullptr ? nullptr : tile_counter + 1};
  // No more CTAs than the walk has fetches: a queue of pairs (ping-pong over the queue) hands out
  // two tiles at a time.
  int fetches = p.num_tiles;
  if constexpr (G::kDynamicTiles) {
    constexpr int kPer = G::Kernel::Queue::tiles_per_entry;
    fetches = (p.num_tiles + kPer - 1) / kPer;
  }
  dim3 const grid = persistent_grid<I>(fetches, tuning, ts_grouped_gemm_kernel<G>);
  // After the last setup launch (or whatever the stream ran before), programmatically: see
  // ts_grouped_gemm_kernel.
  ts::launch<typename G::Manager>(ts::verified<typename G::Schedule>(),
                                  ts::StreamOrder::Programmatic, ts_grouped_gemm_kernel<G>, grid,
                                  stream, p);
}

}  // namespace warploom::gemm::sm90
