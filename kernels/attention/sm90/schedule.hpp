// kernels/attention/sm90/schedule.hpp
//
// The sm90 attention forward schedule: O = softmax(Q . K^T * scale [+ causal mask]) . V and the
// log-sum-exp of every row, FlashAttention-3's design in TS.
//
//                      ┌─▶ SmemQ (TMA -> wgmma, kStagesQ) ─┐
//   Tiles ──▶ LoadTask ┼─▶ SmemK (TMA -> wgmma, kStages)  ─┼─▶ SoftmaxTask ──O, LSE──▶ GmemO
//   (tiles, ─ (warp 8) └─▶ SmemV (TMA -> wgmma, kStages)  ─┘  (warps 0-7: two warpgroups,
//    longest first)                                            64 query rows each)
//
// A tile is 128 query rows of one head of one sequence. Persistent CTAs walk the tiles j, j + s,
// j + 2s, ... (s: CTAs in the grid); the tile order puts the longest causal tiles (the last query
// rows, which see the most keys) first, so that the short ones fill the tail. Per tile the load
// task fetches Q once, then the K and V blocks the tile visits, last block first (tile.hpp). Each
// consumer warpgroup owns 64 of the 128 rows and, per block,
//   1. S = Q . K^T          wgmma, both operands in shared memory (SS); K's stage goes back
//   2. online softmax       in registers: mask, row max over the quad, exp2 with the scale
//                           pre-multiplied by log2(e), the running row sums, P in 16 bits
//   3. O += P . V           O rescaled for the new maximum, then wgmma with P from registers
//                           (RS); V's stage goes back
// and after the last block normalises O and writes it and the LSE straight from registers to
// global memory (no shared-memory staging yet: docs/kernels/sm90_attention.md).
//
// Both warpgroups wait on and release every stage: a K or V stage completes after 8 warp arrivals.
// Q is held for the whole tile and released after its last S wgmma retired.
//
// Two schedules per head dimension (kOverlap). The first runs the two GEMMs of a block back to back
// (wgmma_wait<0> after each), so the tensor cores idle while the softmax runs. The second is FA3's
// intra-warpgroup overlap: block j's S = Q . K^T is issued together with block j-1's O += P . V,
// and block j's softmax runs while that second wgmma is in flight (V's ring lags K's by a block;
// O's rescaling waits for the wgmma; P has registers of its own; R-D23 shaped how the loop is
// written, see there and docs/kernels/sm90_attention.md). FA3's other overlap, the
// warpgroups taking turns (one's softmax under the other's GEMMs, named barriers), is the next
// step (docs/kernels/sm90_attention.md).
//
// Warps: the softmax task on warps 0-7 with 240 registers, load on warp 8 with 24 (FA3's budgets),
// padding on warps 9-11: 2 x 128 x 240 + 128 x 24 = 64512 <= 65536 registers.
//
// This file is the schedule only: the same for both element types and both masks, verified once
// per head dimension in its schedule unit. `W` supplies the work bodies (works.cuh, or
// schedule_only.hpp for the verifier).
#pragma once

#include <string_view>
#include <type_traits>

#include "attention/sm90/schedule_only.hpp"
#include "attention/sm90/shape.hpp"
#include "attention/sm90/tile.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::attention::sm90 {

namespace ts = warploom::ts;

template <class S, class W = ScheduleOnly, bool kOverlap = false>
struct Forward {
  static constexpr ts::ScheduleText kNameText = schedule_name<S>(kOverlap);
  static constexpr std::string_view kName = kNameText.view();
  static constexpr std::string_view kDescription =
      kOverlap ? "attention forward, GEMMs overlapped: block j's S = Q.K^T issued with block j-1's "
                 "O += P.V, its softmax under that wgmma; TMA warp -> Q, K, V rings -> two wgmma "
                 "warpgroups, O and LSE from registers"
               : "attention forward: persistent, TMA load warp -> Q, K and V rings -> two wgmma "
                 "warpgroups (S = Q.K^T, online softmax, O += P.V), O and LSE from registers";

  static constexpr int kConsumerWarps = 8;
  using Element = typename W::Element;
  using Scores = typename W::Scores;
  using OutputState = typename W::OutputState;
  using PTile = typename W::PTile;

  // ---- Resources --------------------------------------------------------------------------------

  // Which tile comes next, and how many K/V blocks it visits: a loop bound read per tile (the
  // causal diagonal and variable sequence lengths make it differ from tile to tile: a dynamic
  // domain).
  struct Tiles {
    static constexpr ts::ResourceSpec spec{.name = "tiles"};
    typename W::Params const* p = nullptr;
    int first = 0;      // this CTA's first tile
    int stride = 1;     // CTAs in the grid
    int num_tiles = 0;  // tiles in the problem

    WL_DEVICE TileInfo next(ts::Consume const& s) const { return W::tile_at(*p, s.loop_offset); }
    WL_DEVICE int n_blocks_of(ts::Consume const&, TileInfo tile) const { return tile.n_blocks; }
    // What a tile's output starts from: O = 0, row maxima -inf, sums 0.
    WL_DEVICE OutputState initial_output(ts::Consume const&) const { return OutputState{}; }
  };

  // The Q tile (128 x D), filled by TMA once per tile and read by every S wgmma of the tile.
  struct SmemQ {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_q",
        .pipeline =
            ts::tma_wgmma(S::kStagesQ, S::kBytesQ, ts::threads(1), ts::warps(kConsumerWarps))};
    typename W::Params const* p = nullptr;
    ts::SmemBuffer<Element, S::kStagesQ * S::kBytesQ / sizeof(Element), 1024>
        q;  // (BLK_M, D, STAGE_Q)
    using smem_buffers = ts::buffers<&SmemQ::q>;

    WL_DEVICE void tma_load(ts::Produce const& stage, TileInfo tile) {
      W::load_q(*this, stage, tile);
    }
    // The stage the consumers read this tile's Q from (handed to the S wgmma on K's stages).
    WL_DEVICE int stage_of(ts::Consume const& stage) const { return stage.stage_idx; }
  };

  // One K/V block (kBlockN x D) per stage. K and V are rings of their own: S = Q . K^T can start
  // while V is still landing, and K's stage goes back as soon as S is computed.
  struct SmemK {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_k",
        .pipeline =
            ts::tma_wgmma(S::kStages, S::kBytesKV, ts::threads(1), ts::warps(kConsumerWarps))};
    typename W::Params const* p = nullptr;
    SmemQ const* q_tiles = nullptr;  // what S = Q . K^T reads besides K
    ts::SmemBuffer<Element, S::kStages * S::kBytesKV / sizeof(Element), 1024>
        k;  // (BLK_N, D, STAGE)
    using smem_buffers = ts::buffers<&SmemK::k>;

    WL_DEVICE void tma_load(ts::Produce const& stage, TileInfo tile) {
      W::load_k(*this, stage, tile);
    }
    // Issues (without waiting) S = Q . K^T of this stage's block, Q from stage `q_stage`.
    WL_DEVICE void qk(ts::Consume const& stage, Scores& s, int q_stage) const {
      W::qk(*this, stage, s, q_stage);
    }
  };

  struct SmemV {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_v",
        .pipeline =
            ts::tma_wgmma(S::kStages, S::kBytesKV, ts::threads(1), ts::warps(kConsumerWarps))};
    typename W::Params const* p = nullptr;
    ts::SmemBuffer<Element, S::kStages * S::kBytesKV / sizeof(Element), 1024>
        v;  // (BLK_N, D, STAGE)
    using smem_buffers = ts::buffers<&SmemV::v>;

    WL_DEVICE void tma_load(ts::Produce const& stage, TileInfo tile) {
      W::load_v(*this, stage, tile);
    }
    // O *= the block's softmax correction, then issues (without waiting) O += P . V of this
    // stage's block, P from registers.
    WL_DEVICE void pv(ts::Consume const& stage, PTile const& p_tile, OutputState& o) const {
      W::pv(*this, stage, p_tile, o);
    }
  };

  // The output: O's accumulator and the softmax statistics in registers (OutputState), written to O
  // and LSE in global memory at the end of the tile.
  struct GmemO {
    static constexpr ts::ResourceSpec spec{.name = "gmem_o"};
    typename W::Params const* p = nullptr;

    // Masks S, updates the row maxima and sums, turns S into exp(S - max) and keeps the factor O
    // is to be rescaled by.
    WL_DEVICE void online_softmax(ts::Produce const& stage, Scores& s, OutputState& o,
                                  TileInfo tile) {
      W::online_softmax(*this, stage, s, o, tile);
    }

    // O *= the kept factor and P = exp(S - max) in the element type, for O += P . V (no wgmma
    // may be in flight: O and P are its inputs).
    WL_DEVICE void finish_softmax(ts::Produce const& stage, Scores const& s, PTile& p_tile,
                                  OutputState& o) {
      W::finish_softmax(*this, stage, s, p_tile, o);
    }
    // O / row sum and LSE = max + log(row sum), rows past the sequence dropped; resets `o`.
    WL_DEVICE void store(ts::Produce const& stage, OutputState& o, TileInfo tile) {
      W::store(*this, stage, o, tile);
    }
  };

  // ---- Tasks ------------------------------------------------------------------------------------

  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = 8, .num_warps = 1, .num_registers = 24};
    using src = ts::list<Tiles>;
    using dst = ts::list<SmemQ, SmemK, SmemV>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& q, auto& k,
                                                  auto& v) {
      ctx.domain_loop(tiles->first, tiles->num_tiles, tiles->stride, [&](auto&) {
        auto tile = ts::work<&Tiles::next>(tiles);
        q.acquire();
        ts::work<&SmemQ::tma_load>(q, tile);
        q.commit();
        ctx.domain_loop(ts::work<&Tiles::n_blocks_of>(tiles, tile), [&](auto&) {
          k.acquire();
          ts::work<&SmemK::tma_load>(k, tile);
          k.commit();
          v.acquire();
          ts::work<&SmemV::tma_load>(v, tile);
          v.commit();
        });
      });
    }
  };

  struct SoftmaxTask {
    static constexpr ts::TaskSpec spec{
        .name = "softmax", .warp_idx = 0, .num_warps = kConsumerWarps, .num_registers = 240};
    using src = ts::list<Tiles, SmemQ, SmemK, SmemV>;
    using dst = ts::list<GmemO>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& q, auto& k, auto& v,
                                                  auto& o) {
      auto s = ctx.local(Scores{});
      auto p_tile = ctx.local(PTile{});
      auto acc = ctx.local(OutputState{});  // O = 0, row maxima -inf, sums 0
      ctx.domain_loop(tiles->first, tiles->num_tiles, tiles->stride, [&](auto&) {
        auto tile = ts::work<&Tiles::next>(tiles);
        q.wait();
        auto q_stage = ts::work<&SmemQ::stage_of>(q);
        auto n_blocks = ts::work<&Tiles::n_blocks_of>(tiles, tile);
        if constexpr (kOverlap) {
          // FA3's intra-warpgroup overlap: iteration j issues block j's S = Q . K^T, then block
          // j-1's O += P . V, waits for the first only and runs block j's softmax while the second
          // is in flight; O is rescaled and P replaced once it retired (finish_softmax). V's ring
          // lags K's by one block: the last block's O += P . V runs in the last iteration.
          ctx.domain_loop(n_blocks, [&](auto& j) {
            k.wait();
            ts::work<&SmemK::qk>(k, s, q_stage);
            j.not_first_iter([&] {
              v.wait();
              ts::work<&SmemV::pv>(v, p_tile, acc);  // block j-1
              ts::wgmma_wait<1>(ctx);                // block j's S is ready, P . V still runs
            });
            // Block 0: only its S is in flight. The reset of O and the statistics comes after the
            // P . V above in the text, so that every later read of `acc` in the body reads a
            // work that ran in this execution (R-D23: a read after a conditional write would read
            // a work that the first iteration skipped).
            j.first_iter([&] {
              ts::wgmma_wait<0>(ctx);
              acc = ts::work<&Tiles::initial_output>(tiles);
            });
            k.release();
            ts::work<&GmemO::online_softmax>(o, s, acc, tile);
            // A wait on every path, the first iteration's too (nothing is in flight there; the
            // wait costs a few cycles). ptxas cannot tell that first_iter and not_first_iter
            // exclude each other: with this wait in not_first_iter only, it sees a path on which
            // block j-1's P . V is in flight when finish_softmax writes O and P, and serializes
            // every wgmma of the kernel (C7513). Nor may the wait stand unconditionally between
            // the branches: nothing ties it to the softmax, and ptxas schedules it at the top of
            // the softmax's basic block, so that the softmax overlaps nothing. In a branch of its
            // own it stays after the softmax (docs/kernels/sm90_attention.md has the SASS).
            j.first_iter([&] { ts::wgmma_wait<0>(ctx); });
            j.not_first_iter([&] {
              ts::wgmma_wait<0>(ctx);  // block j-1's P . V retired: V's stage, O and P are free
              v.release();
            });
            ts::work<&GmemO::finish_softmax>(o, s, p_tile, acc);
            j.last_iter([&] {
              v.wait();
              ts::work<&SmemV::pv>(v, p_tile, acc);  // the last block
              ts::wgmma_wait<0>(ctx);
              v.release();
            });
          });
        } else {
          // The first schedule: per block S = Q . K^T, softmax, O += P . V, each GEMM waited for.
          ctx.domain_loop(n_blocks, [&](auto&) {
            k.wait();
            ts::work<&SmemK::qk>(k, s, q_stage);
            ts::wgmma_wait<0>(ctx);
            k.release();
            ts::work<&GmemO::online_softmax>(o, s, acc, tile);
            ts::work<&GmemO::finish_softmax>(o, s, p_tile, acc);
            v.wait();
            ts::work<&SmemV::pv>(v, p_tile, acc);
            ts::wgmma_wait<0>(ctx);
            v.release();
          });
        }
        // Unconditionally (the loop may run no iteration, and ptxas cannot tell which of its
        // conditional waits ran): every wgmma of the tile retired, Q's reads among them.
        ts::wgmma_wait<0>(ctx);
        q.release();
        ts::work<&GmemO::store>(o, acc, tile);
      });
    }
  };

  using Manager = ts::TaskManager<
      ts::Tasks<SoftmaxTask, LoadTask>,
      ts::Graph<ts::DependsOn<SmemQ, Tiles>, ts::DependsOn<SmemK, Tiles>,
                ts::DependsOn<SmemV, Tiles>, ts::DependsOn<GmemO, SmemQ, SmemK, SmemV, Tiles>>,
      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;
  static_assert(Manager::smem_bytes <= 227 * 1024, "the shape's buffers exceed 227 KiB");

#if defined(__CUDACC__)
  // The kernel body: this CTA's resources, the schedule, run.
  static WL_DEVICE void run(typename W::Params const& p, Tiles tiles, char* smem) {
    SmemQ q{};
    q.p = &p;
    SmemK k{};
    k.p = &p;
    k.q_tiles = &q;
    SmemV v{};
    v.p = &p;
    GmemO o{};
    o.p = &p;
    Manager tm(smem, tiles, q, k, v, o);
    tm.setup_resources_and_tasks().fence_and_sync_cta().run();
  }
#endif
};

}  // namespace warploom::attention::sm90
