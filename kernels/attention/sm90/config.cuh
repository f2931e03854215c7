// kernels/attention/sm90/config.cuh
//
// One typed sm90 attention configuration: a schedule's shape (shape.hpp) with the element type and
// the mask — the CuTe side of the kernel: shared-memory layouts, TMA atoms, the two wgmma tilings,
// the register fragments and the kernel parameters.
#pragma once

#include <cmath>  // INFINITY
#include <cstdint>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_atom.hpp>

#include "attention/sm90/shape.hpp"
#include "warploom/config.hpp"

namespace warploom::attention::sm90 {

using cute::_1;
using cute::Int;

// Shape S on element type T (cute::half_t or cute::bfloat16_t), causal or not.
template <class T, class S, bool kCausal_>
struct AttentionConfig {
  using Shape = S;
  using Element = T;
  static constexpr bool kCausal = kCausal_;
  static constexpr int kBlockM = S::kBlockM;
  static constexpr int kBlockN = S::kBlockN;
  static constexpr int kHeadDim = S::kHeadDim;
  static constexpr int kStages = S::kStages;
  static constexpr int kStagesQ = S::kStagesQ;
  static constexpr int kMmaThreads = 128 * S::kConsumerWarpgroups;  // 64 query rows each
  static_assert(sizeof(T) == S::kElementBytes);

  using BlockM = Int<kBlockM>;
  using BlockN = Int<kBlockN>;
  using HeadDim = Int<kHeadDim>;

  // Q, K and V tiles as TMA writes them: rows of D elements, K-major, 128-byte swizzled
  // ((rows, D, STAGE), D in 64-element swizzle atoms).
  using SmemAtom = cute::GMMA::Layout_K_SW128_Atom<T>;
  using SmemLayoutQ = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(BlockM{}, HeadDim{}, Int<kStagesQ>{})));  // (BLK_M, D, STAGE_Q)
  using SmemLayoutK = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::make_shape(BlockN{}, HeadDim{}, Int<kStages>{})));  // (BLK_N, D, STAGE)
  using SmemLayoutV = SmemLayoutK;
  // V as the B operand of O = P . V: (D, BLK_N, STAGE), the same bytes read D-major ("MN-major":
  // consecutive elements along wgmma's N), which wgmma reads for 16-bit types.
  using SmemLayoutVt = decltype(cute::composition(
      SmemLayoutV{},
      cute::make_ordered_layout(cute::make_shape(HeadDim{}, BlockN{}, Int<kStages>{}),
                                cute::Step<cute::_2, _1, cute::_3>{})));
  static_assert(cute::cosize_v<SmemLayoutQ> * sizeof(T) == kStagesQ * S::kBytesQ);
  static_assert(cute::cosize_v<SmemLayoutK> * sizeof(T) == kStages * S::kBytesKV);

  // S = Q . K^T: both operands from shared memory; O += P . V: P from registers. Each consumer
  // warpgroup issues m64 atoms over its 64 rows of the tile.
  using Warpgroups = cute::Layout<cute::Shape<Int<S::kConsumerWarpgroups>, _1, _1>>;
  using TiledMmaQK = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<T, T, float, cute::Shape<cute::_64, BlockN, HeadDim>>(),
      Warpgroups{}));
  using TiledMmaPV = decltype(cute::make_tiled_mma(
      cute::GMMA::rs_op_selector<T, T, float, cute::Shape<cute::_64, HeadDim, BlockN>,
                                 cute::GMMA::Major::K, cute::GMMA::Major::MN>(),
      Warpgroups{}));
  static_assert(cute::size(TiledMmaQK{}) == kMmaThreads && cute::size(TiledMmaPV{}) == kMmaThreads);

  // The accumulators of one thread: wgmma's m64nN D fragment, ((2 columns, 2 rows, N/8 column
  // groups), 1, 1) floats, element (j, i, v) at index j + 2i + 4v. The softmax walks it by rows
  // (i) and the P fragment reuses its order (see PLayout).
  using AccLayoutS =
      decltype(cute::partition_fragment_C(TiledMmaQK{}, cute::make_shape(BlockM{}, BlockN{}))
                   .layout());
  using AccLayoutO =
      decltype(cute::partition_fragment_C(TiledMmaPV{}, cute::make_shape(BlockM{}, HeadDim{}))
                   .layout());
  template <class L, int kColumns>
  static constexpr bool is_wgmma_d_fragment() {
    using cute::size;
    return cute::rank(L{}) == 3 && size<1>(L{}) == 1 && size<2>(L{}) == 1 && size<0, 0>(L{}) == 2 &&
           size<0, 1>(L{}) == 2 && size<0, 2>(L{}) == kColumns / 8 &&
           L{}(cute::make_coord(cute::make_coord(1, 0, 0), 0, 0)) == 1 &&
           L{}(cute::make_coord(cute::make_coord(0, 1, 0), 0, 0)) == 2 &&
           L{}(cute::make_coord(cute::make_coord(0, 0, 1), 0, 0)) == 4;
  }
  static_assert(is_wgmma_d_fragment<AccLayoutS, kBlockN>());
  static_assert(is_wgmma_d_fragment<AccLayoutO, kHeadDim>());
  static constexpr int kAccS = cute::cosize_v<AccLayoutS>;  // kBlockN / 2
  static constexpr int kAccO = cute::cosize_v<AccLayoutO>;  // kHeadDim / 2

  // P as the A operand of O += P . V, k16 blocks of the wgmma A fragment ((2, 2, 2), 1, N/16):
  // element (j, i, k) of block kb is column j + 8k + 16kb of row i. That is S's element
  // (j, i, 2kb + k): the same index in both fragments (wgmma's A and D register layouts agree, as
  // mma.sync's do), so P is S converted element by element, no shuffle.
  using PLayout =
      cute::Layout<cute::Shape<cute::Shape<cute::_2, cute::_2, cute::_2>, _1, Int<kBlockN / 16>>>;
  static_assert(cute::size(PLayout{}) == kAccS);

  struct Scores {
    float v[kAccS];
    WL_DEVICE auto tensor() { return cute::make_tensor(cute::make_rmem_ptr(v), AccLayoutS{}); }
    WL_DEVICE auto tensor() const {
      return cute::make_tensor(cute::make_rmem_ptr(v), AccLayoutS{});
    }
  };

  // P in the element type, the A operand of O += P . V (a register fragment of its own: with the
  // GEMMs overlapped, the next block's S is computed while P . V still reads this one).
  // Held as packed pairs, the 32-bit registers wgmma reads: a 16-bit array would be packed into
  // them right before the wgmma, inside the overlapped schedule's open wgmma batch, and ptxas
  // serializes every wgmma for a non-wgmma instruction defining a wgmma input there (C7513).
  struct PTile {
    std::uint32_t v[kAccS / 2];
    WL_DEVICE auto tensor() const {
      return cute::make_tensor(
          cute::make_rmem_ptr(reinterpret_cast<Element*>(const_cast<std::uint32_t*>(v))),
          PLayout{});
    }
  };

  // O's accumulator and the online softmax's statistics of this thread's two rows (i = 0, 1):
  // the running maximum of the raw scores, this thread's part of the running sum of
  // exp(scale * (s - max)) (the quad's four parts are added at the end), and the factor O is still
  // to be scaled by for the last change of the maximum (applied once O's wgmma retired).
  struct OutputState {
    float o[kAccO] = {};
    float row_max[2] = {-INFINITY, -INFINITY};
    float row_sum[2] = {0.0f, 0.0f};
    float correction[2] = {1.0f, 1.0f};
    WL_DEVICE auto tensor() { return cute::make_tensor(cute::make_rmem_ptr(o), AccLayoutO{}); }
  };

  // A tile's output as it is stored: O / row sum in the element type, packed two to a register
  // in O's fragment order, and the LSE of this thread's two rows. Registers of their own, not
  // the wgmma accumulator's, so the store can run while the next tile's first S is in flight.
  struct OutputTile {
    std::uint32_t o[kAccO / 2];
    float lse[2];
    // The packed columns of pair v (of D / 8) of this thread's row i (of 2): the one place the
    // packing order is written (normalize fills it, store reads it).
    WL_DEVICE std::uint32_t& pair(int i, int v) { return o[i * (kHeadDim / 8) + v]; }
    WL_DEVICE std::uint32_t pair(int i, int v) const { return o[i * (kHeadDim / 8) + v]; }
  };

  // Global tensors as TMA sees them: (rows, D, heads, batch), D contiguous.
  using GmemStride = cute::Stride<std::int64_t, _1, std::int64_t, std::int64_t>;
  using GmemShape = cute::Shape<int, HeadDim, int, int>;
  template <class Smem, class Tile>
  static auto make_tma_load(T const* ptr, GmemShape shape, GmemStride stride) {
    return cute::make_tma_copy(cute::SM90_TMA_LOAD{},
                               cute::make_tensor(cute::make_gmem_ptr(ptr), shape, stride),
                               Smem{}(cute::_, cute::_, 0), Tile{}, _1{});
  }
  using TileQ = cute::Shape<BlockM, HeadDim>;
  using TileKV = cute::Shape<BlockN, HeadDim>;
  using TmaQ = decltype(make_tma_load<SmemLayoutQ, TileQ>(nullptr, {}, {}));
  using TmaKV = decltype(make_tma_load<SmemLayoutK, TileKV>(nullptr, {}, {}));

  // Everything the kernel gets from the host (a __grid_constant__ parameter: the TMA descriptors
  // must live in parameter, constant or global memory).
  struct Params {
    TmaQ tma_q;
    TmaKV tma_k;
    TmaKV tma_v;
    GmemShape shape_q;  // the descriptors' extents, to rebuild their coordinate tensors
    GmemShape shape_kv;
    T* o;
    float* lse;
    std::int64_t o_batch_stride, o_row_stride, o_head_stride;  // elements
    std::int64_t lse_batch_stride, lse_head_stride;            // elements; rows are contiguous
    int batch, heads, kv_group;  // kv_group = heads / kv_heads query heads per K/V head
    int seqlen_q, seqlen_k;      // fixed lengths (no cu_seqlens)
    // Variable lengths: sequence b is rows cu_seqlens[b] .. cu_seqlens[b + 1] - 1 of Q (O, LSE)
    // and of K and V, read on the device per tile; null: every sequence has the fixed length.
    int const* cu_seqlens_q;
    int const* cu_seqlens_k;
    int m_blocks;   // query tiles per (sequence, head): ceil(max S_q / kBlockM)
    int num_tiles;  // m_blocks * heads * batch
    // Tiles handed out so far, across the grid (the scheduler warps' counter): zeroed on the
    // stream before each launch, in a workspace of the launch's own.
    int* tile_counter;
    // The tile order's section: this many (sequence, head) pairs, whose K and V fit the L2 cache
    // together, are walked before the next ones (tile.hpp, tile_slot).
    int heads_per_section;
    float scale;       // softmax scale
    float scale_log2;  // scale * log2(e): exp(scale * x) = exp2(scale_log2 * x)
  };
};

}  // namespace warploom::attention::sm90
