// kernels/gemm/stream_k_decomposition.hpp
//
// Stream-K (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense Matrix
// Multiplication on the GPU", PPoPP 2023) for the persistent tensor-core GEMM: the last tiles,
// which would run as a partial wave on some SMs while the others idle, are instead cut along K and
// their K iterations shared evenly by every CTA of the grid.
//
// The decomposition is the "data-parallel + two-tile stream-K" hybrid. Of T output tiles on a grid
// of G CTAs, the stream-K tiles are the last min(T, T % G + G) in raster order (none when T % G is
// 0): every CTA takes an equal, contiguous run of the K iterations of its group's share of them
// (tile by tile, K tiles in order; groups: see make), between one and two tiles' worth where
// T >= G, so that few tiles are cut into more than two pieces. The other tiles are whole-tile
// rounds of the persistent loop, G per round. A CTA runs its stream-K pieces first — each piece one
// "unit" of the persistent loop with a K range of its own — then its whole tiles.
//
// A tile cut into pieces is finished by the CTA that holds its first K iteration (its *owner*). It
// is that CTA's last stream-K piece; the later pieces are each the *first* piece of the CTAs after
// it in its group (a run ends where the next one's begins; groups: see make), which write their
// fp32 partial sums to the workspace (one slot per CTA: only a CTA's first piece can start inside
// a tile) and raise a flag.
// The owner waits for those flags, adds the partial sums in K order (the same bits every run) and
// runs the epilogue, fused ops included. No piece that writes a partial sum waits for anything
// before it does (it is its CTA's first unit), so every wait ends: the grid cannot deadlock even
// where its CTAs are not all resident at once.
//
// Units of the persistent loop are slots `round * ctas + cta`; the rounds of stream-K pieces come
// first, as many as the CTA with the most pieces needs (a CTA with fewer runs phantom units, which
// load one K tile of zeros and store nothing), then the rounds of whole tiles.
#pragma once

#include <cstdint>

#include "warploom/config.hpp"

namespace warploom::gemm {

// One unit of a stream-K walk: tile `tile` (a linear tile index, raster order), its K tiles
// [k_begin, k_begin + k_tiles), and its part in the fix-up: `peers` > 0 for the owner of a cut
// tile (it adds the partial sums of the CTAs cta + g, cta + 2g, ... cta + peers * g, g the walk's
// groups), < 0 for a piece whose partial sum goes to the workspace (slot `cta`), 0 for a whole
// tile. `tile` < 0: a phantom unit.
struct StreamKUnit {
  int tile = -1;
  int k_begin = 0;
  int k_tiles = 0;
  int peers = 0;
};

struct StreamKDecomposition {
  int ctas = 0;       // the grid; 0: no stream-K (every unit a whole tile in raster order)
  int groups = 1;     // CTA c is unit c / groups of group c % groups (see make)
  int k_tiles = 0;    // K tiles of every tile
  int dp_tiles = 0;   // tiles [0, dp_tiles) are whole-tile rounds
  int sk_rounds = 0;  // rounds of stream-K pieces
  int dp_rounds = 0;  // rounds of whole tiles (dp_tiles / ctas)
  // Stream-K K iterations per unit of a group (its first `extra` units take one more).
  std::int64_t per_unit = 0;
  int extra = 0;

  WL_HOST_DEVICE constexpr bool active() const { return ctas > 0; }
  // Units of the persistent loop (its domain: slots 0 .. units() - 1, `ctas` apart per CTA).
  WL_HOST_DEVICE constexpr int units() const { return (sk_rounds + dp_rounds) * ctas; }

  // The first K iteration of its group's stream-K tiles that unit `u` of a group computes (u = the
  // group's units: one past the last).
  WL_HOST_DEVICE constexpr std::int64_t begin(int u) const {
    return u * per_unit + (u < extra ? u : extra);
  }
  // The unit of a group whose run holds the group's K iteration `i`.
  WL_HOST_DEVICE constexpr int unit_of(std::int64_t i) const {
    std::int64_t const long_runs = static_cast<std::int64_t>(extra) * (per_unit + 1);
    if (i < long_runs) return static_cast<int>(i / (per_unit + 1));
    return extra + static_cast<int>((i - long_runs) / per_unit);
  }

  // Unit `slot` of the loop.
  WL_HOST_DEVICE constexpr StreamKUnit unit(int slot) const {
    int const round = slot / ctas;
    int const cta = slot % ctas;
    if (round >= sk_rounds) return {(round - sk_rounds) * ctas + cta, 0, k_tiles, 0};
    int const group = cta % groups, u = cta / groups;
    std::int64_t const first = begin(u), end = begin(u + 1);
    std::int64_t const t = first / k_tiles + round;  // the group's stream-K tile, from 0
    std::int64_t const tile_begin = t * k_tiles, tile_end = tile_begin + k_tiles;
    std::int64_t const b = first > tile_begin ? first : tile_begin;
    std::int64_t const e = end < tile_end ? end : tile_end;
    if (b >= e) return {};  // this CTA's run ended in an earlier round: phantom
    int peers = 0;
    if (b > tile_begin) {
      peers = -1;
    } else if (e < tile_end) {
      peers = unit_of(tile_end - 1) - u;
    }
    return {dp_tiles + static_cast<int>(t) * groups + group, static_cast<int>(b - tile_begin),
            static_cast<int>(e - b), peers};
  }

  // The decomposition of `tiles` tiles of `k_tiles` K tiles each on a grid of `ctas` CTAs (every
  // one of them resident or not: see above). Stream-K only where it changes something: tiles not
  // a multiple of the grid, and K long enough to cut (2 K tiles or more).
  //
  // Groups (CUTLASS's stream-K groups) keep the operands' reuse in L2: with one group, the CTAs
  // work on all the stream-K tiles at once, each at a K offset of its own, and every tile reads its
  // operands' K slices from DRAM (1024 x 8192 x 8192 bf16 on the H200: DRAM 68 % busy against the
  // persistent walk's 18 %, 13 % more cycles; bench/results/stream_k_2026-12-06). With g groups,
  // group j takes stream-K tiles j, j + g, ..., and unit u of every group computes the same K
  // ranges of its group's tiles at the same time: g neighbouring tiles — one column of tiles in
  // the raster's panel, sharing B's K slices — read together, as a wave of the persistent walk
  // reads them. `max_groups` (at most the raster panel's height) caps g; g divides both the grid
  // and the stream-K tiles, the largest such.
  static constexpr StreamKDecomposition make(int tiles, int k_tiles, int ctas, int max_groups = 1) {
    StreamKDecomposition d;
    if (tiles <= 0 || ctas <= 0 || k_tiles < 2 || tiles % ctas == 0) return d;
    int const remainder = tiles % ctas;
    int const sk_tiles = tiles < remainder + ctas ? tiles : remainder + ctas;
    std::int64_t const iterations = static_cast<std::int64_t>(sk_tiles) * k_tiles;
    // A grid larger than the iterations would leave CTAs without any: fewer CTAs then.
    d.ctas = iterations < ctas ? static_cast<int>(iterations) : ctas;
    d.k_tiles = k_tiles;
    d.dp_tiles = tiles - sk_tiles;
    d.dp_rounds = d.dp_tiles / d.ctas;
    for (int g = max_groups; g > 1; --g) {
      if (d.ctas % g == 0 && sk_tiles % g == 0) {
        d.groups = g;
        break;
      }
    }
    int const units_per_group = d.ctas / d.groups;
    std::int64_t const group_iterations = iterations / d.groups;
    d.per_unit = group_iterations / units_per_group;
    d.extra = static_cast<int>(group_iterations % units_per_group);
    // Rounds of pieces: the most tiles any unit's run touches.
    for (int u = 0; u < units_per_group; ++u) {
      std::int64_t const first_tile = d.begin(u) / k_tiles;
      std::int64_t const last_tile = (d.begin(u + 1) - 1) / k_tiles;
      int const touched = static_cast<int>(last_tile - first_tile + 1);
      if (touched > d.sk_rounds) d.sk_rounds = touched;
    }
    return d;
  }
};

// The CTAs of a stream-K launch on a device of `sms` SMs: one per SM, or `max_ctas` (GemmTuning's,
// when positive) if fewer — the persistent grid's rule for 1x1 clusters. The launcher's grid and
// the workspace gemm_workspace_bytes sizes both come from here.
constexpr int stream_k_grid(int sms, int max_ctas) {
  return max_ctas > 0 && max_ctas < sms ? max_ctas : sms;
}

// The workspace bytes of a stream-K launch of `ctas` CTAs on tiles of tile_m x tile_n: one fp32
// partial-sum tile per CTA, then one flag per CTA (StreamKRun::in lays them out).
constexpr std::int64_t stream_k_workspace_bytes(int ctas, int tile_m, int tile_n) {
  return static_cast<std::int64_t>(ctas) * tile_m * tile_n * 4 +
         static_cast<std::int64_t>(ctas) * 4;
}

// A stream-K launch's walk and workspace, as the kernel gets them. The flags must be zero at
// launch (the launcher sets them on the stream).
struct StreamKRun {
  StreamKDecomposition walk;
  float* partials = nullptr;
  int* flags = nullptr;

  // `walk` in `workspace` (of stream_k_workspace_bytes(walk.ctas, tile_m, tile_n) bytes or more).
  static StreamKRun in(void* workspace, StreamKDecomposition const& walk, int tile_m, int tile_n) {
    auto* const partials = static_cast<float*>(workspace);
    return {.walk = walk,
            .partials = partials,
            .flags = reinterpret_cast<int*>(partials + std::int64_t{walk.ctas} * tile_m * tile_n)};
  }
};

}  // namespace warploom::gemm
