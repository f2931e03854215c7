// kernels/attention/sm90/schedule.hpp
//
// The sm90 attention forward schedule: O = softmax(Q . K^T * scale [+ causal mask]) . V and the
// log-sum-exp of every row, FlashAttention-3's design in TS.
//
//   tile counter ──atomicAdd──▶ SchedulerTask (warp 9) ──▶ Queue (tile indices, 2 entries)
//                                                              │ read by every task
//                        ┌─▶ SmemQ (TMA -> wgmma, kStagesQ) ─┐
//   Tiles ──▶ LoadTask ──┼─▶ SmemK (TMA -> wgmma, kStages)  ─┼─▶ SoftmaxTask ──O, LSE──▶ GmemO
//   (index    (warp 8)   └─▶ SmemV (TMA -> wgmma, kStages)  ─┘  (warps 0-7: two warpgroups,
//    -> tile)                                                    64 query rows each)
//
// A tile is 128 (or 192) query rows of one head of one sequence. Persistent CTAs take the tiles
// from a counter in global memory as they finish the ones before (a scheduler warp and a queue of
// tile indices in shared memory, ts::DynamicTileQueue), in an order that puts the longest causal
// tiles (the last query rows, which see the most keys) first, so that the short ones fill the
// tail. Per tile the load task fetches Q once, then the K and V blocks the tile visits, last
// block first (tile.hpp).
// Each consumer warpgroup owns 64 of the rows and, per block,
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
// Three schedules per head dimension. The first runs the two GEMMs of a block back to back
// (wgmma_wait<0> after each), so the tensor cores idle while the softmax runs. The second
// (kOverlap) is FA3's intra-warpgroup overlap: block j's S = Q . K^T is issued together with block
// j-1's O += P . V, and block j's softmax runs while that second wgmma is in flight (V's ring lags
// K's by a block; O's rescaling waits for the wgmma; P has registers of its own; R-D23 shaped how
// the loop is written, see there and docs/kernels/sm90_attention.md). The third (kPingpong) adds
// FA3's inter-warpgroup ping-pong: each warpgroup is a task of its own, and the two take turns
// issuing their GEMMs (ts::Turn, two one-stage pipelines), so that one's softmax runs under the
// other's GEMMs.
//
// Warps: the softmax task (or the two ping-pong tasks) on warps 0-7 with 240 registers, load on
// warp 8 and the scheduler on warp 9 with 24 (FA3's budgets), padding on warps 10-11:
// 2 x 128 x 240 + 128 x 24 = 64512 <= 65536 registers. A 192-row shape (three consumer
// warpgroups, S::kConsumerWarpgroups) moves the load and scheduler warps to warps 12 and 13 and
// gives the consumers 160 registers each: 3 x 128 x 160 + 128 x 24 = 64512.
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
#include "warploom/ts/tile_scheduler.hpp"
#include "warploom/ts/ts.hpp"
#include "warploom/ts/turn.hpp"

namespace warploom::attention::sm90 {

namespace ts = warploom::ts;

template <class S, class W = ScheduleOnly, bool kOverlap = false, bool kPingpong = false>
struct Forward {
  static_assert(!kPingpong || kOverlap,
                "the ping-pong schedule is the overlap schedule's, in turns");
  static_assert(!kPingpong || S::kConsumerWarpgroups == 2,
                "the ping-pong schedule's turns go between two warpgroups");
  static_assert(!kPingpong || pingpong_runs(S::kHeadDim),
                "the ping-pong schedule's warpgroups have too few registers at D = 256 "
                "(shape.hpp, pingpong_runs)");
  static constexpr ts::ScheduleText kNameText = schedule_name<S>(kOverlap, kPingpong);
  static constexpr std::string_view kName = kNameText.view();
  static constexpr std::string_view kDescription =
      kPingpong
          ? "attention forward, warpgroups in turns: each issues block j's S = Q.K^T with block "
            "j-1's O += P.V in its turn, then runs its softmax under the other's GEMMs; scheduler "
            "warp -> tile queue, TMA warp -> Q, K, V rings -> two wgmma warpgroups, O and LSE "
            "from registers"
      : kOverlap
          ? "attention forward, GEMMs overlapped: block j's S = Q.K^T issued with block j-1's "
            "O += P.V, its softmax under that wgmma; scheduler warp -> tile queue, TMA warp -> "
            "Q, K, V rings -> wgmma warpgroups, O and LSE from registers"
          : "attention forward: persistent, scheduler warp -> tile queue, TMA load warp -> Q, K "
            "and V rings -> wgmma warpgroups (S = Q.K^T, online softmax, O += P.V), O and LSE "
            "from registers";

  static constexpr int kConsumerWarps = 4 * S::kConsumerWarpgroups;
  using Element = typename W::Element;
  using Scores = typename W::Scores;
  using OutputState = typename W::OutputState;
  using PTile = typename W::PTile;
  using OutputTile = typename W::OutputTile;

  // ---- Resources --------------------------------------------------------------------------------

  // Which tile comes next: a scheduler warp takes tile indices from a counter in global memory and
  // hands each to every task of the CTA through a two-entry ring (ts::DynamicTileQueue), so a CTA
  // that drew short tiles takes more. The causal tiles differ in length by up to the sequence's
  // blocks, and the order walked (longest first inside each L2 section, tile.hpp) leaves a fixed
  // walk (CTA b taking tiles b, b + grid, ...) a few percent of imbalance at 4096 keys and more at
  // longer sequences; variable lengths differ more. Read by the consumer warps, the load warp and
  // the scheduler itself.
  static constexpr int kLoadWarp = kConsumerWarps, kSchedulerWarp = kConsumerWarps + 1;
  using Queue = ts::DynamicTileQueue<2, kConsumerWarps + 2>;

  // The tile an index names, and how many K/V blocks it visits: a loop bound read per tile (the
  // causal diagonal and variable sequence lengths make it differ from tile to tile: a dynamic
  // domain).
  struct Tiles {
    static constexpr ts::ResourceSpec spec{.name = "tiles"};
    typename W::Params const* p = nullptr;

    WL_DEVICE TileInfo next(ts::Consume const&, ts::WorkTile entry) const {
      return W::tile_at(*p, entry.m);
    }
    // At least one (tile_at): a tile that sees no key visits one block, masked whole, so that the
    // overlap schedules can issue a tile's first S before they know its blocks.
    WL_DEVICE int n_blocks_of(ts::Consume const&, TileInfo tile) const { return tile.n_blocks; }
    // The tile whose O the next tile stores (the overlap schedules), kept in a local. A work of
    // its own: the verifier ties loops over `next`'s value across tasks, not over a local's.
    WL_DEVICE TileInfo carry(ts::Consume const&, TileInfo tile) const { return tile; }
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
      W::load_k(*this, stage, tile, 0);
    }
    // The block after the loop iteration's own (the overlap schedules load K a block ahead).
    WL_DEVICE void tma_load_next(ts::Produce const& stage, TileInfo tile) {
      W::load_k(*this, stage, tile, 1);
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
    // O / row sum in the element type and LSE = max + log(row sum), out of the accumulator into
    // registers of their own (no wgmma may be in flight: O is its accumulator).
    WL_DEVICE void normalize(ts::Produce const& stage, OutputState const& o, OutputTile& t) {
      W::normalize(*this, stage, o, t);
    }
    // The tile's rows of O and LSE, rows past the sequence dropped; may run while a wgmma is in
    // flight (the overlap schedules store a tile under the next tile's first S).
    WL_DEVICE void store(ts::Produce const& stage, OutputTile const& t, TileInfo tile) {
      W::store(*this, stage, t, tile);
    }
    // normalize and store at once, where nothing is in flight after it: fewer registers (a row
    // packed at a time) where the tile's O is stored at its end.
    WL_DEVICE void write(ts::Produce const& stage, OutputState const& o, TileInfo tile) {
      W::write(*this, stage, o, tile);
    }
  };

  // ---- Tasks ------------------------------------------------------------------------------------

  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = kLoadWarp, .num_warps = 1, .num_registers = 24};
    using src = ts::list<Queue, Tiles>;
    using dst = ts::list<SmemQ, SmemK, SmemV>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& queue, auto& tiles, auto& q,
                                                  auto& k, auto& v) {
      ctx.work_tile_loop(queue, [&](auto& loop) {
        auto entry = ts::take_tile(queue);
        loop.if_valid(entry, [&] { load_tile(ctx, tiles, q, k, v, entry); });
      });
    }

    // Q, then the K and V blocks the tile visits.
    WL_HOST_DEVICE static constexpr void load_tile(auto& ctx, auto& tiles, auto& q, auto& k,
                                                   auto& v, auto const& entry) {
      auto tile = ts::work<&Tiles::next>(tiles, entry);
      q.acquire();
      ts::work<&SmemQ::tma_load>(q, tile);
      q.commit();
      auto load_k = [&](auto&& load) {
        k.acquire();
        load();
        k.commit();
      };
      ctx.domain_loop(ts::at_least<1>(ts::work<&Tiles::n_blocks_of>(tiles, tile)), [&](auto& j) {
        if constexpr (kOverlap) {
          // K one block ahead of V, in the order the overlapped consumers read them (block j's
          // S with block j-1's P . V): K_0 and K_1, then V_0; K_{j+1}, then V_j. In the serial
          // order (K_j, V_j) the acquire of V_j, whose stage frees only at the end of the
          // consumers' iteration j-1, held K_{j+1} back behind it.
          j.first_iter([&] { load_k([&] { ts::work<&SmemK::tma_load>(k, tile); }); });
          j.not_last_iter([&] { load_k([&] { ts::work<&SmemK::tma_load_next>(k, tile); }); });
        } else {
          load_k([&] { ts::work<&SmemK::tma_load>(k, tile); });
        }
        v.acquire();
        ts::work<&SmemV::tma_load>(v, tile);
        v.commit();
      });
    }
  };

  // One warp of the load warp's warpgroup, with its registers.
  using SchedulerTask = ts::TileSchedulerTask<Queue, kSchedulerWarp, 24>;

  // The warpgroups' turns at the tensor cores (kPingpong, overlap schedule only): `take` before a
  // block's S is issued, `give` once it retired; warpgroup 1 gives one turn in its first fetch, so
  // that warpgroup 0 starts, and warpgroup 0 takes the one left after its last tile. NoTurns: one
  // task runs both warpgroups.
  struct NoTurns {
    WL_HOST_DEVICE constexpr void take() const {}
    WL_HOST_DEVICE constexpr void give() const {}
    WL_HOST_DEVICE constexpr void start() const {}
    WL_HOST_DEVICE constexpr void finish() const {}
  };
  template <int kSlot, class Mine, class Next>
  struct Turns {
    Mine& mine;  // this warpgroup's turn, given by the other
    Next& next;  // the other's, given by this one
    WL_HOST_DEVICE constexpr void take() const { ts::take_turn(mine); }
    WL_HOST_DEVICE constexpr void give() const { ts::give_turn(next); }
    WL_HOST_DEVICE constexpr void start() const {
      if constexpr (kSlot == 1) give();
    }
    WL_HOST_DEVICE constexpr void finish() const {
      if constexpr (kSlot == 0) take();
    }
  };

  // Per tile: Q once, then the K/V blocks (one of the schedules above), then O and LSE.
  WL_HOST_DEVICE static constexpr void consume_tiles(auto& ctx, auto& queue, auto& tiles, auto& q,
                                                     auto& k, auto& v, auto& o, auto const& turns) {
    if constexpr (kOverlap) {
      consume_tiles_overlapped(ctx, queue, tiles, q, k, v, o, turns);
    } else {
      consume_tiles_serially(ctx, queue, tiles, q, k, v, o);
    }
  }

  // The first schedule: per block S = Q . K^T, softmax, O += P . V, each GEMM waited for.
  WL_HOST_DEVICE static constexpr void consume_tiles_serially(auto& ctx, auto& queue, auto& tiles,
                                                              auto& q, auto& k, auto& v, auto& o) {
    auto s = ctx.local(Scores{});
    auto p_tile = ctx.local(PTile{});
    auto acc = ctx.local(OutputState{});  // O = 0, row maxima -inf, sums 0
    ctx.work_tile_loop(queue, [&](auto& loop) {
      auto entry = ts::take_tile(queue);
      loop.if_valid(entry, [&] {
        auto tile = ts::work<&Tiles::next>(tiles, entry);
        q.wait();
        auto q_stage = ts::work<&SmemQ::stage_of>(q);
        auto n_blocks = ts::at_least<1>(ts::work<&Tiles::n_blocks_of>(tiles, tile));
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
        // Unconditionally (ptxas cannot tell that the loop runs): every wgmma of the tile retired,
        // Q's reads among them.
        ts::wgmma_wait<0>(ctx);
        q.release();
        ts::work<&GmemO::write>(o, acc, tile);
        acc = ts::work<&Tiles::initial_output>(tiles);  // for the next tile
      });
    });
  }

  // FA3's intra-warpgroup overlap: iteration j of a tile's blocks issues block j's S = Q . K^T,
  // then block j-1's O += P . V, waits for the first only and runs block j's softmax while the
  // second is in flight; O is rescaled and P replaced once it retired (finish_softmax). V's ring
  // lags K's by one block: the last block's O += P . V runs in the last iteration. Where the
  // shape has the registers (S::kStoreUnderNextS), a tile's O is stored by the next tile, while
  // that tile's first S runs (the tile edge, where both warpgroups would otherwise stop
  // together), so every tile visits at least one block; else at the tile's end. Every wgmma is
  // waited for in the loop iteration that issued it: with one in flight across a loop's back
  // edge, ptxas serializes them all (C7514).
  WL_HOST_DEVICE static constexpr void consume_tiles_overlapped(auto& ctx, auto& queue, auto& tiles,
                                                                auto& q, auto& k, auto& v, auto& o,
                                                                auto const& turns) {
    auto s = ctx.local(Scores{});
    auto p_tile = ctx.local(PTile{});
    auto acc = ctx.local(OutputState{});  // O = 0, row maxima -inf, sums 0
    auto out = ctx.local(OutputTile{});   // the tile before's O and LSE, which this one stores
    auto done = ctx.local(TileInfo{});    // the tile before
    ctx.work_tile_loop(queue, [&](auto& t) {
      auto entry = ts::take_tile(queue);
      if constexpr (kPingpong) t.first_iter([&] { turns.start(); });
      t.if_valid(entry, [&] {
        auto tile = ts::work<&Tiles::next>(tiles, entry);
        q.wait();
        auto q_stage = ts::work<&SmemQ::stage_of>(q);
        auto n_blocks = ts::at_least<1>(ts::work<&Tiles::n_blocks_of>(tiles, tile));
        ctx.domain_loop(n_blocks, [&](auto& j) {
          k.wait();
          turns.take();
          ts::work<&SmemK::qk>(k, s, q_stage);
          if constexpr (S::kStoreUnderNextS) {
            j.first_iter([&] {
              t.not_first_iter([&] { ts::work<&GmemO::store>(o, out, done); });  // under this S
            });
          }
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
          // The other warpgroup may issue its GEMMs now: this one's S is ready and its P . V
          // keeps the tensor cores busy meanwhile. After both branches, not in each: a turn
          // handed over (an mbarrier wait and arrive) inside first_iter, while nothing is in
          // flight there, makes ptxas serialize every wgmma (C7514); here it does not.
          turns.give();
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
        // Unconditionally (ptxas cannot tell which of the loop's conditional waits ran): every
        // wgmma of the tile retired, Q's reads among them.
        ts::wgmma_wait<0>(ctx);
        q.release();
        if constexpr (S::kStoreUnderNextS) {
          ts::work<&GmemO::normalize>(o, acc, out);
          done = ts::work<&Tiles::carry>(tiles, tile);
        } else {
          ts::work<&GmemO::write>(o, acc, tile);  // the shape has no registers to keep it
        }
      });
      // The queue ran dry: the last tile's O, which no tile after it stores (none: a CTA that
      // drew no tile).
      t.if_invalid(entry, [&] {
        if constexpr (S::kStoreUnderNextS) ts::work<&GmemO::store>(o, out, done);
        turns.finish();
      });
    });
  }

  // The consumer warpgroups as one task, each on its 64 rows.
  struct SoftmaxTask {
    static constexpr ts::TaskSpec spec{.name = "softmax",
                                       .warp_idx = 0,
                                       .num_warps = kConsumerWarps,
                                       .num_registers = S::kConsumerRegisters};
    using src = ts::list<Queue, Tiles, SmemQ, SmemK, SmemV>;
    using dst = ts::list<GmemO>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& queue, auto& tiles, auto& q,
                                                  auto& k, auto& v, auto& o) {
      consume_tiles(ctx, queue, tiles, q, k, v, o, NoTurns{});
    }
  };

  // kPingpong: each warpgroup a task of its own, taking turns at the tensor cores (FA3's
  // inter-warpgroup ping-pong): warpgroup kSlot issues a block's GEMMs in its turn, gives the turn
  // to the other and runs its softmax while the other's GEMMs keep the tensor cores busy. The turn
  // goes 0, 1, 0, 1, ... through every block of every tile (both warpgroups visit the same blocks):
  // warpgroup 1 gives one turn before its first block, so warpgroup 0 starts, and warpgroup 0
  // takes the one left after its last. The last block's O += P . V is issued outside the turns.
  template <int kSlot>
  struct PingpongTask {
    static constexpr std::string_view kNames[2] = {"softmax0", "softmax1"};
    static constexpr ts::TaskSpec spec{.name = kNames[kSlot],
                                       .warp_idx = 4 * kSlot,
                                       .num_warps = kConsumerWarps / 2,
                                       .num_registers = S::kConsumerRegisters};
    using src = ts::list<Queue, Tiles, SmemQ, SmemK, SmemV, ts::Turn<1 - kSlot>>;
    using dst = ts::list<GmemO, ts::Turn<kSlot>>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& queue, auto& tiles, auto& q,
                                                  auto& k, auto& v, auto& my_turn, auto& o,
                                                  auto& next_turn) {
      using T = Turns<kSlot, std::remove_reference_t<decltype(my_turn)>,
                      std::remove_reference_t<decltype(next_turn)>>;
      consume_tiles(ctx, queue, tiles, q, k, v, o, T{my_turn, next_turn});
    }
  };

  // The graph, with the turns' edges where the warpgroups take turns.
  template <class... TurnEdges>
  using GraphWith =
      ts::Graph<ts::DependsOn<SmemQ, Queue, Tiles>, ts::DependsOn<SmemK, Queue, Tiles>,
                ts::DependsOn<SmemV, Queue, Tiles>,
                ts::DependsOn<GmemO, SmemQ, SmemK, SmemV, Queue, Tiles>, TurnEdges...>;
  using Manager = ts::TaskManager<
      std::conditional_t<kPingpong,
                         ts::Tasks<PingpongTask<0>, PingpongTask<1>, LoadTask, SchedulerTask>,
                         ts::Tasks<SoftmaxTask, LoadTask, SchedulerTask>>,
      std::conditional_t<
          kPingpong,
          GraphWith<ts::DependsOn<ts::Turn<0>, SmemK>, ts::DependsOn<ts::Turn<1>, SmemK>>,
          GraphWith<>>,
      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;
  static_assert(Manager::smem_bytes <= 227 * 1024, "the shape's buffers exceed 227 KiB");

#if defined(__CUDACC__)
  // The kernel body: this CTA's resources, the schedule, run. `queue` holds the tile counter.
  static WL_DEVICE void run(typename W::Params const& p, Queue queue, char* smem) {
    Tiles tiles{};
    tiles.p = &p;
    SmemQ q{};
    q.p = &p;
    SmemK k{};
    k.p = &p;
    k.q_tiles = &q;
    SmemV v{};
    v.p = &p;
    GmemO o{};
    o.p = &p;
    if constexpr (kPingpong) {
      ts::Turn<0> turn0;
      ts::Turn<1> turn1;
      Manager tm(smem, queue, tiles, q, k, v, o, turn0, turn1);
      tm.setup_resources_and_tasks().fence_and_sync_cta().run();
    } else {
      Manager tm(smem, queue, tiles, q, k, v, o);
      tm.setup_resources_and_tasks().fence_and_sync_cta().run();
    }
  }
#endif
};

}  // namespace warploom::attention::sm90
