// kernels/gemm/stream_k_decomposition.hpp
//
// Stream-K (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense Matrix
// Multiplication on the GPU", PPoPP 2023) for the persistent tensor-core GEMM: the last tiles,
// which would run as a partial wave on some SMs while the others idle, are instead cut along K and
// their K iterations shared evenly by every CTA of the grid.
//
// The decomposition is the "data-parallel + two-tile stream-K" hybrid. Of T output tiles on a grid
// of G CTAs, the stream-K tiles are the last min(T, T % G + G) in raster order (none when T % G is
// 0): every CTA takes an equal, contiguous run of their K iterations (tile by tile, K tiles in
// order), between one and two tiles' worth where T >= G, so that few tiles are cut into more than
// two pieces. The other tiles are whole-tile rounds of the persistent loop, G per round. A CTA
// runs its stream-K pieces first — each piece one "unit" of the persistent loop with a K range of
// its own — then its whole tiles.
//
// A tile cut into pieces is finished by the CTA that holds its first K iteration (its *owner*). It
// is that CTA's last stream-K piece; the later pieces are each the *first* piece of the CTAs after
// it (a run ends where the next CTA's begins), which write their fp32 partial sums to the
// workspace (one slot per CTA: only a CTA's first piece can start inside a tile) and raise a flag.
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
// tile (it adds the partial sums of the CTAs cta + 1 ... cta + peers), < 0 for a piece whose
// partial sum goes to the workspace (slot `cta`), 0 for a whole tile. `tile` < 0: a phantom unit.
struct StreamKUnit {
  int tile = -1;
  int k_begin = 0;
  int k_tiles = 0;
  int peers = 0;
};

struct StreamKDecomposition {
  int ctas = 0;              // the grid; 0: no stream-K (every unit a whole tile in raster order)
  int k_tiles = 0;           // K tiles of every tile
  int dp_tiles = 0;          // tiles [0, dp_tiles) are whole-tile rounds
  int sk_rounds = 0;         // rounds of stream-K pieces
  int dp_rounds = 0;         // rounds of whole tiles (dp_tiles / ctas)
  std::int64_t per_cta = 0;  // stream-K K iterations per CTA (the first `extra` take one more)
  int extra = 0;

  WL_HOST_DEVICE constexpr bool active() const { return ctas > 0; }
  // Units of the persistent loop (its domain: slots 0 .. units() - 1, `ctas` apart per CTA).
  WL_HOST_DEVICE constexpr int units() const { return (sk_rounds + dp_rounds) * ctas; }

  // The first stream-K K iteration of CTA `cta` (cta = ctas: one past the last).
  WL_HOST_DEVICE constexpr std::int64_t begin(int cta) const {
    return cta * per_cta + (cta < extra ? cta : extra);
  }
  // The CTA whose run holds stream-K K iteration `i`.
  WL_HOST_DEVICE constexpr int cta_of(std::int64_t i) const {
    std::int64_t const long_runs = static_cast<std::int64_t>(extra) * (per_cta + 1);
    if (i < long_runs) return static_cast<int>(i / (per_cta + 1));
    return extra + static_cast<int>((i - long_runs) / per_cta);
  }

  // Unit `slot` of the loop.
  WL_HOST_DEVICE constexpr StreamKUnit unit(int slot) const {
    int const round = slot / ctas;
    int const cta = slot % ctas;
    if (round >= sk_rounds) return {dp_tiles_at(round - sk_rounds, cta), 0, k_tiles, 0};
    std::int64_t const first = begin(cta), end = begin(cta + 1);
    std::int64_t const t = first / k_tiles + round;  // stream-K tile, from 0
    std::int64_t const tile_begin = t * k_tiles, tile_end = tile_begin + k_tiles;
    std::int64_t const b = first > tile_begin ? first : tile_begin;
    std::int64_t const e = end < tile_end ? end : tile_end;
    if (b >= e) return {};  // this CTA's run ended in an earlier round: phantom
    int peers = 0;
    if (b > tile_begin) {
      peers = -1;
    } else if (e < tile_end) {
      peers = cta_of(tile_end - 1) - cta;
    }
    return {dp_tiles + static_cast<int>(t), static_cast<int>(b - tile_begin),
            static_cast<int>(e - b), peers};
  }

  // The decomposition of `tiles` tiles of `k_tiles` K tiles each on a grid of `ctas` CTAs (every
  // one of them resident or not: see above). Stream-K only where it changes something: tiles not
  // a multiple of the grid, and K long enough to cut (2 K tiles or more).
  static constexpr StreamKDecomposition make(int tiles, int k_tiles, int ctas) {
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
    d.per_cta = iterations / d.ctas;
    d.extra = static_cast<int>(iterations % d.ctas);
    // Rounds of pieces: the most tiles any CTA's run touches.
    for (int c = 0; c < d.ctas; ++c) {
      std::int64_t const first_tile = d.begin(c) / k_tiles;
      std::int64_t const last_tile = (d.begin(c + 1) - 1) / k_tiles;
      int const touched = static_cast<int>(last_tile - first_tile + 1);
      if (touched > d.sk_rounds) d.sk_rounds = touched;
    }
    return d;
  }

 private:
  WL_HOST_DEVICE constexpr int dp_tiles_at(int round, int cta) const { return round * ctas + cta; }
};

// A stream-K launch's walk and workspace, as the kernel gets them: one fp32 partial-sum tile per
// CTA, then one flag per CTA (zero at launch; the launcher sets them on the stream).
struct StreamKRun {
  StreamKDecomposition walk;
  float* partials = nullptr;
  int* flags = nullptr;
};

// The workspace bytes of a stream-K launch of `ctas` CTAs on tiles of tile_m x tile_n.
constexpr std::int64_t stream_k_workspace_bytes(int ctas, int tile_m, int tile_n) {
  return static_cast<std::int64_t>(ctas) * tile_m * tile_n * 4 +
         static_cast<std::int64_t>(ctas) * 4;
}

}  // namespace warploom::gemm
