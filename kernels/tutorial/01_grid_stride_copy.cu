// kernels/tutorial/01_grid_stride_copy.cu
//
// Tutorial 01: grid-stride copy — the whole TS vocabulary on the smallest kernel.
//
//     InputGmem ──item──▶ OutputGmem          one task (CopyTask) on every warp of the CTA
//
// Two resources own the two tensors; a consumer work reads an item of the input, a producer work
// writes it to the output, and the value flows between them through the schedule. There is no
// shared memory and no pipeline, so the reserved operations are not needed. The naive kernel at
// the end of the file is the baseline the TS kernel is measured against.
//
// An item is one int16 (the seed's kernel) or a 16-byte vector of eight: the loop is the same,
// only the works read and write wider.
#include "grid_stride_copy.hpp"

#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

#include "warploom/ts/launch.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {
namespace {

template <int kElems_, int kUnroll_>
struct GridStrideCopy {
  static constexpr int kElems = kElems_;    // int16 elements per item
  static constexpr int kUnroll = kUnroll_;  // items in flight per thread
  using Item = std::conditional_t<kElems == 1, std::int16_t, int4>;
  static_assert(sizeof(Item) == kElems * sizeof(std::int16_t));

  // ---- Resources -------------------------------------------------------------------------------
  struct InputGmem {
    static constexpr ts::ResourceSpec spec{.name = "input_gmem"};
    std::int16_t const* src = nullptr;
    int num_entries = 0;  // elements
    int num_items = 0;    // whole items: num_entries / kElems
    // Consumer work: reads item `loop_offset` (the seed keeps its bounds check; vector items are
    // always whole inside their loop).
    __device__ Item get_item(ts::Consume const& stage) const {
      int const i = stage.loop_offset;
      if constexpr (kElems == 1) {
        return i < num_entries ? __ldg(&src[i]) : std::int16_t{0};
      } else {
        return __ldg(reinterpret_cast<Item const*>(src) + i);
      }
    }
    // Consumer work: reads element `loop_offset` (the elements after the last whole item).
    __device__ std::int16_t get_element(ts::Consume const& stage) const {
      return src[stage.loop_offset];
    }
  };

  struct OutputGmem {
    static constexpr ts::ResourceSpec spec{.name = "output_gmem"};
    std::int16_t* dst = nullptr;
    int num_entries = 0;
    // Producer work: writes the item get_item produced.
    __device__ void set_item(ts::Produce const& stage, Item data) {
      int const i = stage.loop_offset;
      if constexpr (kElems == 1) {
        if (i < num_entries) dst[i] = data;
      } else {
        reinterpret_cast<Item*>(dst)[i] = data;
      }
    }
    __device__ void set_element(ts::Produce const& stage, std::int16_t data) {
      dst[stage.loop_offset] = data;
    }
  };

  // ---- Schedule and task -----------------------------------------------------------------------
  struct CopyTask {
    static constexpr ts::TaskSpec spec{
        .name = "copy", .warp_idx = 0, .num_warps = kGridStrideWarps};
    using src = ts::list<InputGmem>;
    using dst = ts::list<OutputGmem>;
    // The grid-stride loop: each thread starts at its global index and strides by the grid's
    // thread count; `item` flows from the input's consumer work to the output's producer work.
    // With vector items a second loop copies the last num_entries % 8 elements one by one.
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& input, auto& output) {
      int const threads_per_block = kGridStrideWarps * 32;
      int const start = ctx.block_idx() * threads_per_block + ctx.thread_idx();
      int const step = ctx.grid_dim() * threads_per_block;
      ctx.domain_loop(start, input->num_items, step, ts::unroll<kUnroll>, [&](auto&) {
        auto item = ts::work<&InputGmem::get_item>(input);
        ts::work<&OutputGmem::set_item>(output, item);
      });
      if constexpr (kElems > 1) {
        ctx.domain_loop(input->num_items * kElems + start, input->num_entries, step, [&](auto&) {
          auto element = ts::work<&InputGmem::get_element>(input);
          ts::work<&OutputGmem::set_element>(output, element);
        });
      }
    }
  };

  // ---- Dependency graph and TaskManager --------------------------------------------------------
  using Manager =
      ts::TaskManager<ts::Tasks<CopyTask>, ts::Graph<ts::DependsOn<OutputGmem, InputGmem>>>;
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    grid_stride_copy_ts_kernel(std::int16_t const* src, std::int16_t* dst, int n) {
  typename Cfg::InputGmem input{.src = src, .num_entries = n, .num_items = n / Cfg::kElems};
  typename Cfg::OutputGmem output{.dst = dst, .num_entries = n};
  typename Cfg::Manager tm(nullptr, input, output);  // no shared memory: nothing to lay out
  auto initialized = tm.setup_resources_and_tasks();
  auto ready = initialized.fence_and_sync_cta();
  ready.run();
}

// ---- Baseline: the seed's naive kernel, with the same item width and unroll --------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    grid_stride_copy_baseline_kernel(std::int16_t const* src, std::int16_t* dst, int n) {
  using Item = typename Cfg::Item;
  constexpr int kElems = Cfg::kElems;
  int const threads_per_block = kGridStrideWarps * 32;
  int const gid = static_cast<int>(blockIdx.x) * threads_per_block + static_cast<int>(threadIdx.x);
  int const step = static_cast<int>(gridDim.x) * threads_per_block;
  int const full_items = n / kElems;
#pragma unroll(Cfg::kUnroll)
  for (int i = gid; i < full_items; i += step)
    reinterpret_cast<Item*>(dst)[i] = __ldg(reinterpret_cast<Item const*>(src) + i);
  if constexpr (kElems > 1) {  // the elements after the last whole item
    for (int e = full_items * kElems + gid; e < n; e += step) dst[e] = src[e];
  }
}

using ScalarCopy = GridStrideCopy</*elements per item=*/1, /*unroll=*/8>;
// Unroll 1: on the H200 deeper unrolling (2, 4, 8 items in flight) measured 0.5-1% slower
// (bench/results/tutorial_copies.json); 16-byte items from every thread already saturate HBM.
using VectorCopy = GridStrideCopy</*elements per item=*/8, /*unroll=*/1>;

template <class Cfg>
void launch_variant(Implementation impl, std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                    int blocks, cudaStream_t stream) {
  using Manager = typename Cfg::Manager;
  if (blocks == 0) {
    int device = 0, sms = 0, per_sm = 0;
    WL_CUDA_CHECK(cudaGetDevice(&device));
    WL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    WL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, grid_stride_copy_ts_kernel<Cfg>, Manager::num_threads, 0));
    blocks = sms * per_sm;
  }
  // Indices are int (as in the seed); the last stride must not overflow.
  std::int64_t const items = (n + Cfg::kElems - 1) / Cfg::kElems;
  std::int64_t const stride = static_cast<std::int64_t>(blocks) * Manager::num_threads;
  if (n > INT_MAX || items > INT_MAX - stride)
    throw std::invalid_argument("grid_stride_copy: `n` = " + std::to_string(n) +
                                " is too large for 32-bit grid-stride indexing with " +
                                std::to_string(blocks) + " blocks");
  if (n == 0) return;
  if (impl == Implementation::TaskScheduled) {
    ts::launch<Manager>(Cfg::kElems == 1 ? "grid_stride_copy" : "grid_stride_copy_vector",
                        grid_stride_copy_ts_kernel<Cfg>, dim3(blocks), stream, src, dst,
                        static_cast<int>(n));
  } else {
    grid_stride_copy_baseline_kernel<Cfg>
        <<<blocks, Manager::num_threads, 0, stream>>>(src, dst, static_cast<int>(n));
    WL_CUDA_CHECK(cudaGetLastError());
  }
}

// The tuning space of the vector variant (TS kernels): items in flight per thread.
using VectorTunings = ts::list<GridStrideCopy<8, 1>, GridStrideCopy<8, 2>, GridStrideCopy<8, 4>,
                               GridStrideCopy<8, 8>>;

}  // namespace

std::vector<std::string> grid_stride_copy_tunings() {
  std::vector<std::string> out;
  [&]<class... Cs>(ts::list<Cs...>) {
    (out.push_back("vector unroll" + std::to_string(Cs::kUnroll)), ...);
  }(VectorTunings{});
  return out;
}

void grid_stride_copy_tuned(int tuning, std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                            cudaStream_t stream) {
  int i = 0;
  bool launched = false;
  [&]<class... Cs>(ts::list<Cs...>) {
    (((i++ == tuning) ? (launch_variant<Cs>(Implementation::TaskScheduled, src, dst, n, 0, stream),
                         launched = true)
                      : false),
     ...);
  }(VectorTunings{});
  if (!launched)
    throw std::invalid_argument("grid_stride_copy_tuned: `tuning` = " + std::to_string(tuning) +
                                " is not in [0, " + std::to_string(i) + ")");
}

std::string_view to_string(GridStrideVariant v) {
  return v == GridStrideVariant::Scalar ? "scalar (1 int16 per item)" : "vector (8 int16 per item)";
}

void grid_stride_copy(GridStrideVariant variant, Implementation impl, std::int16_t const* src,
                      std::int16_t* dst, std::int64_t n, int blocks, cudaStream_t stream) {
  if (n < 0)
    throw std::invalid_argument("grid_stride_copy: `n` = " + std::to_string(n) + " must be >= 0");
  if (n > 0 && (src == nullptr || dst == nullptr))
    throw std::invalid_argument("grid_stride_copy: `src` and `dst` must not be null");
  if (blocks < 0) throw std::invalid_argument("grid_stride_copy: `blocks` must be >= 0");
  if (variant == GridStrideVariant::Scalar)
    return launch_variant<ScalarCopy>(impl, src, dst, n, blocks, stream);
  for (auto [name, p] : {std::pair{"src", static_cast<void const*>(src)},
                         std::pair{"dst", static_cast<void const*>(dst)}})
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      throw std::invalid_argument(std::string("grid_stride_copy: `") + name +
                                  "` must be 16-byte aligned for the vector variant (use "
                                  "GridStrideVariant::Scalar for unaligned data)");
  launch_variant<VectorCopy>(impl, src, dst, n, blocks, stream);
}

ts::ManagerModel grid_stride_copy_model(GridStrideVariant variant) {
  return variant == GridStrideVariant::Scalar
             ? ScalarCopy::Manager::model("grid_stride_copy")
             : VectorCopy::Manager::model("grid_stride_copy_vector");
}

}  // namespace warploom::tutorial
