// kernels/gemm/sm90_ts_gemm.cuh
//
// The Hopper GEMM in TS: D = alpha * scale_a * scale_b * (A . B) + beta * C, fp32 accumulation,
// persistent CTAs. (scale_a and scale_b: fp8 per-tensor scales, device values, null = 1.)
//
//      Tiles ──tile──▶ LoadTask ──▶ SmemAB (TMA -> wgmma, STAGES) ──▶ MmaTask ──acc──▶ GmemD
//   (raster order)   warp 8: acquire,            A and B tiles          warps 0-7: wait, wgmma,
//                    TMA A+B, commit                                    release the stage
//                                                                       before, store the tile
//
// Every CTA walks output tiles blockIdx.x, blockIdx.x + gridDim.x, ... in the raster order of
// `TileRaster`. For each tile the load task streams the K tiles of A and B into the stages; the
// MMA task (two consumer warpgroups, each 64 rows of the 128-row tile) issues wgmma on a stage,
// keeps one wgmma batch in flight (`wgmma_wait<1>`) and releases the stage the previous batch read
// (the lagged release the verifier checks under R-D13). The accumulator is a task-local variable
// that the mma work updates in place; after the last K tile the MMA warps store it (alpha, beta,
// predicated on M and N) while the load task already fills the stages for their next tile.
//
// Warps: MMA on warps 0-7 with 232 registers, load on warp 8 with 40, padding on warps 9-11 (the
// load warpgroup's setmaxnreg budget): 2 x 128 x 232 + 128 x 40 = 64512 <= 65536 registers.
//
// Clusters (kClusterM x kClusterN CTAs, launched as one cluster of kClusterM * kClusterN along x):
// the CTAs of a cluster compute neighbouring tiles — kClusterM tile rows sharing one B tile,
// kClusterN tile columns sharing one A tile — so each loads only its share of the shared operand
// and TMA multicasts it into every CTA that needs it, cutting L2 traffic. A stage is then written
// by several CTAs, so SmemAB is a multicast pipeline: every release reaches the stage's empty
// barrier in each CTA of the cluster. Both CTAs walk the same number of cluster tiles (a cluster
// tile partly outside the matrix is still computed, its loads zero-filled and its stores
// clipped), which keeps their pipelines in step (docs/verification/rules.md, R-D22).
#pragma once

#include <cstdint>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_atom.hpp>

#include "tile_raster.hpp"
#include "warploom/arch/sm90/cluster.hpp"
#include "warploom/arch/sm90/tma.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::gemm::sm90 {

namespace ts = warploom::ts;
using cute::_1;
using cute::Int;

// Operand layouts, as CuTe sees them: A is (M, K, L), B is (N, K, L); "K-major" means stride 1
// along K.
template <bool kKMajor>
using OperandStride = std::conditional_t<kKMajor, cute::Stride<std::int64_t, _1, std::int64_t>,
                                         cute::Stride<_1, std::int64_t, std::int64_t>>;

template <class T, bool kKMajor>
using SmemAtom = std::conditional_t<kKMajor, cute::GMMA::Layout_K_SW128_Atom<T>,
                                    cute::GMMA::Layout_MN_SW128_Atom<T>>;

// (BLK_MN, BLK_K, STAGES), each stage a contiguous, 128-byte-swizzled tile.
template <class T, bool kKMajor, int kMN, int kK, int kStages>
using SmemLayout = decltype(cute::tile_to_shape(
    SmemAtom<T, kKMajor>{}, cute::make_shape(Int<kMN>{}, Int<kK>{}, Int<kStages>{}),
    std::conditional_t<kKMajor, cute::Step<_1, cute::_2, cute::_3>,
                       cute::Step<cute::_2, _1, cute::_3>>{}));

// The K tile is one 128-byte row of the 128B swizzle: 64 16-bit or 128 fp8 elements, so a stage is
// 48 KiB for every input type.
template <class TA_, class TB_, class TD_, bool kAKMajor_, bool kBKMajor_, int kClusterM_ = 1,
          int kClusterN_ = 1, int kTileM_ = 128, int kTileN_ = 256,
          int kTileK_ = 128 / static_cast<int>(sizeof(TA_)), int kStages_ = 4>
struct TsGemm {
  using TA = TA_;
  using TB = TB_;
  using TD = TD_;
  static constexpr bool kAKMajor = kAKMajor_;
  static constexpr bool kBKMajor = kBKMajor_;
  static constexpr int kTileM = kTileM_;
  static constexpr int kTileN = kTileN_;
  static constexpr int kTileK = kTileK_;
  static constexpr int kStages = kStages_;
  static constexpr int kClusterM = kClusterM_;  // CTAs sharing (multicasting) one B tile
  static constexpr int kClusterN = kClusterN_;  // CTAs sharing (multicasting) one A tile
  static constexpr int kClusterSize = kClusterM * kClusterN;
  static constexpr int kMmaThreads = 256;  // two consumer warpgroups

  using TileShape = cute::Shape<Int<kTileM>, Int<kTileN>, Int<kTileK>>;
  using TiledMma =
      decltype(cute::make_tiled_mma(cute::GMMA::ss_op_selector < TA, TB, float, TileShape,
                                    kAKMajor ? cute::GMMA::Major::K : cute::GMMA::Major::MN,
                                    kBKMajor ? cute::GMMA::Major::K : cute::GMMA::Major::MN > (),
                                    cute::Layout<cute::Shape<cute::_2, _1, _1>>{}));
  static_assert(cute::size(TiledMma{}) == kMmaThreads);
  static_assert(!kAKMajor || kTileK * sizeof(TA) % 128 == 0,
                "a K-major A tile spans whole 128-byte rows of its 128B swizzle atom along K");
  static_assert(!kBKMajor || kTileK * sizeof(TB) % 128 == 0,
                "a K-major B tile spans whole 128-byte rows of its 128B swizzle atom along K");

  using SmemLayoutA = SmemLayout<TA, kAKMajor, kTileM, kTileK, kStages>;
  using SmemLayoutB = SmemLayout<TB, kBKMajor, kTileN, kTileK, kStages>;
  static constexpr int kStageBytes =
      (kTileM * static_cast<int>(sizeof(TA)) + kTileN * static_cast<int>(sizeof(TB))) * kTileK;

  // Epilogue subtiles: kTileM x kEpiN, one 128-byte swizzle row of D per tile row.
  static constexpr int kEpiN = 128 / static_cast<int>(sizeof(TD));
  static constexpr int kEpiTiles = kTileN / kEpiN;
  static constexpr int kEpilogueBarrier = 1;  // named barrier of the MMA warps
  using SmemLayoutEpi = decltype(cute::tile_to_shape(
      cute::GMMA::Layout_K_SW128_Atom<TD>{}, cute::make_shape(Int<kTileM>{}, Int<kEpiN>{})));

  using StrideA = OperandStride<kAKMajor>;
  using StrideB = OperandStride<kBKMajor>;
  using StrideD = cute::Stride<std::int64_t, _1, std::int64_t>;  // row-major C and D

  // The TMA load of one operand's (kRows x kTileK) tiles from `gmem` ((rows, K, L)); with
  // kMulticast > 1 each of that many CTAs loads 1/kMulticast of the tile and multicasts it.
  template <int kRows, int kMulticast, class Smem, class GmemTensor>
  static auto make_tma_load(GmemTensor const& gmem) {
    using Op =
        std::conditional_t<kMulticast == 1, cute::SM90_TMA_LOAD, cute::SM90_TMA_LOAD_MULTICAST>;
    return cute::make_tma_copy(Op{}, gmem, Smem{}(cute::_, cute::_, 0),
                               cute::make_shape(Int<kRows>{}, Int<kTileK>{}), Int<kMulticast>{});
  }
  template <class T, class Stride>
  static auto null_operand() {
    return cute::make_tensor(static_cast<T const*>(nullptr), cute::repeat_like(Stride{}, 0),
                             Stride{});
  }
  using TmaA = decltype(make_tma_load<kTileM, kClusterN, SmemLayoutA>(null_operand<TA, StrideA>()));
  using TmaB = decltype(make_tma_load<kTileN, kClusterM, SmemLayoutB>(null_operand<TB, StrideB>()));

  // The accumulator fragment of one MMA thread: (MMA, MMA_M, MMA_N) floats, kept in registers.
  using AccLayout = decltype(cute::partition_fragment_C(
                                 TiledMma{}, cute::make_shape(Int<kTileM>{}, Int<kTileN>{}))
                                 .layout());
  // GmemD::store reads it as the wgmma D fragment of one m64nN atom per warpgroup:
  // ((2 columns, 2 rows, N/8 column groups), 1, 1).
  static_assert(cute::rank(AccLayout{}) == 3 && cute::size<1>(AccLayout{}) == 1 &&
                cute::size<2>(AccLayout{}) == 1 && cute::size<0, 0>(AccLayout{}) == 2 &&
                cute::size<0, 1>(AccLayout{}) == 2 && cute::size<0, 2>(AccLayout{}) == kTileN / 8);
  struct Accumulator {
    float v[cute::cosize_v<AccLayout>];
    WL_DEVICE auto tensor() { return cute::make_tensor(cute::make_rmem_ptr(v), AccLayout{}); }
  };

  // Everything the kernel gets from the host (a __grid_constant__ parameter: the TMA descriptors
  // must live in parameter, constant or global memory).
  struct Params {
    TmaA tma_a;
    TmaB tma_b;
    CUtensorMap tma_d;  // D as (N, M, L), boxes of kEpiN x kTileM, 128B swizzle
    int m, n, k, batch;
    TD* d;
    TD const* c;
    StrideD stride_c;
    StrideD stride_d;
    float alpha, beta;
    float const* scale_a;  // fp8 per-tensor scales: device values, null = 1
    float const* scale_b;
    TileRaster raster;
    int num_tiles;
    int k_tiles;
  };

  // ---- Resources -------------------------------------------------------------------------------
  // Which output tile comes next. The persistent loop walks cluster tiles (kClusterM x kClusterN
  // output tiles) first, first + stride, ... in raster order; this CTA takes its own tile of each.
  struct Tiles {
    static constexpr ts::ResourceSpec spec{.name = "tiles"};
    Params const* p = nullptr;
    int first = 0;      // this CTA's cluster index
    int stride = 1;     // clusters in the grid
    int num_tiles = 0;  // cluster tiles in the problem
    int k_tiles = 0;
    WL_DEVICE TileCoord next(ts::Consume const& s) const {
      TileCoord const c = p->raster.coord(s.loop_offset);
      if constexpr (kClusterSize == 1) {
        return c;
      } else {
        int const rank = static_cast<int>(warploom::sm90::cluster_cta_rank());
        return {c.m * kClusterM + rank % kClusterM, c.n * kClusterN + rank / kClusterM, c.l};
      }
    }
  };

  // The A and B tiles of each K step, filled by TMA and read by wgmma straight from shared memory.
  struct SmemAB {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_ab",
        .pipeline = ts::tma_wgmma(kStages, kStageBytes, ts::threads(1), ts::warps(8))
                        .with_advance_on_wait()
                        .with_multicast(kClusterSize)};
    Params const* p = nullptr;
    ts::SmemBuffer<TA, cute::cosize_v<SmemLayoutA>, 1024> a;  // (BLK_M, BLK_K, STAGES)
    ts::SmemBuffer<TB, cute::cosize_v<SmemLayoutB>, 1024> b;  // (BLK_N, BLK_K, STAGES)
    using smem_buffers = ts::buffers<&SmemAB::a, &SmemAB::b>;

    // One elected lane issues both TMA loads of K tile `stage.loop_offset` of `tile`; their bytes
    // complete the stage's full barrier. In a cluster it loads its share of a multicast operand
    // into every CTA of its cluster row (B) or column (A), whose barriers count those bytes too.
    WL_DEVICE void tma_load(ts::Produce const& stage, TileCoord tile) {
      using namespace cute;
      if (!warploom::sm90::elect_one()) return;
      int const rank = kClusterSize == 1 ? 0 : static_cast<int>(warploom::sm90::cluster_cta_rank());
      int const rank_m = rank % kClusterM, rank_n = rank / kClusterM;
      Tensor sA = make_tensor(make_smem_ptr(a.get()), SmemLayoutA{});
      Tensor sB = make_tensor(make_smem_ptr(b.get()), SmemLayoutB{});
      Tensor mA = p->tma_a.get_tma_tensor(make_shape(p->m, p->k, p->batch));
      Tensor mB = p->tma_b.get_tma_tensor(make_shape(p->n, p->k, p->batch));
      Tensor gA = local_tile(mA(_, _, tile.l), make_shape(Int<kTileM>{}, Int<kTileK>{}),
                             make_coord(tile.m, _));  // (BLK_M, BLK_K, k)
      Tensor gB = local_tile(mB(_, _, tile.l), make_shape(Int<kTileN>{}, Int<kTileK>{}),
                             make_coord(tile.n, _));  // (BLK_N, BLK_K, k)
      // A is shared by the kClusterN CTAs of a cluster row, B by the kClusterM of a column.
      auto [tAgA, tAsA] = tma_partition(p->tma_a, rank_n, Layout<Int<kClusterN>>{},
                                        group_modes<0, 2>(sA), group_modes<0, 2>(gA));
      auto [tBgB, tBsB] = tma_partition(p->tma_b, rank_m, Layout<Int<kClusterM>>{},
                                        group_modes<0, 2>(sB), group_modes<0, 2>(gB));
      copy_tile<kClusterN>(p->tma_a, *stage.barrier, multicast_mask(rank_m, kClusterN, kClusterM),
                           tAgA(_, stage.loop_offset), tAsA(_, stage.stage_idx));
      copy_tile<kClusterM>(p->tma_b, *stage.barrier,
                           multicast_mask(rank_n * kClusterM, kClusterM, 1),
                           tBgB(_, stage.loop_offset), tBsB(_, stage.stage_idx));
    }

    // One TMA copy completing on `barrier`; into the CTAs of `mask` when kMulticast > 1 (the
    // plain load has no mask argument).
    template <int kMulticast, class Tma, class Src, class Dst>
    static WL_DEVICE void copy_tile(Tma const& tma, std::uint64_t& barrier, std::uint16_t mask,
                                    Src const& src, Dst&& dst) {
      if constexpr (kMulticast == 1) {
        cute::copy(tma.with(barrier), src, dst);
      } else {
        cute::copy(tma.with(barrier, mask), src, dst);
      }
    }

    // Cluster ranks first, first + step, ... (count of them) as a TMA multicast mask.
    static WL_DEVICE std::uint16_t multicast_mask(int first, int count, int step) {
      std::uint16_t mask = 0;
      for (int i = 0; i < count; ++i) mask |= static_cast<std::uint16_t>(1u << (first + i * step));
      return mask;
    }

    // Issues (without waiting) the wgmma batch of one K tile into `acc`; the first K tile
    // overwrites it.
    WL_DEVICE void mma(ts::Consume const& stage, Accumulator& acc) const {
      using namespace cute;
      TiledMma tiled_mma;
      auto thr = tiled_mma.get_thread_slice(threadIdx.x);
      Tensor tCrA =
          thr.make_fragment_A(thr.partition_A(make_tensor(make_smem_ptr(a.get()), SmemLayoutA{})));
      Tensor tCrB =
          thr.make_fragment_B(thr.partition_B(make_tensor(make_smem_ptr(b.get()), SmemLayoutB{})));
      Tensor accum = acc.tensor();
      tiled_mma.accumulate_ =
          stage.loop_offset == stage.loop_start ? GMMA::ScaleOut::Zero : GMMA::ScaleOut::One;
      warpgroup_fence_operand(accum);
      warpgroup_arrive();
      CUTE_UNROLL
      for (int kb = 0; kb < size<2>(tCrA); ++kb) {
        cute::gemm(tiled_mma, tCrA(_, _, kb, stage.stage_idx), tCrB(_, _, kb, stage.stage_idx),
                   accum);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_fence_operand(accum);
    }
  };

  // D (and C). The MMA threads stage the accumulator in shared memory, one subtile of
  // kTileM x kEpiN at a time (one 128-byte, 128B-swizzled row per tile row), and thread 0 stores
  // each subtile with TMA, which clips rows beyond M. Two staging buffers alternate: a buffer is
  // rewritten only once the TMA store that read it retired (bulk wait_group.read).
  //
  // Columns are another matter: TMA clips a store along its contiguous dimension in 16-byte units
  // (measured on the H200: with N = 257 bf16 it writes columns 257-263), which would write into
  // the caller's padding. So a subtile that crosses N where N is not a multiple of 16 bytes is
  // stored from registers instead, element by element; subtiles entirely beyond N are skipped.
  struct GmemD {
    static constexpr ts::ResourceSpec spec{.name = "gmem_d"};
    Params const* p = nullptr;
    ts::SmemBuffer<TD, 2 * cute::cosize_v<SmemLayoutEpi>, 1024> staging;  // (2, BLK_M, EPI_N)
    using smem_buffers = ts::buffers<&GmemD::staging>;
    float alpha = 1.0f;  // alpha * scale_a * scale_b for the tile being stored (set by store())

    WL_DEVICE void store(ts::Produce const&, TileCoord tile, Accumulator const& acc) {
      using namespace cute;
      // The scales live in device memory (written by an earlier kernel, as cuBLASLt's scale
      // pointers): read once per tile here, not per element.
      alpha = p->alpha * (p->scale_a != nullptr ? *p->scale_a : 1.0f) *
              (p->scale_b != nullptr ? *p->scale_b : 1.0f);
      // The fence keeps the compiler from hoisting reads of the accumulator registers above the
      // wgmma_wait<0> that made them valid; it takes them as in-out operands, hence the cast
      // (the local itself is not const).
      Tensor accum = const_cast<Accumulator&>(acc).tensor();
      warpgroup_fence_operand(accum);

      // Where this thread's accumulator values sit in the tile (PTX ISA, "wgmma .m64nNk16
      // register fragment D"): value v0 + 2 v1 + 4 g is row row0 + 8 v1, column col0 + v0 + 8 g.
      int const t = static_cast<int>(threadIdx.x);
      int const lane = t % 32;
      int const row0 = t / 128 * 64 + t % 128 / 32 * 16 + lane / 4;
      int const col0 = lane % 4 * 2;
      int const tile_col0 = tile.n * kTileN;
      constexpr int kPerChunk = 16 / static_cast<int>(sizeof(TD));
      bool const n_aligned = p->n % kPerChunk == 0;

      // No break or continue in this loop: it must unroll fully so that every index into the
      // accumulator is a compile-time constant (else the accumulator goes to local memory).
      CUTE_UNROLL
      for (int e = 0; e < kEpiTiles; ++e) {
        int const sub_col0 = tile_col0 + e * kEpiN;
        bool const inside = sub_col0 < p->n;  // uniform; once false, false for the rest
        if (inside && !n_aligned && sub_col0 + kEpiN > p->n) {
          store_from_registers(accum, e, tile, row0, col0);
        } else if (inside) {
          store_through_tma(accum, e, tile, row0, col0);
        }
      }
    }

   private:
    struct alignas(2 * sizeof(TD)) Pair {
      TD v[2];
    };
    // alpha * acc + beta * C for values (g, v1, 0..1) of the fragment, at (row, col), (row, col+1).
    template <class Acc>
    WL_DEVICE Pair output_pair(Acc const& accum, int g, int v1, TileCoord tile, int row,
                               int col) const {
      float x0 = alpha * accum(4 * g + 2 * v1);
      float x1 = alpha * accum(4 * g + 2 * v1 + 1);
      if (p->beta != 0.0f) {
        x0 += p->beta * load_c(tile.l, row, col);
        x1 += p->beta * load_c(tile.l, row, col + 1);
      }
      return Pair{{TD(x0), TD(x1)}};
    }

    // Subtile e through staging buffer e % 2 and one TMA store (thread 0).
    template <class Acc>
    WL_DEVICE void store_through_tma(Acc const& accum, int e, TileCoord tile, int row0, int col0) {
      using namespace cute;
      int const t = static_cast<int>(threadIdx.x);
      int const lane = t % 32;
      // Retire the store that read this buffer last. At a tile's first subtile that store may be
      // the most recent one (a tile can end after an odd number of TMA stores), so wait for all:
      // they were issued a whole main loop ago.
      if (t == 0) {
        if (e == 0) {
          tma_store_wait<0>();
        } else {
          tma_store_wait<1>();
        }
      }
      warploom::sm90::named_barrier_sync(kEpilogueBarrier, kMmaThreads);

      char* const staging_bytes =
          reinterpret_cast<char*>(staging.get()) + e % 2 * cosize_v<SmemLayoutEpi> * sizeof(TD);
      CUTE_UNROLL
      for (int g = e * kEpiN / 8; g < (e + 1) * kEpiN / 8; ++g) {
        CUTE_UNROLL
        for (int v1 = 0; v1 < 2; ++v1) {
          int const row = row0 + 8 * v1;
          int const col = col0 + 8 * g;
          Pair const v =
              output_pair(accum, g, v1, tile, tile.m * kTileM + row, tile.n * kTileN + col);
          // Row-major, 128 bytes per row, 16-byte chunks XOR-swizzled by row % 8 (= lane / 4).
          int const byte = row * 128 + (col % kEpiN) * static_cast<int>(sizeof(TD));
          int const swizzled = byte ^ (lane / 4 << 4);
          *reinterpret_cast<Pair*>(staging_bytes + swizzled) = v;
        }
      }
      tma_store_fence();  // make the generic-proxy writes visible to the TMA (async proxy)
      warploom::sm90::named_barrier_sync(kEpilogueBarrier, kMmaThreads);

      if (t == 0) {
        warploom::sm90::tma_store_3d(&p->tma_d, staging_bytes, tile.n * kTileN + e * kEpiN,
                                     tile.m * kTileM, tile.l);
        tma_store_arrive();
      }
    }

    // Subtile e straight from registers to D, predicated on M and N.
    template <class Acc>
    WL_DEVICE void store_from_registers(Acc const& accum, int e, TileCoord tile, int row0,
                                        int col0) const {
      using cute::get;
      CUTE_UNROLL
      for (int g = e * kEpiN / 8; g < (e + 1) * kEpiN / 8; ++g) {
        CUTE_UNROLL
        for (int v1 = 0; v1 < 2; ++v1) {
          int const row = tile.m * kTileM + row0 + 8 * v1;
          int const col = tile.n * kTileN + col0 + 8 * g;
          if (row >= p->m) continue;
          Pair const v = output_pair(accum, g, v1, tile, row, col);
          TD* out = p->d + tile.l * get<2>(p->stride_d) + row * get<0>(p->stride_d) + col;
          if (col < p->n) out[0] = v.v[0];
          if (col + 1 < p->n) out[1] = v.v[1];
        }
      }
    }

    // C(row, col) of batch l, or 0 outside the matrix.
    WL_DEVICE float load_c(int l, int row, int col) const {
      if (row >= p->m || col >= p->n) return 0.0f;
      using cute::get;
      return static_cast<float>(p->c[l * get<2>(p->stride_c) + row * get<0>(p->stride_c) + col]);
    }
  };

  // ---- Tasks -----------------------------------------------------------------------------------
  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = 8, .num_warps = 1, .num_registers = 40};
    using src = ts::list<Tiles>;
    using dst = ts::list<SmemAB>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& smem) {
      ctx.domain_loop(tiles->first, tiles->num_tiles, tiles->stride, [&](auto&) {
        auto tile = ts::work<&Tiles::next>(tiles);
        ctx.domain_loop(tiles->k_tiles, [&](auto&) {
          smem.acquire();
          ts::work<&SmemAB::tma_load>(smem, tile);
          smem.commit();
        });
      });
    }
  };

  struct MmaTask {
    static constexpr ts::TaskSpec spec{
        .name = "mma", .warp_idx = 0, .num_warps = 8, .num_registers = 232};
    using src = ts::list<Tiles, SmemAB>;
    using dst = ts::list<GmemD>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& smem, auto& d) {
      auto acc = ctx.local(Accumulator{});
      ctx.domain_loop(tiles->first, tiles->num_tiles, tiles->stride, [&](auto&) {
        auto tile = ts::work<&Tiles::next>(tiles);
        ctx.domain_loop(tiles->k_tiles, [&](auto& k) {
          smem.wait();
          ts::work<&SmemAB::mma>(smem, acc);
          ts::wgmma_wait<1>(ctx);                     // the previous K tile's reads retired
          k.not_first_iter([&] { smem.release(); });  // ... so its stage goes back to TMA
          k.last_iter([&] {
            ts::wgmma_wait<0>(ctx);
            smem.release();
          });
        });
        // Again, unconditionally: ptxas cannot tell that last_iter ran, and to keep the store
        // from reading accumulators still in flight it would otherwise put a full wgmma wait
        // on every K iteration (C7517), ending the overlap of consecutive batches.
        ts::wgmma_wait<0>(ctx);
        ts::work<&GmemD::store>(d, tile, acc);
      });
      ts::bulk_wait_read<0>(ctx);  // the last TMA stores read their staging before the CTA exits
    }
  };

  using Manager =
      ts::TaskManager<ts::Tasks<MmaTask, LoadTask, ts::PaddingTask<9, 3, 40>>,
                      ts::Graph<ts::DependsOn<SmemAB, Tiles>, ts::DependsOn<GmemD, SmemAB, Tiles>>>;
  static_assert(Manager::cluster_size == kClusterSize);
};

}  // namespace warploom::gemm::sm90
