// bench/copy_plans.cpp
#include "copy_plans.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda_fp16.h>

#include "tutorial/grid_stride_copy.hpp"
#include "tutorial/pdl_copy_chain.hpp"
#include "tutorial/tma_copy.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::tutorial {
namespace {

namespace wt = warploom::testing;
using harness::CheckResult;
using harness::Tuning;

constexpr int kCols = 32768;  // fp16 elements per row of the 2-D copies: 64 KiB
constexpr std::int64_t kRowBytes = kCols * static_cast<std::int64_t>(sizeof(__half));

// Copies `bytes` from src to dst on `stream`.
using CopyLaunch =
    std::function<void(void const* src, void* dst, std::int64_t bytes, cudaStream_t stream)>;
// The same with point `point` of a kernel's tuning space.
using TunedLaunch = std::function<void(int point, void const* src, void* dst, std::int64_t bytes,
                                       cudaStream_t stream)>;

// A kernel's tuning space: the names of its compiled points, and how to launch one.
struct TuningSpace {
  std::vector<std::string> points;
  TunedLaunch launch;
};

// `copies`: how many times a launch moves the bytes (a chain of copies through a buffer of its own
// reads and writes them each time).
class CopyPlan final : public harness::KernelPlan {
 public:
  CopyPlan(std::int64_t bytes, CopyLaunch launch, TuningSpace space, int copies)
      : bytes_(bytes), launch_(std::move(launch)), space_(std::move(space)), copies_(copies) {}

  harness::Work work() const override { return {.flops = 0, .bytes = 2.0 * copies_ * bytes_}; }
  std::size_t bytes_per_input_set() const override { return 2 * static_cast<std::size_t>(bytes_); }

  // The default launch, then every compiled point ({"point": its name}).
  std::vector<Tuning> tuning_space() const override {
    std::vector<Tuning> space = {Tuning{}};
    for (std::string const& p : space_.points) space.push_back({{"point", p}});
    return space;
  }

  void prepare(int input_sets, std::uint64_t seed) override {
    src_.clear();
    dst_.clear();
    for (int i = 0; i < input_sets; ++i) {
      src_.emplace_back(static_cast<std::size_t>(bytes_));
      dst_.emplace_back(static_cast<std::size_t>(bytes_));
      wt::fill_random(src_.back().get(), static_cast<std::size_t>(bytes_), seed + i);
    }
  }

  void run(int input_set, Tuning const& tuning, cudaStream_t stream) override {
    void const* const src = src_.at(input_set).get();
    void* const dst = dst_.at(input_set).get();
    auto const point = tuning.find("point");
    if (point == tuning.end()) return launch_(src, dst, bytes_, stream);
    auto const at = std::find(space_.points.begin(), space_.points.end(), point->second);
    if (at == space_.points.end())
      throw std::invalid_argument("tuning: no point `" + point->second + "` in this copy's space");
    space_.launch(static_cast<int>(at - space_.points.begin()), src, dst, bytes_, stream);
  }

  CheckResult check(Tuning const& tuning) override {
    auto const n = static_cast<std::size_t>(bytes_);
    wt::poison(dst_.at(0).get(), n);
    run(0, tuning, nullptr);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    wt::Comparison const c = wt::compare_bytes(src_[0].get(), dst_[0].get(), n);
    if (c.mismatched_bytes == 0) return {true, std::to_string(n) + " bytes equal"};
    return {false, std::to_string(c.mismatched_bytes) + " of " + std::to_string(n) +
                       " bytes differ, the first at byte " + std::to_string(c.first_mismatch)};
  }

 private:
  std::int64_t bytes_;
  CopyLaunch launch_;
  TuningSpace space_;
  int copies_;
  std::vector<wt::DeviceBuffer> src_, dst_;
};

std::int64_t checked_bytes(harness::Problem const& p) {
  if (p.extents.size() != 1) throw std::invalid_argument("copy: a problem is one extent, bytes");
  std::int64_t const bytes = p.extents[0];
  if (bytes < kRowBytes || bytes % kRowBytes != 0)
    throw std::invalid_argument("bytes = " + std::to_string(bytes) +
                                " must be a positive multiple of 65536 (the 2-D copies move rows "
                                "of 32768 fp16)");
  return bytes;
}

harness::PlanProvider provider(std::string name, std::string description, CopyLaunch launch,
                               TuningSpace space = {}, int copies = 1) {
  return {
      std::move(name), std::move(description),
      [launch = std::move(launch), space = std::move(space), copies](harness::Problem const& p) {
        return std::make_unique<CopyPlan>(checked_bytes(p), launch, space, copies);
      }};
}

CopyLaunch grid_stride(Implementation impl) {
  return [impl](void const* src, void* dst, std::int64_t bytes, cudaStream_t stream) {
    grid_stride_copy(GridStrideVariant::Vector, impl, static_cast<std::int16_t const*>(src),
                     static_cast<std::int16_t*>(dst), bytes / 2, 0, stream);
  };
}

CopyLaunch tma_multistage(Implementation impl) {
  return [impl](void const* src, void* dst, std::int64_t bytes, cudaStream_t stream) {
    tma_copy(TmaCopyVariant::MultiStage, impl, static_cast<__half const*>(src),
             static_cast<__half*>(dst), static_cast<int>(bytes / kRowBytes), kCols, stream);
  };
}

// Tutorial 04's chain src -> b -> dst through a buffer b of its own (made at the first launch, the
// check's, never while a graph is captured), the second copy launched with `order`.
CopyLaunch pdl_chain(ts::StreamOrder order) {
  auto b = std::make_shared<wt::DeviceBuffer>();
  return [order, b](void const* src, void* dst, std::int64_t bytes, cudaStream_t stream) {
    if (b->bytes() < static_cast<std::size_t>(bytes))
      *b = wt::DeviceBuffer(static_cast<std::size_t>(bytes));
    pdl_copy_chain(static_cast<std::int16_t const*>(src), b->as<std::int16_t>(),
                   static_cast<std::int16_t*>(dst), bytes / 2, order, 0, stream);
  };
}

TuningSpace grid_stride_space() {
  return {grid_stride_copy_tunings(),
          [](int point, void const* src, void* dst, std::int64_t bytes, cudaStream_t stream) {
            grid_stride_copy_tuned(point, static_cast<std::int16_t const*>(src),
                                   static_cast<std::int16_t*>(dst), bytes / 2, stream);
          }};
}

TuningSpace tma_space() {
  return {tma_copy_tunings(),
          [](int point, void const* src, void* dst, std::int64_t bytes, cudaStream_t stream) {
            tma_copy_tuned(point, static_cast<__half const*>(src), static_cast<__half*>(dst),
                           static_cast<int>(bytes / kRowBytes), kCols, stream);
          }};
}

}  // namespace

harness::PlanFamily copy_plan_family() {
  constexpr auto kTs = Implementation::TaskScheduled;
  constexpr auto kBase = Implementation::Baseline;
  return {"copy",
          "device-to-device copy of `bytes` (int16 grid-stride, fp16 rows of 64 KiB through TMA)",
          {"bytes"},
          {
              provider("ts_grid_stride", "tutorial 01, TS, 16-byte items", grid_stride(kTs),
                       grid_stride_space()),
              provider("baseline_grid_stride", "tutorial 01, hand-written, 16-byte items",
                       grid_stride(kBase)),
              provider("ts_tma", "tutorial 02, TS, 4-stage TMA pipeline", tma_multistage(kTs),
                       tma_space()),
              provider("baseline_tma", "tutorial 02, hand-written, 4-stage TMA pipeline",
                       tma_multistage(kBase)),
              // The pair PDL is measured by: the same two copies, the second after the first
              // finished or launched while it runs; the time between them is the difference.
              provider("ts_chain", "tutorial 04, TS: two copies through a buffer, plain launches",
                       pdl_chain(ts::StreamOrder::Serial), {}, 2),
              provider("ts_chain_pdl",
                       "tutorial 04, TS: the same, the second a programmatic dependent launch",
                       pdl_chain(ts::StreamOrder::Programmatic), {}, 2),
              provider("cudaMemcpy", "cudaMemcpyAsync device to device",
                       [](void const* src, void* dst, std::int64_t bytes, cudaStream_t stream) {
                         WL_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(bytes),
                                                       cudaMemcpyDeviceToDevice, stream));
                       }),
          }};
}

}  // namespace warploom::tutorial
