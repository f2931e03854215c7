// warploom/ops/grouped_gemm.hpp — ops::GroupedGemm: many GEMMs of one plan's types and layouts in
// one call (seed 002's GroupedGemm; issue 16).
//
//   ops::GroupedGemm grouped(ScalarType::F16, MatrixLayout::RowMajor);
//   std::vector<ops::GemmGroup> groups = {{a0, b0, {}, d0}, {a1, b1, {}, d1}};  // any M, N, K each
//   grouped.run(groups, /*alpha=*/1.0f, /*beta=*/0.0f, stream);
//   gemm::PreparedGroupedGemm const step = grouped.prepare(groups);  // checked and set up once
//   step.run(stream);                                                 // the grouped kernel alone
//
// Each group is a GEMM of its own extents, strides and tensors, in the types and layouts the plan
// was made for (GemmOptions, as ops::Gemm), with the plan's epilogue. Every group is checked before
// anything is enqueued, and a refusal names the group's index and the argument (`groups[3].b`),
// with ops::Gemm's rule and exception type; a group whose D is empty (no rows or no columns: an
// expert that got no tokens) computes nothing and is skipped.
//
// How it runs: gemm::grouped_gemm — the groups the tensor cores run (the plan's TensorOp types and
// layouts, one batch each) in one launch of the sm90 grouped kernel, persistent CTAs walking the
// tiles of all of them (its design the compiled tile description's, else
// gemm::selected_grouped_tuning's: ping-pong at short K, cooperative at long K; 1x1 clusters); a
// SIMT plan's groups one GEMM each. No synchronisation: a CUDA graph captures it. Each run's
// kernel parameters live in a device workspace: the library's pool's, or the caller's
// (GroupedWorkspace).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"
#include "warploom/ops/gemm.hpp"
#include "warploom/ops/tensor.hpp"
#include "warploom/prepared_grouped_gemm.hpp"

namespace warploom::ops {

// One group: D = epilogue(alpha * A . B + beta * C), A M x K, B K x N, C and D M x N. `c` may be
// empty when beta == 0.
struct GemmGroup {
  TensorView a, b, c, d;
};

// Device memory for a run's workspace (gemm::grouped_gemm's): each group's kernel parameters, its
// TMA descriptors among them, written on the device. Empty (the default): taken on the run's
// stream from the library's pool, which a captured CUDA graph records as an allocation node and a
// free node. Given: GroupedGemm::workspace_bytes(groups) bytes or more, 128-byte aligned, in device
// memory, sharing no byte with any operand, used by nothing else while the run runs on its stream
// (a framework's allocator; torch's gives a captured graph memory of the graph's own pool).
struct GroupedWorkspace {
  void* data = nullptr;
  std::size_t bytes = 0;
};

class GroupedGemm {
 public:
  // The bytes of workspace a run of `groups` groups (experts, for the MoE layouts) needs:
  // gemm::grouped_gemm_workspace_bytes.
  static std::size_t workspace_bytes(std::size_t groups);

  explicit GroupedGemm(GemmOptions const& options);
  GroupedGemm(ScalarType element, MatrixLayout layout, std::optional<Arch> arch = std::nullopt);

  // The plan every group runs with: its types, operator class, epilogue and tile description
  // (set them here: grouped.plan().set_activation(Activation::ReLU)).
  Gemm& plan() { return plan_; }
  Gemm const& plan() const { return plan_; }
  // e.g. "GroupedGemm of Gemm fp16 x fp16 -> fp16 (...)".
  std::string describe() const;
  // How a launch's CTAs take their tiles (gemm::TileScheduling): Auto (gemm::
  // selected_grouped_tuning's choice: the dynamic scheduler for 16-bit plain plans), Static, or
  // Dynamic — a scheduler warp per CTA takes the next tile from a counter when the CTA is ready
  // for it (a plan compiled for ping-pong takes a pair of tiles at a time, one per warpgroup).
  // Throws std::invalid_argument for a value out of range.
  void set_tile_scheduling(gemm::TileScheduling s);
  gemm::TileScheduling tile_scheduling() const { return tile_scheduling_; }

  // Enqueues every non-empty group on `stream` and returns (asynchronous), after checking all of
  // them: nothing is enqueued when one is refused.
  void run(std::span<GemmGroup const> groups, float alpha = 1.0f, float beta = 0.0f,
           cudaStream_t stream = nullptr, GroupedWorkspace workspace = {}) const;
  // run()'s groups checked as run() checks them (the same errors, named `GroupedGemm.prepare`)
  // and set up once on `stream` (gemm::prepare_grouped_gemm, which waits for it): each run() of
  // the result is the grouped kernel alone, with no per-group work on the host. The groups'
  // tensors must stay where they are while it is used (their contents may change between runs);
  // runs of it must not overlap. `workspace`: empty, one it allocates and frees; else as run()'s,
  // and kept for it.
  gemm::PreparedGroupedGemm prepare(std::span<GemmGroup const> groups, float alpha = 1.0f,
                                    float beta = 0.0f, cudaStream_t stream = nullptr,
                                    GroupedWorkspace workspace = {}) const;
  // The gemm() arguments of each non-empty group (in order; the index of each among `groups` in
  // `index`), checked as run() checks them, without a device.
  struct Arguments {
    std::vector<GemmArguments> args;
    std::vector<std::size_t> index;
  };

  // An MoE layer in the masked layout (gemm::grouped_gemm_masked, DeepGEMM's): `a`, `d` (and `c`)
  // batched views of G experts (G x M x K, G x M x N), `b` batched (G x K x N) or one matrix for
  // all; expert g computes and writes its first valid_m[g] rows only, `valid_m` G int32 counts in
  // device memory read when the kernel runs (one captured CUDA graph serves every routing; counts
  // are clamped to [0, M]). Checked as run() checks one batched problem, then as
  // grouped_gemm_masked checks; errors name the argument. Asynchronous on `stream`.
  Arguments arguments(std::span<GemmGroup const> groups, float alpha = 1.0f,
                      float beta = 0.0f) const;
  void run_masked(TensorView const& a, TensorView const& b, TensorView const& c,
                  TensorView const& d, int const* valid_m, float alpha = 1.0f, float beta = 0.0f,
                  cudaStream_t stream = nullptr, GroupedWorkspace workspace = {}) const;
  // An MoE layer in the contiguous layout (gemm::grouped_gemm_contiguous; DeepGEMM's, and
  // torch._grouped_mm's `offs`): `a` (M x K), `d` (and `c`, M x N) every expert's rows stacked,
  // `b` batched with one K x N matrix per expert (G of them; a batch stride of 0 shares one),
  // `row_ends` G int32 cumulative row ends in device memory, read when the kernel runs: expert g
  // computes rows [row_ends[g - 1], row_ends[g]) (one captured CUDA graph serves every routing).
  // Checked as run() checks the stacked problem, then as grouped_gemm_contiguous checks; errors
  // name the argument. Asynchronous on `stream`.
  void run_contiguous(TensorView const& a, TensorView const& b, TensorView const& c,
                      TensorView const& d, int const* row_ends, float alpha = 1.0f,
                      float beta = 0.0f, cudaStream_t stream = nullptr,
                      GroupedWorkspace workspace = {}) const;

 private:
  // Every non-empty group checked as run() checks it, refusals named by `who`.
  Arguments run_arguments(std::span<GemmGroup const> groups, float alpha, float beta,
                          std::string_view who) const;
  // The plan's tuning with this launch's tile scheduling.
  gemm::GemmTuning run_tuning() const;

  Gemm plan_;
  gemm::TileScheduling tile_scheduling_ = gemm::TileScheduling::Auto;
};

}  // namespace warploom::ops
