// warploom/gemm.hpp
//
// The GEMM API: D = alpha * scale_a * scale_b * (A . B) + beta * C, batched.
//
//   A is M x K, B is K x N, C and D are M x N; each operand row- or column-major, with an optional
//   leading dimension and batch stride (packed by default; a batch stride of 0 broadcasts A, B or
//   C across the batch, as in cuBLAS and DLPack). Accumulation is fp32 (fp64 for fp64 inputs;
//   fp8 on the tensor cores is cuBLASLt's "fast accumulation": Hopper's fp8 wgmma keeps about 13
//   mantissa bits of the sum at each step of 32 products, docs/kernels/sm90_ts_gemm.md).
//   scale_a and scale_b are per-tensor dequantisation scales of fp8 inputs (1 when absent).
//
// Two kernels run it: the sm90 tensor-core GEMM (fp16/bf16 inputs in any layout, fp8 inputs with
// A row-major and B column-major; TMA's 16-byte alignment) and the SIMT GEMM (any supported type
// and layout, element alignment only). GemmTuning::kernel picks one; Auto takes the tensor cores
// whenever their rules hold and the SIMT GEMM otherwise.
//
// Every call is checked before anything launches: a bad argument throws std::invalid_argument
// naming the argument and the rule it breaks (shape, null pointer, type combination, alignment, an
// enumeration value out of range).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

namespace warploom::gemm {

// E4M3 and E5M2 are the OCP fp8 formats (CUDA's __nv_fp8_e4m3 / __nv_fp8_e5m2: e4m3 has no
// infinities, max 448; e5m2 is IEEE-like, max 57344). Input types, and D's type on the tensor
// cores (GemmArguments::scale_d, amax_d).
enum class ScalarType { F16, BF16, F32, F64, E4M3, E5M2 };
enum class MatrixLayout { RowMajor, ColMajor };

// The names and sizes of the enumerations. A value outside an enumeration (an integer cast to it,
// as bindings and deserialisers do) throws std::invalid_argument naming the type and the value, in
// these functions and wherever the GEMM takes an enumeration.
std::string_view to_string(ScalarType t);
std::string_view to_string(MatrixLayout l);
int size_of(ScalarType t);

// Which kernel runs a GEMM. TensorCore: the sm90 TS GEMM (TMA + wgmma). Simt: the SIMT TS GEMM
// (FMA on the CUDA cores). Auto: TensorCore when the problem meets its rules (see
// check_arguments), else Simt — except in gemm(), where a GEMM of at least 2^26 multiply-adds
// whose A, B or D only TMA's 16-byte rules (a contiguous 4097-wide matrix) or, for fp8, the
// K-major rule keep from the tensor cores runs on them through aligned (fp8: transposed) copies
// of those operands (src/gemm/repack.hpp).
enum class GemmKernel { Auto, TensorCore, Simt };
std::string_view to_string(GemmKernel k);

// The batch stride that packs the batches: batch l + 1 starts one matrix (ld x rows or columns
// elements) after batch l. The default of Matrix::batch_stride and GemmArguments::batch_stride_d.
inline constexpr std::int64_t kPacked = -1;

// The largest M, N and K: 2^31 - 1024. The kernels index rows, columns and K in 32 bits, and a
// tile that starts inside the matrix must end below 2^31 (tiles and clusters span up to 512).
inline constexpr int kMaxExtent = std::numeric_limits<int>::max() - 1023;

// One operand in global memory. `ld` is the distance between rows (row-major) or columns
// (column-major) in elements (0: the contiguous extent, packed). `batch_stride` is the distance
// between batches in elements, with the meaning cuBLAS and DLPack give it:
//   kPacked  (the default) batches one after the other;
//   0        one matrix broadcast to every batch (A, B or C; D cannot be, its batches would all
//            write the same memory);
//   > 0      the batches' distance: at least one batch (ld x rows or columns), or, to interleave
//            them inside the rows (a [M][batch][N] tensor), at least the contiguous extent with
//            (batch - 1) x batch_stride + the contiguous extent within ld.
// With batch == 1 the batch stride is never followed and any value is accepted.
struct Matrix {
  void const* data = nullptr;
  ScalarType type = ScalarType::BF16;
  MatrixLayout layout = MatrixLayout::RowMajor;
  std::int64_t ld = 0;
  std::int64_t batch_stride = kPacked;
};

// The activation an epilogue applies (the seed's set, and gelu_tanh): identity; relu max(z, 0);
// leaky_relu z or slope * z below 0 (GemmEpilogue::leaky_slope); gelu z * Phi(z) with the exact
// normal CDF (erf); gelu_tanh its tanh approximation (PyTorch's approximate="tanh"); hardswish
// z * clamp(z + 3, 0, 6) / 6; sigmoid 1 / (1 + e^-z); silu z * sigmoid(z); tanh.
enum class Activation { Identity, ReLU, LeakyReLU, GELU, GELUTanh, HardSwish, Sigmoid, SiLU, Tanh };
std::string_view to_string(Activation a);

// What a per-row or per-column vector of the epilogue (bias, scales) runs along: PerRow holds M
// values (one per row of D), PerColumn N (one per column: a Linear layer's bias, D = X W^T + b).
enum class Broadcast { PerRow, PerColumn };
std::string_view to_string(Broadcast b);

// What the epilogue does to the accumulator besides alpha and beta, fused into the GEMM's own
// epilogue (no second kernel). With acc = A . B, for D's row i and column j:
//
//   z = alpha * scale_a * scale_b * row_scale[i] * col_scale[j] * acc + beta * C + bias
//   pre_activation = z                  (when pre_activation.data is set: for the backward pass)
//   D = activation(z) + residual
//
// Every member is optional (null / Identity: no term). Vectors and the bias are contiguous device
// arrays of fp32 or of D's type; residual and pre_activation are M x N matrices of D's type with
// their own layout, ld and batch stride (as Matrix: packed by default; batch stride 0 broadcasts
// the residual, which is read, never pre_activation, which is written); vectors are shared by every
// batch. z is computed in fp32 (fp64 for fp64) and the activation reads it as stored in D's type,
// the value pre_activation holds (as a Linear layer followed by the activation in D's type would);
// activations use CUDA's accurate erff, tanhf and expf.
struct GemmEpilogue {
  Activation activation = Activation::Identity;
  float leaky_slope = 0.01f;  // LeakyReLU's slope below 0
  void const* bias = nullptr;
  ScalarType bias_type = ScalarType::F32;
  Broadcast bias_broadcast = Broadcast::PerColumn;
  float const* row_scale = nullptr;  // M floats
  float const* col_scale = nullptr;  // N floats
  Matrix residual;                   // added after the activation
  Matrix pre_activation;             // written (data cast to non-const by the kernel)
};

struct GemmArguments {
  int m = 0, n = 0, k = 0;  // each 1 to kMaxExtent
  int batch = 1;
  Matrix a;  // M x K
  Matrix b;  // K x N
  Matrix c;  // M x N; may be null when beta == 0
  void* d = nullptr;
  ScalarType d_type = ScalarType::BF16;  // D has C's layout, ld and batch stride rules
  MatrixLayout d_layout = MatrixLayout::RowMajor;
  std::int64_t ldd = 0;
  std::int64_t batch_stride_d = kPacked;  // never 0 with batch > 1: D is not broadcast
  float alpha = 1.0f;                     // widened to double for fp64
  float beta = 0.0f;
  // alpha and beta in device memory, as cuBLAS's CUBLAS_POINTER_MODE_DEVICE: a set pointer is read
  // by the kernel when it runs, in place of alpha (beta), so an earlier kernel on the stream may
  // compute it and a captured CUDA graph replays with whatever value it holds then. One float each
  // (widened to double for fp64), 4-byte aligned, in memory the device reads; null (the default):
  // the host value. The host value must then keep its default (alpha 1, beta 0), so that no call
  // means both. beta_ptr requires C: whether C is read is decided on the device (*beta_ptr != 0),
  // so every rule of C applies as for beta != 0.
  float const* alpha_ptr = nullptr;
  float const* beta_ptr = nullptr;
  // Per-tensor scales of fp8 inputs, as cuBLASLt's A/B scale pointers: device pointers to one
  // float each (4-byte aligned), read by the kernel when it runs (so they may be produced by an
  // earlier kernel on the stream); null means 1. D = alpha * *scale_a * *scale_b * (A . B) +
  // beta * C. Only fp8 inputs take them: set for other input types, check_arguments rejects them
  // (fold the factor into alpha, or into the data).
  float const* scale_a = nullptr;
  float const* scale_b = nullptr;
  // An fp8 D (d_type e4m3 or e5m2, from fp8 or 16-bit inputs, on the tensor cores only): D =
  // saturate_to_fp8(*scale_d * z) with z = alpha * scale_a * scale_b * (A . B), rounded to nearest
  // and clamped to the format's largest finite value (448, 57344) as cuBLASLt's D scale does;
  // scale_d null means 1. amax_d, when set, receives max |z| over D (before scale_d, as cuBLASLt's
  // AMAX_D_POINTER), set on the stream, not accumulated across calls: what the next step's scale
  // is computed from. Both are device pointers to one float, 4-byte aligned, taken only with an
  // fp8 D, which has no C (beta 0, no beta_ptr) and no fused epilogue.
  float const* scale_d = nullptr;
  float* amax_d = nullptr;
  GemmEpilogue epilogue;  // fused bias, scales, activation, residual, pre-activation output
  // Device scratch for the call, as cuBLASLt's workspace: stream-K's partial sums and flags
  // (TileScheduling::StreamK) need gemm_workspace_bytes(args, tuning) bytes; the masked and
  // contiguous grouped GEMMs' kernel parameters, grouped_gemm_workspace_bytes(groups) bytes
  // (128-byte aligned: grouped_gemm says how they are checked). Null (the default):
  // the call takes them on its stream from the library's memory pool (a captured graph gets an
  // allocation node). Set: at least that many bytes (workspace_bytes says how many there are),
  // 16-byte aligned, in device memory, sharing no byte with any operand, and not used by other
  // work while the call runs on its stream.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// How the tensor-core GEMM's two wgmma consumer warpgroups share the work. Cooperative: both on
// one 128 x 256 tile, 64 rows each (the most data reuse per shared-memory byte); PingPong: each on
// a 128 x 128 tile of its own, one warpgroup storing its tile while the other's wgmma run (hides
// the epilogue). Auto: gemm() picks by the problem's size and epilogue, from H200 and H100
// measurements (selected_design).
enum class ConsumerDesign { Auto, Cooperative, PingPong };
std::string_view to_string(ConsumerDesign d);

// How a grouped GEMM's persistent CTAs take their output tiles. Static: CTA b walks tiles b,
// b + grid, ... of all groups, the groups with the most K tiles first; Dynamic: a scheduler warp
// per CTA takes the next tile from a counter in global memory when the CTA is ready for it, so the
// CTAs that drew short tiles take more (the cooperative design, 1x1 clusters; the counter lives in
// the launch's workspace and is zeroed on the stream, so graphs replay it). Auto: Dynamic where
// it was measured faster and tested (selected_grouped_tuning), else Static. The dense GEMM walks
// a static order (Auto, Static), or StreamK: where the output tiles are not whole waves of the
// persistent grid, the last ones (between one and two waves' worth) are cut along K and their K
// iterations shared evenly by all CTAs, the pieces of a tile added in a fixed order (the same bits
// every run) before its epilogue, fused ops included (Osama et al., PPoPP 2023; CUTLASS's
// stream-K scheduler, which is also the cooperative design's alone). The dense tensor-core GEMM
// only, on the cooperative design with 1x1 clusters, no split-K; it needs a workspace
// (GemmArguments::workspace). The grouped GEMMs take Auto, Static or Dynamic.
enum class TileScheduling { Auto, Static, Dynamic, StreamK };
std::string_view to_string(TileScheduling s);

// How split-K (GemmTuning::split_k) adds its slices' fp32 partial sums. Both add them in slice
// order, so D has the same bits either way and on every run. InKernel: each slice's CTA writes its
// tile's partial sums to the workspace and counts itself in; the one that counts last adds them
// all and writes D: no second kernel, and no CTA waits for another. It runs on the cooperative
// design with 1x1 clusters. SeparateKernel: a reduction kernel after the slices, whatever their
// design. Auto: InKernel for a small M's split on D^T where each tile's last slice reads at most
// one tile of partial sums (a decode step: 32x8192x8192 in two slices, 16x4096x4096 in four),
// SeparateKernel everywhere else, where it was measured faster (the fold adds each tile on one SM,
// as few SMs as there are tiles: docs/kernels/sm90_ts_gemm.md, "Split-K").
enum class SplitKReduction { Auto, InKernel, SeparateKernel };
std::string_view to_string(SplitKReduction r);

// The TS kernel's tunable knobs (the autotune space). `raster_panel`: consecutive output tile rows
// a CTA sweep walks before moving right (L2 reuse of B); `max_ctas`: persistent grid size cap
// (0 = one CTA per SM); `cluster_m` x `cluster_n`: the thread-block cluster (1x1, 2x1 or 1x2)
// whose CTAs share, and TMA-multicast, the B tile (2x1) or the A tile (1x2). 1x1 by default: on
// the H200 multicast saves L2 traffic that does not limit these kernels, and coupling two CTAs'
// pipelines costs up to 10 % at short K (docs/kernels/sm90_ts_gemm.md).
struct GemmTuning {
  int raster_panel = 8;
  int max_ctas = 0;
  int cluster_m = 1;
  int cluster_n = 1;
  ConsumerDesign design = ConsumerDesign::Auto;
  // The A/B ring's stages and the epilogue's staging buffers per accumulator tile (0: the
  // design's defaults, cooperative 4 and 2, ping-pong 6 and 1 — the fastest measured on the H200;
  // others are the stage ablation of docs/kernels/sm90_ts_gemm.md). Every combination must fit
  // shared memory, and is refused naming both sizes when it does not.
  int stages = 0;
  int staging_buffers = 0;
  // The tensor-core kernel's tile width: 0 (Auto), 256, or the cooperative design's narrower 128
  // and 64, for outputs too small to give every SM a 128 x 256 tile (a skinny N, or a few tiles
  // that split-K cuts along K): less wgmma work falls past N, and there are more tiles to share
  // out. Auto keeps the design's own width (cooperative 256, ping-pong 128) where its tiles fill
  // the SMs, and otherwise takes a narrower cooperative tile (src/gemm/split_k.hpp,
  // selected_tile_n) for 16-bit inputs and the plain epilogue — not where stages or staging
  // buffers are set, which describe the design's own tile, nor (not yet measured) for fp8 inputs
  // or a fused epilogue, which a width asked for still runs. A narrow tile's stages default to as
  // many as fit shared memory (128: 6, 64: 8). The width runs along D's columns — along its rows
  // for a column-major D, which the kernel computes transposed. Ping-pong runs 128 only; the
  // grouped GEMMs take 0.
  int tile_n = 0;
  // Which GEMM runs (Auto: the tensor-core GEMM when its rules hold, else the SIMT GEMM). The
  // SIMT GEMM honours raster_panel and max_ctas and has no clusters.
  GemmKernel kernel = GemmKernel::Auto;
  // Split-K on the tensor-core GEMM (src/gemm/split_k.hpp): 0 (Auto) cuts K into slices where the
  // output tiles would leave most SMs idle and K is long; 1 never; 2 to 32 at most that many slices
  // (each a whole number of K tiles: fewer where K is short or where fewer make equal slices). The
  // slices' fp32 partial sums, in a workspace taken on the stream from a memory pool of the
  // library's (kept reserved between calls), are added in a fixed order (split_k_reduction says
  // where): the same bits on every run. A split takes one matrix (batch 1), the plain epilogue (no
  // fused ops), a 16-bit or fp32 D and host alpha and beta; asked for otherwise it is refused,
  // naming the rule (Auto then runs unsplit).
  int split_k = 0;
  // Where split-K's slices are added (SplitKReduction); asked for InKernel, a split whose slices
  // would run ping-pong or a cluster is refused by name.
  SplitKReduction split_k_reduction = SplitKReduction::Auto;
  // The grouped GEMMs' tile scheduler (TileScheduling); the dense GEMM takes Auto or Static.
  TileScheduling tile_scheduling = TileScheduling::Auto;
};

// Throws std::invalid_argument (argument name + rule) unless `args` is a problem `kernel` runs.
// Every kernel: every enumeration value in range; M, N, K at most kMaxExtent, batch >= 1, and
// M x N x batch at most 2^30 tiles of 64 x 64 (tile indices are 32-bit); A, B, D non-null (C too
// when beta != 0 or beta_ptr is set); A and B of one type (no e4m3 x e5m2 mix); D of that type, or
// fp32 for fp16/bf16 inputs, or bf16, fp16 or fp32 for fp8 inputs, or fp8 on the tensor cores
// (then no C, no fused epilogue); scale_d / amax_d only with an fp8 D; C of D's type and layout;
// scale_a / scale_b only with fp8 inputs; alpha_ptr only with alpha = 1, beta_ptr only with beta =
// 0; these device scalars (and scale_d, amax_d) 4-byte aligned and sharing no byte with D,
// pre_activation or amax_d (another CTA could overwrite one before this one read it); leading
// dimensions at least the contiguous extent; batch strides kPacked, 0 (A, B, C) or batches that do
// not overlap (Matrix); every operand's extent in bytes within 64-bit offsets and the address
// space; every base pointer aligned to its element; D sharing no byte with A or B, and with C only
// as C itself (in place: c.data == d with D's ld and batch stride). TensorCore adds: fp16, bf16 or
// fp8 inputs; for fp8, A row-major and B column-major (both K-major: wgmma reads 8-bit operands
// from shared memory only K-major); A's, B's and D's base pointers 16-byte aligned and their
// leading dimensions and batch strides multiples of 16 bytes below 2^40 bytes (TMA's rules; for fp8
// a row-major A and column-major B need K, or their ld, a multiple of 16). Auto accepts what either
// kernel runs. The fused epilogue (both kernels run it): a valid activation, a finite leaky_slope
// for LeakyReLU; the bias fp32 or of D's type, along a valid Broadcast; vectors aligned to their
// element; residual and pre_activation of D's type, in either layout, their ld and batch stride
// resolved and checked like C's (pre_activation like D's: never broadcast); pre_activation
// overlapping none of A, B, C, D and the residual, the residual not overlapping D, the vectors
// neither D nor pre_activation.
void check_arguments(GemmArguments const& args, GemmKernel kernel = GemmKernel::Auto);

// check_arguments, then `args` with every leading dimension and batch stride resolved (ld 0 and
// kPacked -> the packed values; with one batch, the batch stride of one packed batch; 0 kept for
// a broadcast operand) and C described even when beta == 0 (then it aliases D's shape, unread).
GemmArguments resolved(GemmArguments const& args, GemmKernel kernel = GemmKernel::Auto);

// The kernel whose rules `args` keep when asked for `kernel`: TensorCore or Simt as asked (after
// check_arguments for it); for Auto, TensorCore exactly when its rules hold, else Simt (where
// gemm() may still run the tensor cores on aligned copies: GemmKernel).
GemmKernel selected_kernel(GemmArguments const& args, GemmKernel kernel = GemmKernel::Auto);

// Runs the GEMM on the kernel selected_kernel(args, tuning.kernel) names: the warp-specialized,
// persistent sm90 TS GEMM (TMA producer warp, two wgmma consumer warpgroups) or the SIMT TS GEMM
// (load warps -> shared-memory stages -> FMA warps). Checks `args` first, and then asks the driver
// whether the device can reach every pointer it follows (a host pointer, from malloc without HMM,
// is refused by name instead of ending the context with an illegal address).
void gemm(GemmArguments const& args, cudaStream_t stream = nullptr, GemmTuning tuning = {});

// The bytes of device workspace gemm(args, stream, tuning) needs (GemmArguments::workspace): 0
// unless tuning.tile_scheduling is StreamK, then one fp32 output tile and one flag per CTA of the
// current device's persistent grid (tuning.max_ctas, or one CTA per SM). An upper bound: a
// problem stream-K does not change uses none of it.
std::size_t gemm_workspace_bytes(GemmArguments const& args, GemmTuning const& tuning = {});

// Many GEMMs in one call (a grouped GEMM): groups[0 .. count) each a problem of its own extents,
// pointers, strides, alpha and beta. Every group is checked first, as gemm() checks one (an error
// names `groups[i]`); then the groups the tensor cores run with one configuration — the same types,
// layouts and fused epilogue, one batch each, no fp8 D — go to one launch of the grouped kernel
// (kernels/gemm/sm90/grouped.cuh: persistent CTAs walk the tiles of all of them; the TMA
// descriptors are written on the device; no synchronization, capturable in a CUDA graph), a launch
// per configuration; the other groups run one gemm() each. All on `stream`, in no particular order
// among groups: no group's D may overlap another group's operands. `tuning` as gemm()'s; the
// grouped kernel runs 1x1 clusters, and for design Auto what selected_grouped_tuning says;
// tile_scheduling Dynamic takes the tiles from a counter at run time (ping-pong's warpgroups a pair
// of tiles at a time, one each).
// One launch's groups hold at most 2^30 tiles of 64 x 64 together (its tile index is 32-bit); the
// group that crosses it is refused by name.
// The grouped kernel's device workspace (each group's kernel parameters, its TMA descriptors among
// them, written on the device, and the tile walk's tables): `workspace` null (the default), taken
// on `stream` from the library's memory pool (kept reserved between calls; a captured graph gets
// an allocation node and a free node for it); else grouped_gemm_workspace_bytes(count) bytes or
// more (`workspace_bytes`), 128-byte aligned, in device memory, sharing no byte with any group's
// operands, and used by nothing else while the call runs on `stream` — memory the caller keeps
// (as cuBLASLt's workspace; a framework's allocator: torch's, in a captured graph, gives memory of
// the graph's own pool, and the graph then holds no allocation node). Each group's own `workspace`
// must be null.
void grouped_gemm(GemmArguments const* groups, std::size_t count, cudaStream_t stream = nullptr,
                  GemmTuning tuning = {}, void* workspace = nullptr,
                  std::size_t workspace_bytes = 0);

// The bytes of workspace a grouped GEMM of `groups` groups needs (grouped_gemm's `workspace`;
// `args.workspace` of grouped_gemm_masked, with args.batch groups, and grouped_gemm_contiguous): a
// bound that holds for every configuration, 2 KiB a group.
std::size_t grouped_gemm_workspace_bytes(std::size_t groups);

// An MoE layer's grouped GEMM in the masked layout (DeepGEMM's): `args` is a batched problem of
// `batch` groups of one shape — A batch x M x K, B batch x K x N (a batch stride of 0 shares one),
// D batch x M x N, row-major — of which group g holds valid_m[g] valid rows of A and D, an int32
// in device memory read when the kernel runs, clamped to [0, M]: a CUDA graph captured once serves
// every routing. Rows past the count are neither computed nor written (their D keeps what it
// held). Checked as gemm() checks `args`, then valid_m (non-null, 4-byte aligned, device memory);
// the tensor-core kernel runs it (grouped_gemm's kernel, one launch), so the problem must be one
// it takes, with a non-fp8 D and no residual or pre-activation tensor (bias, scales and
// activations are taken). Errors name `valid_m` or the argument of `args`. args.workspace:
// grouped_gemm's workspace, for args.batch groups.
void grouped_gemm_masked(GemmArguments const& args, int const* valid_m,
                         cudaStream_t stream = nullptr, GemmTuning tuning = {});

// An MoE layer's grouped GEMM in the contiguous layout (DeepGEMM's, and torch._grouped_mm's
// `offs`): the groups' rows stacked along M. `args` is the stacked problem, batch 1 — A M x K and
// D (and C) M x N, row-major; B group 0's K x N, the groups' B `args.b.batch_stride` elements
// apart (kPacked: packed matrices back to back; 0: one B for every group) — and `row_ends`
// `groups` int32 cumulative row ends in device memory, read when the kernel runs: group g computes
// rows [row_ends[g - 1], row_ends[g]) of D (row_ends[-1] = 0) from the same rows of A (and C) and
// its own B, so a CUDA graph captured once serves every routing. An end is read as the largest of
// it and the ends before it, clamped to [0, M]: groups never overlap, rows past the last end are
// neither computed nor written. Checked as gemm() checks `args`, then the groups' B (stride,
// 16-byte alignment, address range, no overlap with D) and row_ends (non-null, 4-byte aligned,
// device memory); the tensor-core kernel runs it in one launch, so the problem must be one it
// takes, with a non-fp8 D, no residual or pre-activation tensor and no per-row vector (column bias
// and scales and activations are taken). Errors name the argument. args.workspace: grouped_gemm's
// workspace, for `groups` groups.
void grouped_gemm_contiguous(GemmArguments const& args, int groups, int const* row_ends,
                             cudaStream_t stream = nullptr, GemmTuning tuning = {});

// The design gemm() runs for `args` (after resolve) when asked for `design`: as asked, or for
// Auto the one measured faster for problems of that size and epilogue: for an epilogue with an
// activation, a residual or a pre-activation output, ping-pong below K = 4096 and the cooperative
// design from there on; else ping-pong for outputs of 8192 x 8192 and more and for outputs of
// 4096 x 4096 and more at K <= 1024 (docs/kernels/sm90_ts_gemm.md). Ping-pong's large outputs
// past K = 1024 are the H200's choice: on a device with slower memory (the H100) they take the
// cooperative design. This form reads the current device's DRAM bandwidth (the H200's without a
// device); the other takes it in bytes per second.
ConsumerDesign selected_design(GemmArguments const& args, ConsumerDesign design);
ConsumerDesign selected_design(GemmArguments const& args, ConsumerDesign design,
                               double dram_bytes_per_s);

// The tuning grouped_gemm (and grouped_gemm_masked and grouped_gemm_contiguous, their one stacked
// or batched problem) runs groups[0 .. count) with when asked for `tuning`, measured on the H200
// (docs/kernels/sm90_grouped_gemm.md): tile_scheduling Auto becomes Dynamic for fp16/bf16 groups
// with the plain epilogue, the design Auto or Cooperative and its default stages and staging
// buffers (3-4 % faster than the static walk on the seed's 50 problems and an MoE layer), else
// Static; the design as asked unless it is Auto; then the cooperative design for the dynamic
// scheduler (ping-pong over it is asked for by name), else the cooperative design where the groups'
// output tiles run a K of 2048 or more on average (an MoE layer's experts) and no epilogue has a
// second pass, else ping-pong (short K: a tile's epilogue outlasts its main loop and ping-pong
// hides it). The stages are the tuning's (0: the design's defaults).
GemmTuning selected_grouped_tuning(GemmArguments const* groups, std::size_t count,
                                   GemmTuning tuning);

}  // namespace warploom::gemm
