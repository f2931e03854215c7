// kernels/attention/sm90/works.cuh
//
// The work bodies of one typed attention configuration (config.cuh), as the schedule's resources
// call them (schedule.hpp): which tile comes next, the TMA loads of Q, K and V, the two wgmma
// batches of a K/V block, the online softmax between them and the final store of O and LSE.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "attention/sm90/config.cuh"
#include "attention/sm90/tile.hpp"
#include "warploom/arch/fast_math.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::attention::sm90 {

template <class Cfg>
struct Works {
  using Params = typename Cfg::Params;
  using Element = typename Cfg::Element;
  using Scores = typename Cfg::Scores;
  using OutputState = typename Cfg::OutputState;
  using PTile = typename Cfg::PTile;
  using OutputTile = typename Cfg::OutputTile;
  static constexpr int kBlockM = Cfg::kBlockM;
  static constexpr int kBlockN = Cfg::kBlockN;
  static constexpr int kHeadDim = Cfg::kHeadDim;
  static constexpr bool kCausal = Cfg::kCausal;

  // ---- Tiles ------------------------------------------------------------------------------------

  // Tile t: the query tiles of every (sequence, head) for the last 128 rows first, then the rows
  // before them, ... Under the causal mask the last rows see the most keys, so the longest tiles
  // are handed out first and the short ones fill the tail of the persistent loop; the heads of one
  // sequence are neighbours, so a group of query heads reads its K/V head from L2.
  static WL_DEVICE TileInfo tile_at(Params const& p, int t) {
    // In L2-sized sections of heads (tile.hpp, tile_slot): ordered by rows across all heads
    // instead, every CTA reads another head's K and V, the L2 hit rate falls to ~5 % and the
    // kernel waits on DRAM (ncu, 4x32x4096x128: DRAM 70 % busy, tensor pipe 60 %).
    TileSlot const slot =
        tile_slot(t, p.m_blocks, p.heads * p.batch, p.heads_per_section, /*pair_major=*/!kCausal);
    TileInfo tile;
    tile.m_block = slot.m_block;
    int const hb = slot.head_batch;
    tile.head = hb % p.heads;
    tile.batch = hb / p.heads;
    if (p.cu_seqlens_q != nullptr) {
      tile.q_offset = p.cu_seqlens_q[tile.batch];
      tile.seqlen_q = p.cu_seqlens_q[tile.batch + 1] - tile.q_offset;
    } else {
      tile.seqlen_q = p.seqlen_q;
    }
    if (p.cu_seqlens_k != nullptr) {
      tile.k_offset = p.cu_seqlens_k[tile.batch];
      tile.seqlen_k = p.cu_seqlens_k[tile.batch + 1] - tile.k_offset;
    } else {
      tile.seqlen_k = p.seqlen_k;
    }
    int const first_row = tile.m_block * kBlockM;
    if (first_row >= tile.seqlen_q) {
      tile.n_blocks = 1;  // a tile past a shorter sequence's end: one block, nothing stored
    } else {
      int n_blocks = (tile.seqlen_k + kBlockN - 1) / kBlockN;
      if constexpr (kCausal) {
        // Row q sees keys 0 .. q + S_k - S_q (the mask aligned to the bottom right, as in
        // FlashAttention 2 and 3): the tile's last row decides its last block.
        int const last_row = min(tile.seqlen_q, first_row + kBlockM) - 1;
        int const last_key = last_row + tile.seqlen_k - tile.seqlen_q;
        n_blocks = last_key < 0 ? 0 : min(n_blocks, last_key / kBlockN + 1);
      }
      // At least one (the schedules' loops promise it, ts::at_least<1>): a tile that sees no key
      // (S_k = 0, or causal rows before the first key) visits block 0 with every key masked, and
      // stores O = 0 and LSE = +inf as a tile with no block would.
      tile.n_blocks = n_blocks > 1 ? n_blocks : 1;
    }
    return tile;
  }

  // ---- TMA loads --------------------------------------------------------------------------------
  // One elected lane issues the load of one tile; its bytes complete the stage's full barrier. Rows
  // past the tensor's end are filled with zeros by TMA (and still counted); rows past a sequence's
  // end inside the tensor (variable lengths) are loaded but never used: their keys are masked and
  // their query rows not stored.

  template <class Ring>
  static WL_DEVICE void load_q(Ring& ring, ts::Produce const& stage, TileInfo tile) {
    using namespace cute;
    if (!warploom::sm90::elect_one()) return;
    Params const& p = *ring.p;
    Tensor mQ = p.tma_q.get_tma_tensor(p.shape_q);  // (S_q, D, H, B)
    Tensor mQh = domain_offset(make_coord(tile.q_offset, _0{}),
                               mQ(_, _, tile.head, p.cu_seqlens_q ? 0 : tile.batch));  // (S_q, D)
    Tensor gQ = local_tile(mQh, typename Cfg::TileQ{}, make_coord(_, _0{}));  // (BLK_M, D, m)
    Tensor sQ = make_tensor(make_smem_ptr(ring.q.get()),
                            typename Cfg::SmemLayoutQ{});  // (BLK_M, D, STAGE_Q)
    auto [tQgQ, tQsQ] =
        tma_partition(p.tma_q, _0{}, Layout<_1>{}, group_modes<0, 2>(sQ), group_modes<0, 2>(gQ));
    copy(p.tma_q.with(*stage.barrier), tQgQ(_, tile.m_block), tQsQ(_, stage.stage_idx));
  }

  // K or V block n_block_of(tile, j) of the tile's K/V head.
  template <class Ring, class Tma, class Buffer>
  static WL_DEVICE void load_kv(Ring& ring, Tma const& tma, Buffer const& buffer,
                                ts::Produce const& stage, TileInfo tile, int ahead) {
    using namespace cute;
    if (!warploom::sm90::elect_one()) return;
    Params const& p = *ring.p;
    Tensor mK = tma.get_tma_tensor(p.shape_kv);  // (S_k, D, H_kv, B)
    Tensor mKh = domain_offset(make_coord(tile.k_offset, _0{}),
                               mK(_, _, tile.head / p.kv_group,
                                  p.cu_seqlens_k ? 0 : tile.batch));           // (S_k, D)
    Tensor gK = local_tile(mKh, typename Cfg::TileKV{}, make_coord(_, _0{}));  // (BLK_N, D, n)
    Tensor sK =
        make_tensor(make_smem_ptr(buffer.get()), typename Cfg::SmemLayoutK{});  // (BLK_N, D, STAGE)
    auto [tKgK, tKsK] =
        tma_partition(tma, _0{}, Layout<_1>{}, group_modes<0, 2>(sK), group_modes<0, 2>(gK));
    copy(tma.with(*stage.barrier), tKgK(_, n_block_of(tile, stage.loop_offset + ahead)),
         tKsK(_, stage.stage_idx));
  }
  template <class Ring>
  // `ahead`: 0 for the loop iteration's own block, 1 for the next (the overlap schedules).
  static WL_DEVICE void load_k(Ring& ring, ts::Produce const& stage, TileInfo tile, int ahead) {
    load_kv(ring, ring.p->tma_k, ring.k, stage, tile, ahead);
  }
  template <class Ring>
  static WL_DEVICE void load_v(Ring& ring, ts::Produce const& stage, TileInfo tile) {
    load_kv(ring, ring.p->tma_v, ring.v, stage, tile, 0);
  }

  // ---- The two GEMMs ----------------------------------------------------------------------------

  // Issues (without waiting) S = Q . K^T of one block: K from this stage, Q from stage q_stage.
  template <class Ring>
  static WL_DEVICE void qk(Ring const& ring, ts::Consume const& stage, Scores& s, int q_stage) {
    using namespace cute;
    typename Cfg::TiledMmaQK mma;
    auto thr = mma.get_thread_slice(threadIdx.x % Cfg::kMmaThreads);
    Tensor sQ = make_tensor(make_smem_ptr(ring.q_tiles->q.get()),
                            typename Cfg::SmemLayoutQ{});  // (BLK_M, D, STAGE_Q)
    Tensor sK =
        make_tensor(make_smem_ptr(ring.k.get()), typename Cfg::SmemLayoutK{});  // (BLK_N, D, STAGE)
    Tensor tSrQ = thr.make_fragment_A(thr.partition_A(sQ));  // (MMA, MMA_M, MMA_K, STAGE_Q)
    Tensor tSrK = thr.make_fragment_B(thr.partition_B(sK));  // (MMA, MMA_N, MMA_K, STAGE)
    Tensor tSrS = s.tensor();                                // (MMA, MMA_M, MMA_N)
    mma.accumulate_ = GMMA::ScaleOut::Zero;
    warpgroup_fence_operand(tSrS);
    warpgroup_arrive();
    CUTE_UNROLL
    for (int kb = 0; kb < size<2>(tSrQ); ++kb) {
      cute::gemm(mma, tSrQ(_, _, kb, q_stage), tSrK(_, _, kb, stage.stage_idx), tSrS);
      mma.accumulate_ = GMMA::ScaleOut::One;
    }
    warpgroup_commit_batch();
    warpgroup_fence_operand(tSrS);
  }

  // Issues (without waiting) O += P . V of the block, P from registers.
  template <class Ring>
  static WL_DEVICE void pv(Ring const& ring, ts::Consume const& stage, PTile const& p_tile,
                           OutputState& o) {
    using namespace cute;
    typename Cfg::TiledMmaPV mma;
    auto thr = mma.get_thread_slice(threadIdx.x % Cfg::kMmaThreads);
    Tensor sVt = make_tensor(make_smem_ptr(ring.v.get()),
                             typename Cfg::SmemLayoutVt{});   // (D, BLK_N, STAGE)
    Tensor tOrV = thr.make_fragment_B(thr.partition_B(sVt));  // (MMA, MMA_N, MMA_K, STAGE)
    Tensor tOrP = p_tile.tensor();  // ((2,2,2), 1, BLK_N/16): read only (finish_softmax fenced it)
    Tensor tOrO = o.tensor();       // (MMA, MMA_M, MMA_N)
    mma.accumulate_ = GMMA::ScaleOut::One;
    warpgroup_fence_operand(tOrO);
    warpgroup_arrive();
    CUTE_UNROLL
    for (int kb = 0; kb < size<2>(tOrP); ++kb) {
      cute::gemm(mma, tOrP(_, _, kb), tOrV(_, _, kb, stage.stage_idx), tOrO);
    }
    warpgroup_commit_batch();
    warpgroup_fence_operand(tOrO);
  }

  // ---- Softmax and output -----------------------------------------------------------------------

  // The maximum over the quad of threads that share a row (its 4 lanes hold all of its columns).
  static WL_DEVICE float quad_max(float x) {
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
    return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
  }
  static WL_DEVICE float quad_sum(float x) {
    x += __shfl_xor_sync(0xffffffffu, x, 1);
    return x + __shfl_xor_sync(0xffffffffu, x, 2);
  }

  // Block j of the tile: sets to -inf the scores of keys past the sequence's end and (causal) past
  // each row's diagonal, then per row: new maximum m', P = exp2(scale_log2 * s - scale_log2 * m')
  // in place of S, the sum scaled by exp2(scale_log2 * (m - m')) and that factor kept for O
  // (finish_softmax applies it: O may still be accumulating the previous block). A row that has
  // seen only masked keys keeps m = -inf and uses 0 in its place, so its P and its correction are
  // 0, never NaN.
  template <class Out>
  static WL_DEVICE void online_softmax(Out const& out, ts::Produce const& stage, Scores& s,
                                       OutputState& o, TileInfo tile) {
    using namespace cute;
    Params const& p = *out.p;
    Tensor tSrS = s.tensor();  // ((2, 2, BLK_N/8), 1, 1)
    int const first_row = tile.m_block * kBlockM;
    int const first_key = n_block_of(tile, stage.loop_offset) * kBlockN;
    // The last key row `first_row` may see: the block needs a mask if a key of it lies past that.
    int const first_row_limit =
        kCausal ? min(tile.seqlen_k, first_row + 1 + tile.seqlen_k - tile.seqlen_q) : tile.seqlen_k;
    if (first_key + kBlockN > first_row_limit) {
      typename Cfg::TiledMmaQK mma;
      Tensor tScS = mma.get_thread_slice(threadIdx.x % Cfg::kMmaThreads)
                        .partition_C(make_identity_tensor(
                            make_shape(Int<kBlockM>{}, Int<kBlockN>{})));  // (row, column) of tSrS
      CUTE_UNROLL
      for (int e = 0; e < size(tSrS); ++e) {
        int const row = first_row + get<0>(tScS(e));
        int const key = first_key + get<1>(tScS(e));
        int const limit =
            kCausal ? min(tile.seqlen_k, row + 1 + tile.seqlen_k - tile.seqlen_q) : tile.seqlen_k;
        if (key >= limit) tSrS(e) = -INFINITY;
      }
    }
    float const scale_log2 = p.scale_log2;
    CUTE_UNROLL
    for (int i = 0; i < 2; ++i) {
      float m = o.row_max[i];
      CUTE_UNROLL
      for (int v = 0; v < kBlockN / 8; ++v) {
        m = fmaxf(m, fmaxf(tSrS(make_coord(make_coord(0, i, v), 0, 0)),
                           tSrS(make_coord(make_coord(1, i, v), 0, 0))));
      }
      m = quad_max(m);
      float const m_scaled = m == -INFINITY ? 0.0f : m * scale_log2;
      float const correction = exp2_approx(o.row_max[i] * scale_log2 - m_scaled);
      o.row_max[i] = m;
      float sum = 0.0f;
      CUTE_UNROLL
      for (int v = 0; v < kBlockN / 8; ++v) {
        CUTE_UNROLL
        for (int j = 0; j < 2; ++j) {
          float& x = tSrS(make_coord(make_coord(j, i, v), 0, 0));
          x = exp2_approx(fmaf(x, scale_log2, -m_scaled));
          sum += x;
        }
      }
      o.row_sum[i] = o.row_sum[i] * correction + sum;
      o.correction[i] = correction;
    }
  }

  // The end of a block's softmax, once no wgmma is in flight: O *= the block's correction (O scaled
  // to the new row maxima before P . V adds to it) and P = S in the element type (the same index in
  // both fragments: config.cuh, PLayout). Not in `pv`, between the overlapped schedule's S and
  // P . V issue (FA3's RescaleOBeforeGemm): there ptxas injects a wait for the S wgmma before the
  // FMULs on O (C7517).
  template <class Out>
  static WL_DEVICE void finish_softmax(Out const&, ts::Produce const&, Scores const& s, PTile& p,
                                       OutputState& o) {
    using namespace cute;
    Tensor tOrO = o.tensor();  // ((2, 2, D/8), 1, 1)
    CUTE_UNROLL
    for (int i = 0; i < 2; ++i) {
      CUTE_UNROLL
      for (int v = 0; v < kHeadDim / 8; ++v) {
        CUTE_UNROLL
        for (int j = 0; j < 2; ++j) tOrO(make_coord(make_coord(j, i, v), 0, 0)) *= o.correction[i];
      }
    }
    CUTE_UNROLL
    for (int i = 0; i < Cfg::kAccS / 2; ++i) p.v[i] = pack(s.v[2 * i], s.v[2 * i + 1]);
    // Pin the FMULs and conversions here, before the wgmma the schedule issues next (the fences
    // are volatile asm with the registers as in-out operands: nothing computing them moves past).
    warpgroup_fence_operand(tOrO);
    CUTE_UNROLL
    for (int i = 0; i < Cfg::kAccS / 2; ++i) warpgroup_fence_operand(p.v[i]);
  }

  // A 4-byte global store under a predicate, not a branch (store's comment says why).
  static WL_DEVICE void store_if(bool predicate, void* address, std::uint32_t bits) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %0, 0;\n @p st.global.b32 [%1], %2;\n}\n" ::"r"(
            static_cast<int>(predicate)),
        "l"(address), "r"(bits)
        : "memory");
  }

  // Two floats rounded to the element type, packed as wgmma's A registers hold them (the first in
  // the low half).
  static WL_DEVICE std::uint32_t pack(float lo, float hi) {
    // (memcpy: the CUDA pair types are not trivially copyable, so bit_cast refuses them; the copy
    // of 4 bytes between registers compiles to nothing.)
    std::uint32_t bits;
    if constexpr (std::is_same_v<Element, cute::bfloat16_t>) {
      __nv_bfloat162 const pair = __floats2bfloat162_rn(lo, hi);
      memcpy(&bits, &pair, sizeof bits);
    } else {
      __half2 const pair = __floats2half2_rn(lo, hi);
      memcpy(&bits, &pair, sizeof bits);
    }
    return bits;
  }

  // O / row sum in the element type and LSE = scale * max + log(row sum), into registers of
  // their own (OutputTile). A row that saw no key (causal with S_k < S_q) gets O = 0 and
  // LSE = +inf, as in FlashAttention.
  template <class Out>
  static WL_DEVICE void normalize(Out const& out, ts::Produce const&, OutputState const& o,
                                  OutputTile& t) {
    CUTE_UNROLL
    for (int i = 0; i < 2; ++i) normalize_row(*out.p, o, t, i);
  }

  // The tile's rows inside the sequence, straight from registers (each thread two columns at a
  // time; the quad's first lane writes the LSE). Without a branch (predicated stores): the
  // overlap schedules store while the next tile's first S is in flight, and a branch there makes
  // ptxas wait for it (C7518).
  template <class Out>
  static WL_DEVICE void store(Out const& out, ts::Produce const&, OutputTile const& t,
                              TileInfo tile) {
    CUTE_UNROLL
    for (int i = 0; i < 2; ++i) store_row(*out.p, t, tile, i);
  }

  // normalize and store at once, a row at a time: the packed row is stored before the next is
  // packed, so at most half a tile's packed registers live beside the accumulator (at D = 256,
  // 32 words in place of 64 beside a 128-word accumulator).
  template <class Out>
  static WL_DEVICE void write(Out const& out, ts::Produce const&, OutputState const& o,
                              TileInfo tile) {
    OutputTile t;
    CUTE_UNROLL
    for (int i = 0; i < 2; ++i) {
      normalize_row(*out.p, o, t, i);
      store_row(*out.p, t, tile, i);
    }
  }

  // Row i (of this thread's 2) of normalize.
  static WL_DEVICE void normalize_row(Params const& p, OutputState const& o, OutputTile& t, int i) {
    using namespace cute;
    Tensor tOrO = make_tensor(make_rmem_ptr(o.o), typename Cfg::AccLayoutO{});  // ((2,2,D/8),1,1)
    float const sum = quad_sum(o.row_sum[i]);
    bool const empty = sum == 0.0f;  // no key seen; a NaN from the inputs stays NaN
    float const inverse = empty ? 0.0f : 1.0f / sum;
    CUTE_UNROLL
    for (int v = 0; v < kHeadDim / 8; ++v) {
      t.pair(i, v) = pack(tOrO(make_coord(make_coord(0, i, v), 0, 0)) * inverse,
                          tOrO(make_coord(make_coord(1, i, v), 0, 0)) * inverse);
    }
    t.lse[i] = empty ? INFINITY : o.row_max[i] * p.scale + logf(sum);
  }

  // Row i (of this thread's 2) of store.
  static WL_DEVICE void store_row(Params const& p, OutputTile const& t, TileInfo tile, int i) {
    using namespace cute;
    typename Cfg::TiledMmaPV mma;
    Tensor tOcO = mma.get_thread_slice(threadIdx.x % Cfg::kMmaThreads)
                      .partition_C(make_identity_tensor(
                          make_shape(Int<kBlockM>{}, Int<kHeadDim>{})));  // (row, column) of O
    int const batch = p.cu_seqlens_q ? 0 : tile.batch;
    int const row = tile.m_block * kBlockM + get<0>(tOcO(make_coord(make_coord(0, i, 0), 0, 0)));
    bool const inside = row < tile.seqlen_q;
    std::int64_t const q = tile.q_offset + row;
    Element* o_row =
        p.o + batch * p.o_batch_stride + q * p.o_row_stride + tile.head * p.o_head_stride;
    CUTE_UNROLL
    for (int v = 0; v < kHeadDim / 8; ++v) {
      int const column = get<1>(tOcO(make_coord(make_coord(0, i, v), 0, 0)));
      store_if(inside, o_row + column, t.pair(i, v));
    }
    store_if(inside && threadIdx.x % 4 == 0,
             p.lse + batch * p.lse_batch_stride + tile.head * p.lse_head_stride + q,
             __float_as_uint(t.lse[i]));
  }
};

}  // namespace warploom::attention::sm90
