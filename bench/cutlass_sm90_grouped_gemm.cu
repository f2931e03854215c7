// bench/cutlass_sm90_grouped_gemm.cu — CUTLASS's sm90 pointer-array grouped GEMM behind
// CutlassSm90GroupedGemm.
//
// The recipe of CUTLASS's example 57 (Hopper grouped GEMM): the epilogue and main-loop
// CollectiveBuilders with pointer layout tags (LayoutA * ...: one matrix per group), the
// PtrArrayTmaWarpSpecializedPingpong schedules, GemmUniversal over GroupProblemShape, and
// arguments in GemmUniversalMode::kGrouped: the groups' extents on the device (and on the host,
// which lets the kernel size its grid), their pointers and strides in device arrays. Scheduler
// options stay CUTLASS's defaults: what a CUTLASS user gets without tuning.
#include "cutlass_sm90_grouped_gemm.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <cutlass/cutlass.h>                                   // Status, cutlassGetStatusString
#include <cutlass/gemm/device/gemm_universal_adapter.h>        // GemmUniversalAdapter
#include <cutlass/kernel_hardware_info.h>                      // KernelHardwareInfo
#include <cute/tensor.hpp>                                     // Shape, Stride, Int
#include <cutlass/epilogue/collective/collective_builder.hpp>  // epilogue CollectiveBuilder
#include <cutlass/epilogue/fusion/operations.hpp>              // LinearCombination
#include <cutlass/gemm/collective/collective_builder.hpp>      // main loop CollectiveBuilder
#include <cutlass/gemm/dispatch_policy.hpp>                    // kernel schedules
#include <cutlass/gemm/group_array_problem_shape.hpp>          // GroupProblemShape
#include <cutlass/gemm/kernel/gemm_universal.hpp>              // GemmUniversal

#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::bench {

// The interface of the two compiled kernels, so that the header stays free of CUTLASS.
class CutlassSm90GroupedGemm::Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void bind(std::vector<std::vector<gemm::GemmArguments>> const& sets) = 0;
  virtual void run(int set, cudaStream_t stream) = 0;
};

namespace {

// One kernel: `Element` for A, B, C and D, fp32 accumulation and epilogue arithmetic; A and D
// row-major, B in `LayoutB_`.
template <class Element_, class LayoutB_>
struct Config {
  using Element = Element_;
  static constexpr int kAlignment = 16 / static_cast<int>(sizeof(Element));  // TMA's 16 bytes
  using LayoutA = cutlass::layout::RowMajor;
  using LayoutB = LayoutB_;
  using LayoutCD = cutlass::layout::RowMajor;
  using Tile = cute::Shape<cute::_128, cute::_128, cute::_64>;
  using Cluster = cute::Shape<cute::_1, cute::_1, cute::_1>;
  using ProblemShape = cutlass::gemm::GroupProblemShape<cute::Shape<int, int, int>>;  // M, N, K
  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Tile, Cluster,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, Element, LayoutCD*, kAlignment,
      Element, LayoutCD*, kAlignment, cutlass::epilogue::PtrArrayTmaWarpSpecializedPingpong,
      cutlass::epilogue::fusion::LinearCombination<Element, float, Element, float>>::CollectiveOp;
  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, LayoutA*, kAlignment, Element,
      LayoutB*, kAlignment, float, Tile, Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename CollectiveEpilogue::SharedStorage))>,
      cutlass::gemm::KernelPtrArrayTmaWarpSpecializedPingpong>::CollectiveOp;
  using Kernel =
      cutlass::gemm::kernel::GemmUniversal<ProblemShape, CollectiveMainloop, CollectiveEpilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
};

// A stride of one group's operand (its modes (rows or columns, K or N, L)) with leading dimension
// `ld` on the mode that is not the contiguous one; L's stride stays 0 (one batch per group).
template <class Stride>
Stride with_ld(std::int64_t ld) {
  Stride s{};
  if constexpr (cute::is_static<cute::remove_cvref_t<decltype(cute::get<0>(s))>>::value) {
    cute::get<1>(s) = ld;  // contiguous along mode 0 (a row-major B's N)
  } else {
    cute::get<0>(s) = ld;
  }
  return s;
}

template <class Cfg>
class KernelOf final : public CutlassSm90GroupedGemm::Kernel {
  using GemmKernel = typename Cfg::Kernel;
  using Element = typename Cfg::Element;
  using Shape = typename Cfg::ProblemShape::UnderlyingProblemShape;
  using StrideA = typename GemmKernel::InternalStrideA;
  using StrideB = typename GemmKernel::InternalStrideB;
  using StrideC = typename GemmKernel::InternalStrideC;
  using StrideD = typename GemmKernel::InternalStrideD;

  // One operand set, uploaded: what its launch reads, and the adapter initialized for it.
  struct Set {
    std::vector<Shape> shapes;  // on the host too: the kernel sizes its grid from them
    std::vector<testing::DeviceBuffer> arrays;
    testing::DeviceBuffer workspace;
    typename Cfg::Gemm gemm;
  };

 public:
  void bind(std::vector<std::vector<gemm::GemmArguments>> const& sets) override {
    int device = 0;
    WL_CUDA_CHECK(cudaGetDevice(&device));
    cutlass::KernelHardwareInfo hw{};
    hw.device_id = device;
    hw.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(device);
    sets_.clear();
    for (std::vector<gemm::GemmArguments> const& groups : sets) {
      auto set = std::make_unique<Set>();
      std::vector<Element const*> a, b, c;
      std::vector<Element*> d;
      std::vector<StrideA> sa;
      std::vector<StrideB> sb;
      std::vector<StrideC> sc;
      std::vector<StrideD> sd;
      for (gemm::GemmArguments const& r : groups) {
        set->shapes.push_back(Shape{r.m, r.n, r.k});
        a.push_back(static_cast<Element const*>(r.a.data));
        b.push_back(static_cast<Element const*>(r.b.data));
        d.push_back(static_cast<Element*>(r.d));
        c.push_back(static_cast<Element const*>(r.d));  // beta = 0: C unread, D stands in
        sa.push_back(with_ld<StrideA>(r.a.ld));
        sb.push_back(with_ld<StrideB>(r.b.ld));
        sc.push_back(with_ld<StrideC>(r.ldd));
        sd.push_back(with_ld<StrideD>(r.ldd));
      }
      std::vector<testing::DeviceBuffer>& v = set->arrays;
      v.push_back(testing::upload(set->shapes));
      v.push_back(testing::upload(a));
      v.push_back(testing::upload(sa));
      v.push_back(testing::upload(b));
      v.push_back(testing::upload(sb));
      v.push_back(testing::upload(c));
      v.push_back(testing::upload(sc));
      v.push_back(testing::upload(d));
      v.push_back(testing::upload(sd));
      typename Cfg::Gemm::Arguments args{};
      args.mode = cutlass::gemm::GemmUniversalMode::kGrouped;
      args.problem_shape = {static_cast<int>(groups.size()), v[0].template as<Shape>(),
                            set->shapes.data()};
      args.mainloop.ptr_A = v[1].template as<Element const*>();
      args.mainloop.dA = v[2].template as<StrideA>();
      args.mainloop.ptr_B = v[3].template as<Element const*>();
      args.mainloop.dB = v[4].template as<StrideB>();
      auto& fusion = args.epilogue.thread;  // one alpha and beta for every group
      fusion.alpha = groups.front().alpha;
      fusion.beta = 0.0f;
      args.epilogue.ptr_C = v[5].template as<Element const*>();
      args.epilogue.dC = v[6].template as<StrideC>();
      args.epilogue.ptr_D = v[7].template as<Element*>();
      args.epilogue.dD = v[8].template as<StrideD>();
      args.hw_info = hw;
      check(Cfg::Gemm::can_implement(args), "can_implement");
      if (std::size_t const bytes = Cfg::Gemm::get_workspace_size(args); bytes > 0)
        set->workspace = testing::DeviceBuffer(bytes);
      check(set->gemm.initialize(args, set->workspace.get()), "initialize");
      sets_.push_back(std::move(set));
    }
  }

  void run(int set, cudaStream_t stream) override {
    check(sets_.at(static_cast<std::size_t>(set))->gemm.run(stream), "run");
  }

 private:
  static void check(cutlass::Status s, char const* what) {
    if (s == cutlass::Status::kSuccess) return;
    cudaError_t const e = cudaGetLastError();
    throw std::runtime_error(std::string("cutlass_sm90_grouped_gemm: ") + what +
                             " failed: " + cutlassGetStatusString(s) +
                             " (last CUDA error: " + cudaGetErrorString(e) + ")");
  }

  std::vector<std::unique_ptr<Set>> sets_;
};

using Fp16RowMajorB = Config<cutlass::half_t, cutlass::layout::RowMajor>;            // "tt"
using Bf16ColumnMajorB = Config<cutlass::bfloat16_t, cutlass::layout::ColumnMajor>;  // "tn"

// The first rule group `r` (resolved) breaks against group 0's configuration, or "".
std::string violation(gemm::GemmArguments const& r, gemm::GemmArguments const& first) {
  using gemm::MatrixLayout;
  using gemm::ScalarType;
  std::string const in(gemm::to_string(r.a.type));
  bool const tt = r.a.type == ScalarType::F16 && r.b.layout == MatrixLayout::RowMajor;
  bool const tn = r.a.type == ScalarType::BF16 && r.b.layout == MatrixLayout::ColMajor;
  if (r.a.layout != MatrixLayout::RowMajor || !(tt || tn))
    return "a.type = " + in +
           " with these layouts: the compiled kernels take fp16 \"tt\" (every operand "
           "row-major) and bf16 \"tn\" (B column-major)";
  if (r.d_type != r.a.type || r.d_layout != MatrixLayout::RowMajor)
    return "D must be row-major and of the input type (" + in + ")";
  if (r.batch != 1) return "batch = " + std::to_string(r.batch) + ": one batch per group";
  if (r.k % 8 != 0 || r.n % 8 != 0)
    return "k = " + std::to_string(r.k) + " and n = " + std::to_string(r.n) +
           " must be multiples of 8: TMA reads and writes whole 16-byte units";
  if (r.beta != 0.0f || r.beta_ptr != nullptr || r.alpha_ptr != nullptr)
    return "beta must be 0 and alpha a host value: the kernel reads no C";
  if (r.alpha != first.alpha) return "alpha differs from groups[0]'s: one alpha for all groups";
  if (r.a.type != first.a.type || r.b.layout != first.b.layout)
    return "the type or layouts differ from groups[0]'s: one kernel runs them all";
  if (r.epilogue.activation != gemm::Activation::Identity || r.epilogue.bias != nullptr ||
      r.epilogue.row_scale != nullptr || r.epilogue.col_scale != nullptr ||
      r.epilogue.residual.data != nullptr || r.epilogue.pre_activation.data != nullptr)
    return "a fused epilogue: the kernel computes alpha * A . B alone";
  return "";
}

// The groups resolved for the tensor cores; the first refusal, named, in `why`.
std::vector<gemm::GemmArguments> resolved_groups(std::vector<gemm::GemmArguments> const& groups,
                                                 std::string& why) {
  std::vector<gemm::GemmArguments> out;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    std::string const name = "cutlass_sm90_grouped_gemm: groups[" + std::to_string(i) + "]: ";
    try {
      out.push_back(gemm::resolved(groups[i], gemm::GemmKernel::TensorCore));
    } catch (std::invalid_argument const& e) {
      why = name + e.what();
      return {};
    }
    if (std::string const v = violation(out.back(), out.front()); !v.empty()) {
      why = name + v;
      return {};
    }
  }
  if (out.empty()) why = "cutlass_sm90_grouped_gemm: no groups";
  return out;
}

}  // namespace

CutlassSm90GroupedGemm::CutlassSm90GroupedGemm() = default;

CutlassSm90GroupedGemm::~CutlassSm90GroupedGemm() = default;

std::string CutlassSm90GroupedGemm::unsupported(
    std::vector<gemm::GemmArguments> const& groups) const {
  std::string why;
  (void)resolved_groups(groups, why);
  return why;
}

void CutlassSm90GroupedGemm::bind(std::vector<std::vector<gemm::GemmArguments>> const& sets) {
  std::vector<std::vector<gemm::GemmArguments>> resolved;
  for (std::vector<gemm::GemmArguments> const& groups : sets) {
    std::string why;
    resolved.push_back(resolved_groups(groups, why));
    if (!why.empty()) throw std::invalid_argument(why);
  }
  if (resolved.empty()) throw std::invalid_argument("cutlass_sm90_grouped_gemm: no sets");
  if (resolved.front().front().a.type == gemm::ScalarType::F16) {
    kernel_ = std::make_unique<KernelOf<Fp16RowMajorB>>();
  } else {
    kernel_ = std::make_unique<KernelOf<Bf16ColumnMajorB>>();
  }
  kernel_->bind(resolved);
}

void CutlassSm90GroupedGemm::run(int set, cudaStream_t stream) {
  if (!kernel_) throw std::logic_error("cutlass_sm90_grouped_gemm: run before bind");
  kernel_->run(set, stream);
}

}  // namespace warploom::bench
