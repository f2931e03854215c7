// kernels/tutorial/01_grid_stride_copy.cu
//
// Tutorial 01: grid-stride copy — the whole TS vocabulary on the smallest kernel.
//
//     InputGmem ──item──▶ OutputGmem          one task (CopyTask) on every warp of the CTA
//
// Two resources own the two tensors; a consumer work reads an element of the input, a producer
// work writes it to the output, and the value flows between them through the schedule. There is
// no shared memory and no pipeline, so the reserved operations are not needed. The naive kernel at
// the end of the file is the baseline the TS kernel must match.
#include "grid_stride_copy.hpp"

#include <climits>
#include <stdexcept>
#include <string>

#include "warploom/ts/launch.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {
namespace {

// ---- Resources ---------------------------------------------------------------------------------
struct InputGmem {
  static constexpr ts::ResourceSpec spec{.name = "input_gmem"};
  std::int16_t const* src = nullptr;
  int num_entries = 0;
  // Consumer work: reads one element; the loop offset is the element's index.
  __device__ std::int16_t get_item(ts::Consume const& stage) const {
    int const i = stage.loop_offset;
    return i < num_entries ? __ldg(&src[i]) : std::int16_t{0};
  }
};

struct OutputGmem {
  static constexpr ts::ResourceSpec spec{.name = "output_gmem"};
  std::int16_t* dst = nullptr;
  int num_entries = 0;
  // Producer work: writes the element get_item produced.
  __device__ void set_item(ts::Produce const& stage, std::int16_t data) {
    int const i = stage.loop_offset;
    if (i < num_entries) dst[i] = data;
  }
};

// ---- Schedule and task -------------------------------------------------------------------------
struct CopyTask {
  static constexpr ts::TaskSpec spec{.name = "copy", .warp_idx = 0, .num_warps = kGridStrideWarps};
  using src = ts::list<InputGmem>;
  using dst = ts::list<OutputGmem>;
  // The grid-stride loop: each thread starts at its global index and strides by the grid's
  // thread count; `item` flows from the input's consumer work to the output's producer work.
  WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& input, auto& output) {
    int const threads_per_block = kGridStrideWarps * 32;
    int const start = ctx.block_idx() * threads_per_block + ctx.thread_idx();
    int const step = ctx.grid_dim() * threads_per_block;
    ctx.domain_loop(start, input->num_entries, step, ts::unroll<kGridStrideUnroll>, [&](auto&) {
      auto item = ts::work<&InputGmem::get_item>(input);
      ts::work<&OutputGmem::set_item>(output, item);
    });
  }
};

// ---- Dependency graph and TaskManager ------------------------------------------------------------
using Manager = ts::TaskManager<ts::Tasks<CopyTask>, ts::Graph<ts::DependsOn<OutputGmem, InputGmem>>>;

__global__ void __launch_bounds__(Manager::num_threads, 1)
    grid_stride_copy_ts_kernel(std::int16_t const* src, std::int16_t* dst, int n) {
  InputGmem input{.src = src, .num_entries = n};
  OutputGmem output{.dst = dst, .num_entries = n};
  Manager tm(nullptr, input, output);  // no shared memory: nothing to lay out
  auto initialized = tm.setup_resources_and_tasks();
  auto ready = initialized.fence_and_sync_cta();
  ready.run();
}

// ---- Baseline: the seed's naive kernel, with the same unroll -------------------------------------
__global__ void __launch_bounds__(Manager::num_threads, 1)
    grid_stride_copy_baseline_kernel(std::int16_t const* src, std::int16_t* dst, int n) {
  int const threads_per_block = kGridStrideWarps * 32;
  int const gid = static_cast<int>(blockIdx.x) * threads_per_block + static_cast<int>(threadIdx.x);
  int const step = static_cast<int>(gridDim.x) * threads_per_block;
#pragma unroll(kGridStrideUnroll)
  for (int i = gid; i < n; i += step) dst[i] = __ldg(&src[i]);
}

}  // namespace

void grid_stride_copy(Implementation impl, std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                      int blocks, cudaStream_t stream) {
  if (n < 0) throw std::invalid_argument("grid_stride_copy: `n` = " + std::to_string(n) + " must be >= 0");
  if (n > 0 && (src == nullptr || dst == nullptr))
    throw std::invalid_argument("grid_stride_copy: `src` and `dst` must not be null");
  if (blocks < 0) throw std::invalid_argument("grid_stride_copy: `blocks` must be >= 0");
  if (blocks == 0) {
    int device = 0, sms = 0, per_sm = 0;
    WL_CUDA_CHECK(cudaGetDevice(&device));
    WL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    WL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_stride_copy_ts_kernel,
                                                               Manager::num_threads, 0));
    blocks = sms * per_sm;
  }
  // Indices are int (as in the seed); the last stride must not overflow.
  std::int64_t const stride = static_cast<std::int64_t>(blocks) * Manager::num_threads;
  if (n > INT_MAX - stride)
    throw std::invalid_argument("grid_stride_copy: `n` = " + std::to_string(n) +
                                " is too large for 32-bit grid-stride indexing with " +
                                std::to_string(blocks) + " blocks");
  if (n == 0) return;
  if (impl == Implementation::TaskScheduled) {
    ts::launch<Manager>("grid_stride_copy", grid_stride_copy_ts_kernel, dim3(blocks), stream, src, dst,
                        static_cast<int>(n));
  } else {
    grid_stride_copy_baseline_kernel<<<blocks, Manager::num_threads, 0, stream>>>(src, dst, static_cast<int>(n));
    WL_CUDA_CHECK(cudaGetLastError());
  }
}

ts::ManagerModel grid_stride_copy_model() { return Manager::model("grid_stride_copy"); }

}  // namespace warploom::tutorial
