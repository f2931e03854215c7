// bench/cutlass_sm90_gemm.cu — CUTLASS's CollectiveBuilder sm90 GEMMs behind CutlassSm90Gemm.
//
// The recipe of CUTLASS's examples 48 and 49: an epilogue CollectiveBuilder (TMA epilogue,
// LinearCombination) first, its shared storage carved out of the main loop's stages
// (StageCountAutoCarveout), the main loop CollectiveBuilder, GemmUniversal over (M, N, K, L) with
// the persistent tile scheduler, GemmUniversalAdapter. Tile scheduler options (raster order,
// swizzle) stay CUTLASS's defaults: what a CUTLASS user gets without tuning.
#include "cutlass_sm90_gemm.hpp"

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include <cutlass/cutlass.h>                                   // Status, cutlassGetStatusString
#include <cutlass/gemm/device/gemm_universal_adapter.h>        // GemmUniversalAdapter
#include <cutlass/kernel_hardware_info.h>                      // KernelHardwareInfo
#include <cute/tensor.hpp>                                     // Shape, Stride, Int
#include <cutlass/epilogue/collective/collective_builder.hpp>  // epilogue CollectiveBuilder
#include <cutlass/epilogue/fusion/operations.hpp>              // LinearCombination
#include <cutlass/gemm/collective/collective_builder.hpp>      // main loop CollectiveBuilder
#include <cutlass/gemm/dispatch_policy.hpp>                    // kernel schedules
#include <cutlass/gemm/kernel/gemm_universal.hpp>              // GemmUniversal
#include <cutlass/gemm/kernel/tile_scheduler.hpp>              // PersistentScheduler

#include "warploom/cuda_check.hpp"

namespace warploom::bench {

// The interface the four compiled kernels share, so the header stays free of CUTLASS.
class CutlassSm90Gemm::Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void run(gemm::GemmArguments const& r, testing::DeviceBuffer& workspace,
                   cudaStream_t stream) = 0;
};

namespace {

// Schedules: main loop and epilogue schedules that go together, tile and cluster.
struct Cooperative {
  using Tile = cute::Shape<cute::_128, cute::_256, cute::_64>;
  using Cluster = cute::Shape<cute::_2, cute::_1, cute::_1>;
  using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
  using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
};
struct Pingpong {
  using Tile = cute::Shape<cute::_128, cute::_128, cute::_64>;
  using Cluster = cute::Shape<cute::_2, cute::_1, cute::_1>;
  using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
  using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
};

// One kernel: `Element` (cutlass::bfloat16_t or cutlass::half_t) for A, B, C and D, fp32
// accumulation and epilogue arithmetic, layout tn.
template <class Element_, class Schedule>
struct Config {
  using Element = Element_;
  // 16-byte accesses, TMA's unit (the builders take TMA only at this alignment).
  static constexpr int kAlignment = 16 / static_cast<int>(sizeof(Element));
  // CUTLASS's layout tags name the (M x K) A and the (K x N) B: RowMajor A and ColumnMajor B are
  // both K-major, BLAS "tn". C and D (M x N) are row-major.
  using LayoutA = cutlass::layout::RowMajor;
  using LayoutB = cutlass::layout::ColumnMajor;
  using LayoutCD = cutlass::layout::RowMajor;
  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, typename Schedule::Tile,
      typename Schedule::Cluster, cutlass::epilogue::collective::EpilogueTileAuto, float, float,
      Element, LayoutCD, kAlignment, Element, LayoutCD, kAlignment,
      typename Schedule::EpilogueSchedule,
      cutlass::epilogue::fusion::LinearCombination<Element, float, Element, float>>::CollectiveOp;
  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, LayoutA, kAlignment, Element,
      LayoutB, kAlignment, float, typename Schedule::Tile, typename Schedule::Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename CollectiveEpilogue::SharedStorage))>,
      typename Schedule::MainloopSchedule>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>,  // M,N,K,L
                                                      CollectiveMainloop, CollectiveEpilogue,
                                                      cutlass::gemm::PersistentScheduler>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
};

// Every operand is K-major (A, B) or N-major (C, D): stride (ld, 1, batch stride) over the modes
// (rows, contiguous, L), which CUTLASS's strides for these layout tags must be.
using KMajorStride = cute::Stride<std::int64_t, cute::Int<1>, std::int64_t>;

template <class Stride>
Stride k_major_stride(std::int64_t ld, std::int64_t batch_stride, int batch) {
  static_assert(std::is_same_v<Stride, KMajorStride>,
                "CUTLASS's stride for A (RowMajor), B (ColumnMajor), C and D (RowMajor) must be "
                "(ld, _1, batch stride)");
  Stride s{};
  cute::get<0>(s) = ld;
  // One batch: stride 0, as cutlass::make_cute_packed_stride sets it.
  cute::get<2>(s) = batch > 1 ? batch_stride : 0;
  return s;
}

// Resolved warploom arguments (gemm::resolved: leading dimensions and batch strides filled in, C
// described as D when beta == 0) as CUTLASS's.
template <class Cfg>
typename Cfg::Gemm::Arguments cutlass_arguments(gemm::GemmArguments const& r,
                                                cutlass::KernelHardwareInfo const& hw) {
  using Element = typename Cfg::Element;
  using GemmKernel = typename Cfg::Kernel;
  typename Cfg::Gemm::Arguments a{};
  a.mode = cutlass::gemm::GemmUniversalMode::kGemm;
  a.problem_shape = typename GemmKernel::ProblemShape{r.m, r.n, r.k, r.batch};
  a.mainloop.ptr_A = static_cast<Element const*>(r.a.data);
  a.mainloop.dA =
      k_major_stride<typename GemmKernel::StrideA>(r.a.ld, r.a.batch_stride, r.batch);  // (M,K,L)
  a.mainloop.ptr_B = static_cast<Element const*>(r.b.data);
  a.mainloop.dB =
      k_major_stride<typename GemmKernel::StrideB>(r.b.ld, r.b.batch_stride, r.batch);  // (N,K,L)
  a.epilogue.thread.alpha = r.alpha;
  a.epilogue.thread.beta = r.beta;
  // With beta == 0 the epilogue reads no C (LinearCombination's is_C_load_needed), but it still
  // builds C's TMA descriptor: D stands in for a null C.
  a.epilogue.ptr_C = static_cast<Element const*>(r.c.data != nullptr ? r.c.data : r.d);
  a.epilogue.dC =
      k_major_stride<typename GemmKernel::StrideC>(r.c.ld, r.c.batch_stride, r.batch);  // (M,N,L)
  a.epilogue.ptr_D = static_cast<Element*>(r.d);
  a.epilogue.dD =
      k_major_stride<typename GemmKernel::StrideD>(r.ldd, r.batch_stride_d, r.batch);  // (M,N,L)
  a.hw_info = hw;
  return a;
}

std::string schedule_name(CutlassSchedule s) {
  return std::string(to_string(s));
}

template <class Cfg>
class KernelOf final : public CutlassSm90Gemm::Kernel {
 public:
  using GemmKernel = typename Cfg::Kernel;

  // Prepares the kernel for the current device: its shared memory (beyond the 48 KiB default)
  // and how many of its clusters fit at once, which sizes the persistent grid. (CUTLASS's
  // KernelHardwareInfo::make_kernel_hardware_info asks the occupancy API without the dynamic
  // shared memory; this asks with it.)
  explicit KernelOf(CutlassSchedule schedule) : schedule_(schedule) {
    WL_CUDA_CHECK(cudaGetDevice(&hw_.device_id));
    hw_.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(hw_.device_id);
    int const smem_bytes = GemmKernel::SharedStorageSize;
    WL_CUDA_CHECK(cudaFuncSetAttribute(cutlass::device_kernel<GemmKernel>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = cute::size<0>(typename GemmKernel::ClusterShape{});
    cluster.val.clusterDim.y = cute::size<1>(typename GemmKernel::ClusterShape{});
    cluster.val.clusterDim.z = cute::size<2>(typename GemmKernel::ClusterShape{});
    cudaLaunchConfig_t config{};
    config.gridDim =
        dim3(cluster.val.clusterDim.x, cluster.val.clusterDim.y, cluster.val.clusterDim.z);
    config.blockDim = GemmKernel::get_block_shape();
    config.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
    config.attrs = &cluster;
    config.numAttrs = 1;
    WL_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&hw_.max_active_clusters,
                                                 cutlass::device_kernel<GemmKernel>, &config));
  }

  // Per call, as a CUTLASS user calls it: initialize (TMA descriptors for these operands) and
  // run, through the adapter.
  void run(gemm::GemmArguments const& r, testing::DeviceBuffer& workspace,
           cudaStream_t stream) override {
    typename Cfg::Gemm::Arguments const a = cutlass_arguments<Cfg>(r, hw_);
    std::size_t const workspace_bytes = Cfg::Gemm::get_workspace_size(a);
    if (workspace_bytes > workspace.bytes()) workspace = testing::DeviceBuffer(workspace_bytes);
    check(gemm_.initialize(a, workspace.get(), stream), "initialize");
    check(gemm_.run(stream), "run");
  }

 private:
  void check(cutlass::Status s, char const* what) const {
    if (s == cutlass::Status::kSuccess) return;
    cudaError_t const e = cudaGetLastError();
    throw std::runtime_error("cutlass_sm90_gemm (" + schedule_name(schedule_) + "): " + what +
                             " failed: " + cutlassGetStatusString(s) +
                             " (last CUDA error: " + cudaGetErrorString(e) + ")");
  }

  CutlassSchedule schedule_;
  cutlass::KernelHardwareInfo hw_{};
  typename Cfg::Gemm gemm_;
};

// Calls fn(Config<...>{}) for the kernel of input type `t` (bf16 or fp16) and schedule `s`.
template <class Fn>
decltype(auto) with_config(gemm::ScalarType t, CutlassSchedule s, Fn&& fn) {
  bool const bf16 = t == gemm::ScalarType::BF16;
  if (s == CutlassSchedule::Cooperative)
    return bf16 ? fn(Config<cutlass::bfloat16_t, Cooperative>{})
                : fn(Config<cutlass::half_t, Cooperative>{});
  return bf16 ? fn(Config<cutlass::bfloat16_t, Pingpong>{})
              : fn(Config<cutlass::half_t, Pingpong>{});
}

std::string str(std::int64_t v) {
  return std::to_string(v);
}

// The first rule `args` break for `schedule`'s kernels ("" when none), and in `r` the resolved
// arguments.
std::string violation(gemm::GemmArguments const& args, CutlassSchedule schedule,
                      gemm::GemmArguments& r) {
  std::string const prefix = "cutlass_sm90_gemm: ";
  if (args.a.type != gemm::ScalarType::BF16 && args.a.type != gemm::ScalarType::F16)
    return prefix + "a.type = " + std::string(gemm::to_string(args.a.type)) +
           ": the compiled kernels take bf16 or fp16 inputs";
  try {
    r = gemm::resolved(args, gemm::GemmKernel::TensorCore);  // fp16/bf16, TMA rules of A, B, D
  } catch (std::invalid_argument const& e) {
    return e.what();
  }
  std::string const in = std::string(gemm::to_string(r.a.type));
  if (r.d_type != r.a.type)
    return prefix + "d_type = " + std::string(gemm::to_string(r.d_type)) +
           ": D is of the input type (" + in + ") in the compiled kernels";
  std::string const tn = " (layout tn only: A row-major, B column-major, C and D row-major)";
  if (r.a.layout != gemm::MatrixLayout::RowMajor)
    return prefix + "a.layout = " + std::string(gemm::to_string(r.a.layout)) + tn;
  if (r.b.layout != gemm::MatrixLayout::ColMajor)
    return prefix + "b.layout = " + std::string(gemm::to_string(r.b.layout)) + tn;
  if (r.d_layout != gemm::MatrixLayout::RowMajor)
    return prefix + "d_layout = " + std::string(gemm::to_string(r.d_layout)) + tn;
  // CUTLASS's can_implement (cutlass::detail::check_alignment) wants each TMA operand's contiguous
  // extent, not only its strides, in whole 16-byte units.
  if (r.k % 8 != 0)
    return prefix + "k = " + str(r.k) +
           " must be a multiple of 8: CUTLASS's TMA main loop needs A's and B's contiguous "
           "extent (K) in 16-byte units";
  if (r.n % 8 != 0)
    return prefix + "n = " + str(r.n) +
           " must be a multiple of 8: CUTLASS's TMA epilogue needs D's and C's contiguous extent "
           "(N) in 16-byte units";
  if (r.beta != 0.0f) {  // C is read through TMA
    if (reinterpret_cast<std::uintptr_t>(r.c.data) % 16 != 0)
      return prefix + "c.data must be 16-byte aligned (CUTLASS's epilogue reads C with TMA)";
    if (r.c.ld % 8 != 0)
      return prefix + "c.ld = " + str(r.c.ld) +
             " elements must be a multiple of 16 bytes (TMA strides): a multiple of 8";
    if (r.batch > 1 && r.c.batch_stride % 8 != 0)
      return prefix + "c.batch_stride = " + str(r.c.batch_stride) +
             " elements must be a multiple of 16 bytes (TMA strides): a multiple of 8";
  }
  bool const implementable = with_config(r.a.type, schedule, [&](auto cfg) {
    using Cfg = decltype(cfg);
    return Cfg::Gemm::can_implement(cutlass_arguments<Cfg>(r, cutlass::KernelHardwareInfo{})) ==
           cutlass::Status::kSuccess;
  });
  if (!implementable)
    return prefix + "CUTLASS's can_implement rejects " + str(r.m) + "x" + str(r.n) + "x" +
           str(r.k) + " (batch " + str(r.batch) + ") for the " + schedule_name(schedule) +
           " kernel";
  return "";
}

}  // namespace

std::string_view to_string(CutlassSchedule s) {
  return s == CutlassSchedule::Cooperative ? "cooperative 128x256x64, cluster 2x1x1"
                                           : "pingpong 128x128x64, cluster 2x1x1";
}

CutlassSm90Gemm::CutlassSm90Gemm(CutlassSchedule schedule) : schedule_(schedule) {}

CutlassSm90Gemm::~CutlassSm90Gemm() = default;

std::string CutlassSm90Gemm::unsupported(gemm::GemmArguments const& args) const {
  gemm::GemmArguments r;
  return violation(args, schedule_, r);
}

void CutlassSm90Gemm::run(gemm::GemmArguments const& args, cudaStream_t stream) {
  gemm::GemmArguments r;
  if (std::string const why = violation(args, schedule_, r); !why.empty())
    throw std::invalid_argument(why);
  std::unique_ptr<Kernel>& kernel = r.a.type == gemm::ScalarType::BF16 ? bf16_ : fp16_;
  if (!kernel) {
    kernel = with_config(r.a.type, schedule_, [&](auto cfg) -> std::unique_ptr<Kernel> {
      return std::make_unique<KernelOf<decltype(cfg)>>(schedule_);
    });
  }
  kernel->run(r, workspace_, stream);
}

}  // namespace warploom::bench
