// kernels/tutorial/split_k_gemm_schedule.cuh
//
// Tutorial 06, split-K over distributed shared memory (the seed's 06): D = A . B^T for skinny
// problems, one output tile per *cluster* of split_k CTAs along K.
//
// A (M x K) and B (N x K) are bf16 and K-major (row-major A, B stored N x K: the "tn" layout); D
// (M x N) is bf16 from fp32. The seed measures M = 1024, N = 16, K up to 8192: eight 128 x 16
// output tiles, so one CTA per tile would run 8 CTAs on a 132-SM GPU, each through all of K. Here
// the grid is (M / 128, N / 16, split_k) in clusters of (1, 1, split_k): the split_k CTAs of a
// cluster share one output tile and each multiplies its own K / split_k slice of it into an fp32
// accumulator. The partial tiles are then summed inside the cluster, through distributed shared
// memory (DSMEM), with no second kernel and no fp32 workspace in global memory:
//
//     KSteps ──k──▶ load: TMA A and B ──▶ SmemAB ──▶ mma: wgmma, K / split_k of K
//                                           ║
//                       (the same bytes)    ║ ts::Alias: SmemAB's stages <-> Partials' tile
//                                           ║
//                                        Partials ◀── mma: its fp32 partial tile, once the
//                                           │          mainloop has drained the stages
//                                           ▼
//           `ready` handshake; each CTA sums its 128 / split_k rows of every peer's Partials
//           through DSMEM, rounds them to bf16 ──▶ GmemD; the cluster barrier before exit
//
// The alias. The epilogue needs an fp32 staging tile that the peers can read; the A/B stages are
// idle once the last K step retired, so the staging reuses their bytes (a shared-memory alias
// group, ts::Aliases on the TaskManager; the seed's SMEM alias group "A/B stages <-> epilogue
// staging"). The verifier checks the aliased phases per byte range: the mma task's write of the
// staging tile may not overlap a stage that a TMA copy is still filling or whose wgmma reads are
// still in flight (R-M4). It is why the mainloop ends with wgmma_wait<0> and releases every stage
// before `Partials::put`.
//
// What the TS model does not see. The verifier models one CTA (docs/verification/README.md §7:
// DSMEM exchanges and the cluster barrier are not modelled). The cross-CTA part of the epilogue
// therefore lives in work bodies, as the seed hides its reduce-scatter inside GmemD.store:
//   - `Partials::reduce_cluster`: the `ready` handshake (every partial tile of the cluster is
//     written), then the DSMEM reads and the sum.
// The handshake is an mbarrier in each CTA that every CTA of the cluster arrives on, through DSMEM
// (see Partials for why not the cluster barrier); the kernel initialises them before one
// cluster-wide sync of all threads, and ends with another, so that no CTA exits (and frees its
// shared memory) while a peer may still read its partial tile. The schedule still names the
// epilogue's steps in order, on the resource they touch, so the verifier checks them against the
// aliased stages like any other write.
//
// Warps: mma on warps 0-3 (one warpgroup: wgmma and the epilogue), load on warp 4 (40 registers;
// the TaskManager pads warps 5-7). The pipelines are CTA-local (no multicast: each CTA reads its
// own K slice), so the TaskManager's cluster_size is 1 and the cluster is the launcher's
// (06_split_k_gemm.cu): it exists only for the epilogue's DSMEM reduce.
//
// The CuTe side follows the fork GEMM (fork_gemm_relu_schedule.cuh) and the production GEMM
// (kernels/gemm/sm90/config.cuh, mainloop.cuh): K-major tiles in the 128-byte-swizzled GMMA
// layout, which TMA writes and wgmma reads through descriptors, here with m64n16k16 atoms.
//
// This file is the schedule's one source: the kernel runs it and its schedule unit
// (kernels/CMakeLists.txt) verifies it while it compiles.
#pragma once

#include <cstdint>
#include <string_view>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cuda_bf16.h>  // __nv_bfloat162, __floats2bfloat162_rn
#include <cuda/ptx>     // cuda::ptx::mbarrier_arrive, mbarrier_try_wait_parity
#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/mma_atom.hpp>

#include "tutorial/k_major_resources.cuh"   // k_major::KSteps, TmaRingB
#include "tutorial/k_major_tiles.cuh"       // k_major::Bf16, SwizzledLayout, make_tma_load
#include "tutorial/split_k_gemm.hpp"        // kSplitKGemmTileM, _N, _K, kSplitKGemmMaxSplit
#include "warploom/arch/sm90/cluster.hpp"   // cluster_cta_rank, cluster_sync
#include "warploom/arch/sm90/mbarrier.hpp"  // Mbarrier, mbarrier_init
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

template <int kStages_>
struct SplitKGemm {
  // ---- Shape ---------------------------------------------------------------------------------
  static constexpr int kStages = kStages_;
  static constexpr int kTileM = kSplitKGemmTileM;
  static constexpr int kTileN = kSplitKGemmTileN;
  static constexpr int kTileK = kSplitKGemmTileK;
  static constexpr int kMaxSplit = kSplitKGemmMaxSplit;
  static constexpr int kMmaThreads = 128;  // one warpgroup
  using Bf16 = k_major::Bf16;
  template <int kValue>
  using Int = cute::Int<kValue>;

  // One stage holds A's 128 x 64 tile, then B's 16 x 64 tile: 16 KiB + 2 KiB = 18 KiB, a
  // multiple of 1024 bytes, so every stage's A and B tiles start where the swizzle starts over.
  // A and B share a stage (one buffer, one full barrier) so that the one buffer can be the alias
  // group's first phase: a ts::Alias names one buffer a phase, and A and B must not overlap each
  // other.
  static constexpr int kElemsA = kTileM * kTileK;
  static constexpr int kElemsB = kTileN * kTileK;
  static constexpr int kStageElems = kElemsA + kElemsB;
  static constexpr int kStageBytes = kStageElems * static_cast<int>(sizeof(Bf16));
  static_assert(kElemsA * sizeof(Bf16) % 1024 == 0 && kStageBytes % 1024 == 0,
                "each stage's A and B tiles must start 1024-byte aligned (the swizzle period)");

  // ---- CuTe: layouts, TMA, wgmma ------------------------------------------------------------
  using SmemLayoutA = k_major::SwizzledLayout<kTileM, kTileK>;  // (BLK_M, BLK_K)
  using SmemLayoutB = k_major::SwizzledLayout<kTileN, kTileK>;  // (BLK_N, BLK_K)
  static_assert(cute::cosize_v<SmemLayoutA> == kElemsA && cute::cosize_v<SmemLayoutB> == kElemsB);

  // The TMA load of one operand's (kRows x 64) tiles, each CTA its own (no multicast: the CTAs of
  // a cluster read different K slices).
  template <int kRows, class Smem>
  static auto make_tma_load(Bf16 const* ptr, int rows, int k) {
    return k_major::make_tma_load<kRows, kTileK>(ptr, rows, k, Smem{});
  }
  using TmaA = decltype(make_tma_load<kTileM, SmemLayoutA>(nullptr, 0, 0));
  using TmaB = decltype(make_tma_load<kTileN, SmemLayoutB>(nullptr, 0, 0));

  // One warpgroup issues m64n16k16 wgmma atoms, both operands K-major from shared memory: over
  // the 128 x 16 x 64 tile of a step, 2 (M) x 4 (K) atoms. N = 16 is the narrowest tile that
  // keeps B's rows whole 128-byte swizzle rows and the seed's N = 16 a single tile.
  using TiledMma = decltype(cute::make_tiled_mma(
      cute::SM90_64x16x16_F32BF16BF16_SS<cute::GMMA::Major::K, cute::GMMA::Major::K>{}));
  static_assert(cute::size(TiledMma{}) == kMmaThreads);

  // The accumulator of one MMA thread: ((2 columns, 2 rows, 2 column groups), 2 atoms in M, 1)
  // floats, 16 registers.
  using AccLayout = decltype(cute::partition_fragment_C(
                                 TiledMma{}, cute::make_shape(Int<kTileM>{}, Int<kTileN>{}))
                                 .layout());
  struct Accumulator {
    float v[cute::cosize_v<AccLayout>];
    WL_DEVICE auto tensor() { return cute::make_tensor(cute::make_rmem_ptr(v), AccLayout{}); }
    WL_DEVICE auto tensor() const { return cute::make_tensor(cute::make_rmem_ptr(v), AccLayout{}); }
  };

  // The partial tile as it is staged: fp32, row-major, 64 bytes a row (8 KiB). Row-major so that
  // the reduce reads 16-byte vectors of whole rows, which is also how D is laid out. (The
  // accumulator's writes into it are up to 4-way bank-conflicted — 8 KiB once per CTA, against
  // 18 KiB of operands per K step — which is not worth a swizzle in a tutorial.)
  using PartialLayout = decltype(cute::make_layout(cute::make_shape(Int<kTileM>{}, Int<kTileN>{}),
                                                   cute::LayoutRight{}));  // (BLK_M, BLK_N)
  static constexpr int kVecsPerRow = kTileN / 4;                           // float4s of a row
  // The most float4s a thread sums: split_k = 1, one CTA reduces all 128 rows alone.
  static constexpr int kMaxVecsPerThread = kTileM * kVecsPerRow / kMmaThreads;

  // Everything the kernel gets from the host (a __grid_constant__ parameter: the TMA descriptors
  // must live in parameter, constant or global memory).
  struct Params {
    TmaA tma_a;
    TmaB tma_b;
    __nv_bfloat16* d;
    int m, n, k;
    int split_k;  // CTAs per cluster, along the grid's z: 1, 2, 4 or 8
    // Threads of each CTA that arrive on the handshakes: 1 or kMmaThreads (SplitKHandshake).
    int handshake_threads;
  };

  // The output tile a cluster computes (the grid's x and y), and the K slice of this CTA.
  struct CtaTile {
    int m = 0;             // in tiles of kTileM rows
    int n = 0;             // in tiles of kTileN columns
    int first_k_step = 0;  // this CTA's first K step: its cluster rank x K steps per CTA
  };

  // One MMA thread's part of this CTA's rows of the tile, summed over the cluster: float4s
  // `thread`, `thread + 128`, ... of the rows [first_row, first_row + 128 / split_k).
  struct RowShare {
    float4 v[kMaxVecsPerThread];
    int first_row = 0;  // in the tile
    int vecs = 0;       // float4s in the CTA's share: (128 / split_k) rows x 4
  };

  // ---- Resources -------------------------------------------------------------------------------

  // The K steps of this CTA's slice.
  using KSteps = k_major::KSteps;

  // A's and B's tiles of each K step, filled by TMA and read by wgmma straight from shared memory.
  // Released one step late (advance on wait + lagged release, as in the production GEMM): the
  // stage of step s goes back to the load once the wgmma batch of step s + 1 is issued and the
  // batch of step s retired.
  struct SmemAB {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_ab",
        .pipeline = ts::tma_wgmma(kStages, kStageBytes, ts::threads(1), ts::warps(4))
                        .with_advance_on_wait()};
    ts::SmemBuffer<Bf16, kStages * kStageElems, 1024> stages;  // (STAGES, A (BLK_M, BLK_K) | B)
    using smem_buffers = ts::buffers<&SmemAB::stages>;
    int k_steps = 0;  // the mma task's loop bound: KSteps::count, which the kernel copies
    Params const* p = nullptr;
    CtaTile tile{};
    using same_sizes = ts::same_sizes<ts::same_size<&SmemAB::k_steps, &KSteps::count>>;

    WL_DEVICE Bf16* a_of(int stage) const { return stages.get() + stage * kStageElems; }
    WL_DEVICE Bf16* b_of(int stage) const { return a_of(stage) + kElemsA; }

    // A's and B's tiles of this CTA's K step `k`; their bytes (kStageBytes) complete the stage.
    WL_DEVICE void tma_load(ts::Produce const& stage, int k) {
      using namespace cute;
      if (!sm90::elect_one()) return;
      int const k_tile = tile.first_k_step + k;
      Tensor mA = p->tma_a.get_tma_tensor(make_shape(p->m, p->k));  // (M, K)
      Tensor mB = p->tma_b.get_tma_tensor(make_shape(p->n, p->k));  // (N, K)
      Tensor gA = local_tile(mA, make_shape(Int<kTileM>{}, Int<kTileK>{}),
                             make_coord(tile.m, _));  // (BLK_M, BLK_K, k)
      Tensor gB = local_tile(mB, make_shape(Int<kTileN>{}, Int<kTileK>{}),
                             make_coord(tile.n, _));  // (BLK_N, BLK_K, k)
      Tensor sA =
          make_tensor(make_smem_ptr(a_of(stage.stage_idx)), SmemLayoutA{});  // (BLK_M, BLK_K)
      Tensor sB =
          make_tensor(make_smem_ptr(b_of(stage.stage_idx)), SmemLayoutB{});  // (BLK_N, BLK_K)
      auto [tAgA, tAsA] = tma_partition(p->tma_a, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sA),
                                        group_modes<0, 2>(gA));
      auto [tBgB, tBsB] = tma_partition(p->tma_b, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sB),
                                        group_modes<0, 2>(gB));
      copy(p->tma_a.with(*stage.barrier), tAgA(_, k_tile), tAsA);
      copy(p->tma_b.with(*stage.barrier), tBgB(_, k_tile), tBsB);
    }

    // Issues (without waiting) the wgmma batch of one K step: acc (+)= A . B^T of the stage; the
    // slice's first step overwrites acc.
    WL_DEVICE void mma(ts::Consume const& stage, Accumulator& acc) const {
      using namespace cute;
      TiledMma tiled_mma;
      auto thr = tiled_mma.get_thread_slice(threadIdx.x % kMmaThreads);
      Tensor sA =
          make_tensor(make_smem_ptr(a_of(stage.stage_idx)), SmemLayoutA{});  // (BLK_M, BLK_K)
      Tensor sB =
          make_tensor(make_smem_ptr(b_of(stage.stage_idx)), SmemLayoutB{});  // (BLK_N, BLK_K)
      Tensor tCrA = thr.make_fragment_A(thr.partition_A(sA));                // (MMA, MMA_M, MMA_K)
      Tensor tCrB = thr.make_fragment_B(thr.partition_B(sB));                // (MMA, MMA_N, MMA_K)
      Tensor accum = acc.tensor();                                           // (MMA, MMA_M, MMA_N)
      tiled_mma.accumulate_ =
          stage.loop_offset == stage.loop_start ? GMMA::ScaleOut::Zero : GMMA::ScaleOut::One;
      warpgroup_fence_operand(accum);
      warpgroup_arrive();
      CUTE_UNROLL
      for (int kb = 0; kb < size<2>(tCrA); ++kb) {
        cute::gemm(tiled_mma, tCrA(_, _, kb), tCrB(_, _, kb), accum);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_fence_operand(accum);
    }
  };

  // This CTA's fp32 partial tile, staged where the peers can read it. No pipeline: written once
  // by the mma task after its mainloop, read by the cluster after the handshake below. Its
  // tile aliases SmemAB's stages (ts::Alias below); all its works are writes to the verifier (the
  // mma task produces this resource), so each is checked against the stages in use.
  //
  // The handshake, `ready`, is an mbarrier of this CTA that every CTA of the cluster arrives on
  // once, through DSMEM (split_k arrivals, one phase), after its warpgroup wrote its partial tile:
  // once a CTA's `ready` completes (acquire, cluster scope), every peer's partial tile is written
  // and visible to it. Each CTA's MMA warpgroup first syncs on its task barrier, then its thread 0
  // arrives on every CTA's barrier with release at cluster scope, which is cumulative: it
  // publishes what the whole warpgroup did before the sync. (One arrival per CTA rather than per
  // thread: each remote release costs a GPU-scope memory barrier, MEMBAR.ALL.GPU in SASS.
  // SplitKHandshake::kEveryThread has every thread arrive instead, the form compute-sanitizer's
  // racecheck can follow.) An mbarrier rather than the cluster barrier (barrier.cluster): that
  // one counts every thread of every CTA, and the load warp and the padding warps would have to
  // arrive from outside their tasks. Every CTA initialises its barrier before the cluster-wide
  // sync at the kernel's start, so no arrival can reach an uninitialised one.
  //
  // The other direction — no CTA exits while a peer still reads its tile (a CTA's shared memory
  // goes to the next CTA on its SM once its last thread exits) — is the cluster barrier at the
  // kernel's end, which every thread reaches after its task. It was a second mbarrier handshake
  // first; racecheck cannot see that one keep a CTA alive ("a block that might have already
  // exited"), while the cluster barrier is what the CUDA guide prescribes for DSMEM lifetime.
  struct Partials {
    static constexpr ts::ResourceSpec spec{.name = "partials"};
    ts::SmemBuffer<float, kTileM * kTileN, 1024> tile;  // (BLK_M, BLK_N) fp32, row-major
    ts::SmemBuffer<sm90::Mbarrier, 1, 8> ready;         // the handshake
    using smem_buffers = ts::buffers<&Partials::tile, &Partials::ready>;
    int split_k = 1;
    int rank = 0;               // this CTA's rank in its cluster
    int handshake_threads = 1;  // of each CTA, that arrive: 1 or kMmaThreads (SplitKHandshake)

    // By one thread, before the kernel's cluster-wide sync.
    WL_DEVICE void init_handshake() const {
      sm90::mbarrier_init(ready.get(), static_cast<std::uint32_t>(split_k * handshake_threads));
    }

    // The accumulator into the staging tile, each thread its own fragment.
    WL_DEVICE void put(ts::Produce const&, Accumulator const& acc) {
      using namespace cute;
      TiledMma tiled_mma;
      auto thr = tiled_mma.get_thread_slice(threadIdx.x % kMmaThreads);
      Tensor sP = make_tensor(make_smem_ptr(tile.get()), PartialLayout{});  // (BLK_M, BLK_N)
      Tensor tCsP = thr.partition_C(sP);                                    // (MMA, MMA_M, MMA_N)
      Tensor accum = acc.tensor();                                          // (MMA, MMA_M, MMA_N)
      CUTE_UNROLL
      for (int i = 0; i < size(accum); ++i) tCsP(i) = accum(i);
    }

    // The reduce-scatter: this CTA's 128 / split_k rows, summed over the partial tiles of every
    // CTA of the cluster (its own included), read through DSMEM. Peers are added in rank order,
    // so D does not depend on timing. (Into a task-local rather than as a result: values flow out
    // of consumer work only, R-A2, and the mma task is this resource's producer.)
    WL_DEVICE void reduce_cluster(ts::Produce const& stage, RowShare& share) const {
      // The warpgroup's fragments are in the tile (put): tell every CTA, then wait until every
      // CTA told this one.
      ts::sync_task(stage.context);
      arrive_on_every_cta();
      wait_for_peers();

      int const rows = kTileM / split_k;
      share.first_row = rank * rows;
      share.vecs = rows * kVecsPerRow;
      int const thread = static_cast<int>(threadIdx.x) % kMmaThreads;
      // Each peer's tile at this CTA's offset in the peer's shared memory: mapa, through the
      // runtime's __cluster_map_shared_rank (a generic address into the cluster's shared-memory
      // window, so the loads below are ordinary ld of 16 bytes).
      float4 const* peers[kMaxSplit];
      CUTE_UNROLL
      for (int peer = 0; peer < kMaxSplit; ++peer)
        peers[peer] = static_cast<float4 const*>(__cluster_map_shared_rank(
            tile.get(), static_cast<unsigned>(peer < split_k ? peer : 0)));
      CUTE_UNROLL
      for (int j = 0; j < kMaxVecsPerThread; ++j) {
        int const v = j * kMmaThreads + thread;  // float4 v of the share
        float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
        if (v < share.vecs) {
          int const at = share.first_row * kVecsPerRow + v;  // float4 index in the tile
          CUTE_UNROLL
          for (int peer = 0; peer < kMaxSplit; ++peer) {
            if (peer >= split_k) break;
            float4 const x = peers[peer][at];
            sum.x += x.x;
            sum.y += x.y;
            sum.z += x.z;
            sum.w += x.w;
          }
        }
        share.v[j] = sum;
      }
    }

   private:
    // By the first handshake_threads threads of the warpgroup: one arrival on the handshake
    // of every CTA of the cluster, this one included, through its DSMEM address. Release at
    // cluster scope publishes the earlier shared-memory writes (or orders the earlier reads) this
    // thread has synchronised with to whoever completes a wait on it. One thread (kOnePerCta)
    // fences once and then arrives relaxed (the fence and each arrival form a release pattern):
    // a release arrival is a fence of its own, MEMBAR.ALL.GPU in SASS, split_k of them in a row
    // on the epilogue's critical path. Every thread (kEveryThread) arrives with release, the form
    // racecheck follows.
    WL_DEVICE void arrive_on_every_cta() const {
      if (static_cast<int>(threadIdx.x) % kMmaThreads >= handshake_threads) return;
      bool const one_fence = handshake_threads == 1;
      if (one_fence) cuda::ptx::fence(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
      for (int peer = 0; peer < split_k; ++peer) {
        auto* const bar = static_cast<sm90::Mbarrier*>(
            __cluster_map_shared_rank(ready.get(), static_cast<unsigned>(peer)));
        if (one_fence)
          cuda::ptx::mbarrier_arrive(cuda::ptx::sem_relaxed, cuda::ptx::scope_cluster,
                                     cuda::ptx::space_cluster, bar);
        else
          cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cluster,
                                     cuda::ptx::space_cluster, bar);
      }
    }
    // Until this CTA's handshake completed its one phase; acquire at cluster scope.
    WL_DEVICE void wait_for_peers() const {
      while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster,
                                                  ready.get(), 0u)) {
      }
    }
  };

  // D's tile, from the reduced rows in registers: each float4 of fp32 rounded once to four bf16
  // (8 bytes a store; four threads write one 32-byte row of the 16-wide tile).
  struct GmemD {
    static constexpr ts::ResourceSpec spec{.name = "gmem_d"};
    Params const* p = nullptr;
    CtaTile tile{};

    WL_DEVICE void store(ts::Produce const&, RowShare const& share) {
      int const thread = static_cast<int>(threadIdx.x) % kMmaThreads;
      std::int64_t const row0 = static_cast<std::int64_t>(tile.m) * kTileM + share.first_row;
      int const col0 = tile.n * kTileN;
#pragma unroll
      for (int j = 0; j < kMaxVecsPerThread; ++j) {
        int const v = j * kMmaThreads + thread;
        if (v >= share.vecs) break;
        float4 const x = share.v[j];
        __nv_bfloat162 const pair[2] = {__floats2bfloat162_rn(x.x, x.y),
                                        __floats2bfloat162_rn(x.z, x.w)};
        *reinterpret_cast<uint2*>(p->d + (row0 + v / kVecsPerRow) * p->n + col0 +
                                  (v % kVecsPerRow) * 4) = *reinterpret_cast<uint2 const*>(pair);
      }
    }
  };

  // ---- Schedules and tasks ---------------------------------------------------------------------

  // The mainloop over this CTA's K slice (one wgmma batch kept in flight, each stage released
  // once the batch after it was issued and its own batch retired), then the epilogue: the partial
  // tile into the stages' bytes, the cluster's sum of this CTA's rows, D, and the wait that keeps
  // this CTA's shared memory alive for its peers.
  struct MmaTask {
    static constexpr ts::TaskSpec spec{
        .name = "mma", .warp_idx = 0, .num_warps = 4, .num_registers = 232};
    using src = ts::list<SmemAB>;
    using dst = ts::list<Partials, GmemD>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& ab, auto& partials, auto& d) {
      auto acc = ctx.local(Accumulator{});
      auto share = ctx.local(RowShare{});
      ctx.domain_loop(ab->k_steps, [&](auto& k) {
        ab.wait();
        ts::work<&SmemAB::mma>(ab, acc);
        ts::wgmma_wait<1>(ctx);  // the previous step's batch retired
        k.not_first_iter([&] { ab.release(); });
        k.last_iter([&] {
          ts::wgmma_wait<0>(ctx);
          ab.release();
        });
      });
      // Again, unconditionally: ptxas cannot tell that last_iter ran, and would otherwise wait
      // for every batch in every step to keep the epilogue from reading accumulators in flight
      // (C7517; kernels/gemm/sm90/resources.hpp, mma_k_tiles).
      ts::wgmma_wait<0>(ctx);
      // Every stage was filled, waited on and released, and the last wgmma retired: the stages'
      // bytes are free, and the partial tile may take them (the verifier checks this, R-M4).
      ts::work<&Partials::put>(partials, acc);
      ts::work<&Partials::reduce_cluster>(partials, share);
      ts::work<&GmemD::store>(d, share);
    }
  };

  // Both operands' tiles of every K step of the slice, one TMA of each into one stage.
  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = 4, .num_warps = 1, .num_registers = 40};
    using src = ts::list<KSteps>;
    using dst = ts::list<SmemAB>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& k_steps, auto& ab) {
      ctx.domain_loop(k_steps->count, [&](auto&) {
        auto k = ts::work<&KSteps::k_of>(k_steps);
        ab.acquire();
        ts::work<&SmemAB::tma_load>(ab, k);
        ab.commit();  // TMA: the copies' bytes complete the full barrier
      });
    }
  };

  // Verified in the schedule unit, not in the kernel's translation unit.
  using Manager =
      ts::TaskManager<ts::Tasks<MmaTask, LoadTask>,
                      // D depends on the operands; Partials is the epilogue's exchange buffer on
                      // the way, written and read by the mma task itself (and by the peers, which
                      // the graph does not see).
                      ts::Graph<ts::DependsOn<SmemAB, KSteps>, ts::DependsOn<Partials, SmemAB>,
                                ts::DependsOn<GmemD, SmemAB>>,
                      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit},
                      ts::Aliases<ts::Alias<&SmemAB::stages, &Partials::tile>>>;
  static_assert(Manager::smem_bytes <= 227 * 1024, "the stages exceed 227 KiB of shared memory");
  static_assert(Manager::cluster_size == 1,
                "the pipelines are CTA-local; the cluster is the launcher's, for the epilogue");

  // ---- Name ------------------------------------------------------------------------------------
  static constexpr ts::ScheduleText kNameText = ts::schedule_text("split_k_gemm");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr ts::ScheduleText kDescriptionText = ts::schedule_text(
      "tutorial 06: D = A.B^T split along K over a (1,1,split_k) cluster, partials summed "
      "through DSMEM in staging aliased on the ",
      kStages, " A/B stages; 128x16x64 tiles");
  static constexpr std::string_view kDescription = kDescriptionText.view();
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    split_k_gemm_ts_kernel(__grid_constant__ typename Cfg::Params const p) {
  using Manager = typename Cfg::Manager;
  // 1024: the swizzled tiles repeat every 1024 bytes, and wgmma's descriptors and TMA's swizzle
  // take their pattern from the address.
  extern __shared__ __align__(1024) char smem[];
  k_major::prefetch_tma_descriptors<Cfg::LoadTask::spec.warp_idx>(p.tma_a, p.tma_b);

  // The cluster spans the grid's z, so a CTA's rank in it is its K slice (and its rows of the
  // reduce).
  int const rank = static_cast<int>(sm90::cluster_cta_rank());
  int const k_steps = p.k / (p.split_k * Cfg::kTileK);
  typename Cfg::CtaTile const tile{.m = static_cast<int>(blockIdx.x),
                                   .n = static_cast<int>(blockIdx.y),
                                   .first_k_step = rank * k_steps};
  typename Cfg::KSteps steps{.count = k_steps};
  typename Cfg::SmemAB ab{};
  ab.k_steps = k_steps;
  ab.p = &p;
  ab.tile = tile;
  typename Cfg::Partials partials{};
  partials.split_k = p.split_k;
  partials.rank = rank;
  partials.handshake_threads = p.handshake_threads;
  typename Cfg::GmemD d{.p = &p, .tile = tile};

  Manager tm(smem, steps, ab, partials, d);
  auto initialized = tm.setup_resources_and_tasks();  // binds partials.ready, among others
  if (threadIdx.x == 0) partials.init_handshake();
  auto ready = initialized.fence_and_sync_cta();  // fence.mbarrier_init, then the CTA barrier
  // The epilogue's handshake is arrived on by the peers: every CTA of the cluster must have
  // initialised its own before any thread of any CTA runs its task. Every thread of the cluster
  // takes part here, as barrier.cluster requires; the initialisation is published by
  // fence_and_sync_cta's fence.mbarrier_init, so the arrival may be relaxed.
  sm90::cluster_sync_after_barrier_init();
  ready.run();
  // Every thread, its task done (the load and padding warps long before the MMA warpgroup): no
  // CTA exits, freeing its shared memory, before every peer has read its partial tile. Release:
  // the reads are ordered before the peers' exit.
  sm90::cluster_sync();
}

// The split-K GEMM the tutorial runs, a schedule unit (kernels/CMakeLists.txt): 8 stages of 18 KiB
// (144 KiB). A skinny GEMM is bound by A's bytes, and with M = 1024 at most 64 CTAs run (8 tiles x
// split 8): each must keep about 100 KiB of loads in flight to cover DRAM latency at its share of
// the bandwidth.
using TutorialSplitKGemm = SplitKGemm</*stages=*/8>;

}  // namespace warploom::tutorial
