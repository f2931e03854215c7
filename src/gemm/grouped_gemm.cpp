// src/gemm/grouped_gemm.cpp — gemm::grouped_gemm (warploom/gemm.hpp): every group checked as gemm()
// checks one, then one grouped-kernel launch per configuration and gemm() for the rest.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "kernel_arguments.hpp"
#include "sm90_instances.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"
#include "warploom/prepared_grouped_gemm.hpp"
#include "workspace.hpp"

namespace warploom::gemm {
namespace {

// The groups of one grouped-kernel configuration, as its launcher takes them.
struct Launch {
  sm90::KernelConfig config;
  GemmTuning tuning;
  std::vector<GemmArguments> groups;  // resolved, row-major D
  std::vector<int const*> valid_m;    // empty, or each group's device count of valid rows
  std::vector<std::size_t> index;     // each group's place among the caller's
  std::int64_t tiles = 0;             // their output tiles of 64 x 64
};

// The grouped kernel's configuration for resolved, row-major-D arguments `r`, or none for a group
// it does not run (the SIMT kernel's, several batches, an fp8 D with its scale and amax).
// `tuning`'s design is resolved (selected_grouped_tuning).
bool grouped_config(GemmArguments const& r, GemmKernel kernel, GemmTuning const& tuning,
                    Launch& out) {
  if (kernel != GemmKernel::TensorCore || r.batch != 1 || is_fp8(r.d_type)) return false;
  out.tuning = tuning;
  out.tuning.kernel = GemmKernel::TensorCore;
  out.tuning.cluster_m = out.tuning.cluster_n = 1;
  out.config = sm90::config_of(r, out.tuning, /*grouped=*/true);
  return true;
}

// gemm()'s checks of `tuning`, and split-K refused by name: the grouped kernel runs each group's
// tiles whole (split-K is gemm()'s, for one matrix), and a split asked for must not be ignored.
void check_grouped_tuning(GemmTuning const& tuning, std::string_view who) {
  check_tuning(tuning);
  if (tuning.split_k > 1)
    throw std::invalid_argument(fmt::format(
        "{}: tuning.split_k = {}: the grouped kernel does not split K (split-K runs one matrix, "
        "through gemm()); leave it 0 (Auto) or 1",
        who, tuning.split_k));
  if (tuning.tile_n != 0)
    throw std::invalid_argument(fmt::format(
        "{}: tuning.tile_n = {}: the grouped kernel runs its design's tile (narrow tiles are "
        "gemm()'s, for outputs too small to fill the SMs); leave it 0",
        who, tuning.tile_n));
  if (tuning.tile_scheduling == TileScheduling::StreamK)
    throw std::invalid_argument(fmt::format(
        "{}: tuning.tile_scheduling = stream-k: stream-K cuts the tiles of one matrix (gemm()); "
        "the grouped kernel takes auto, static or dynamic",
        who));
}

// gemm()'s checks of `args` for a layout only the tensor cores run (`layout`: its name in the
// message), then the driver's verdicts on its pointers and on the layout's own device array `name`
// at `array`: the checked, resolved arguments, or `refuse` (which throws) with gemm()'s message.
template <class Refuse>
GemmArguments tensor_core_arguments(GemmArguments const& args, GemmTuning const& tuning,
                                    std::string_view layout, char const* name, void const* array,
                                    Refuse const& refuse) {
  try {
    GemmKernel const kernel =
        tuning.kernel == GemmKernel::Auto ? selected_kernel(args) : tuning.kernel;
    if (kernel != GemmKernel::TensorCore)
      throw std::invalid_argument(fmt::format(
          "the problem is one only the SIMT GEMM runs (gemm()'s tensor-core rules: fp16, bf16 or "
          "fp8 inputs, 16-byte aligned rows), and the {} layout runs on the tensor cores",
          layout));
    GemmArguments const r = kernel_arguments(args, kernel);
    check_device_pointers(args);
    check_device_pointer(name, array);
    return r;
  } catch (std::invalid_argument const& e) {
    refuse(e.what());
  }
  throw std::logic_error("grouped_gemm: internal error: refuse returned");
}

// The number of groups `launches` run together.
std::size_t groups_in(std::span<Launch const> launches) {
  std::size_t groups = 0;
  for (Launch const& l : launches) groups += l.groups.size();
  return groups;
}

// Runs `launches` (every group checked; `steps` of each, sm90::GroupedSteps) on one workspace:
// `workspace` as the caller gave it — null: taken on `stream` from the library's pool; else checked
// (grouped_gemm's rules, errors prefixed by `who`, an overlap with launch l's group j by
// group_prefix(l, j)) — each launch its share, in order. `row_ends`: the contiguous layout's.
void launch_all(std::span<Launch const> launches, int const* row_ends, void* workspace,
                std::size_t workspace_bytes, std::string_view who, cudaStream_t stream,
                std::function<std::string(std::size_t, std::size_t)> const& group_prefix,
                sm90::GroupedSteps steps = sm90::GroupedSteps::SetUpAndRun) {
  std::size_t const groups = groups_in(launches);
  if (groups == 0) return;
  std::size_t const needed = grouped_gemm_workspace_bytes(groups);
  std::optional<StreamWorkspace> pooled;
  if (workspace == nullptr) {
    workspace = pooled.emplace(needed, stream).get();
  } else {
    auto const refuse = [&](std::string_view what) {
      throw std::invalid_argument(fmt::format("{}: {}", who, what));
    };
    if (workspace_bytes < needed)
      refuse(
          fmt::format("workspace_bytes = {} is less than the {} bytes {} groups need "
                      "(grouped_gemm_workspace_bytes), or leave workspace null for the "
                      "library's pool",
                      workspace_bytes, needed, groups));
    if (reinterpret_cast<std::uintptr_t>(workspace) % sm90::kGroupedWorkspaceAlignment != 0)
      refuse(
          fmt::format("workspace = {} is not {}-byte aligned: the groups' TMA descriptors "
                      "live in it",
                      workspace, sm90::kGroupedWorkspaceAlignment));
    try {
      check_device_pointer("workspace", workspace);
    } catch (std::invalid_argument const& e) {
      refuse(e.what());
    }
    for (std::size_t l = 0; l < launches.size(); ++l)
      for (std::size_t j = 0; j < launches[l].groups.size(); ++j) {
        try {
          check_workspace_outside(launches[l].groups[j], workspace, needed);
        } catch (std::invalid_argument const& e) {
          throw std::invalid_argument(group_prefix(l, j) + e.what());
        }
      }
  }
  auto* share = static_cast<char*>(workspace);
  for (Launch const& l : launches) {
    sm90::grouped_instance_for(l.config)(l.groups, l.valid_m, row_ends, l.tuning, share, steps,
                                         stream);
    share += grouped_gemm_workspace_bytes(l.groups.size());
  }
}

}  // namespace

std::size_t grouped_gemm_workspace_bytes(std::size_t groups) {
  if (groups > SIZE_MAX / sm90::kGroupedWorkspaceBytesPerGroup)
    throw std::invalid_argument(
        fmt::format("grouped_gemm_workspace_bytes: groups = {} overflows the byte count", groups));
  return groups * sm90::kGroupedWorkspaceBytesPerGroup;
}

// A launch's groups whose output tiles run this many K on average (or more) take the cooperative
// kernel over the static walk when the design is left to us; see selected_grouped_tuning.
constexpr double kGroupedLongK = 2048;

// Measured on the H200, captured graphs back to back, contenders interleaved per round:
// - The dynamic tile scheduler (cooperative) against the static walk (2026-12-03, 38d5030,
//   bench/results/grouped_dynamic_2026-12-03/): the seed's 50 fp16 problems 36.1 us against
//   37.2 (ping-pong, the static walk's choice there) and CUTLASS's grouped kernel 37.2; the MoE
//   layer (16 experts, K = N = 4096, bf16) 1051.6 us against 1096.5 (cooperative, static) and
//   CUTLASS's 1031.9. Per clock (ncu) the MoE layer 1.411 M cycles against 1.461 M, the seed
//   level (54.5 K against 54.1 K; CUTLASS 61.9 K). Auto takes it where its GPU tests ran it: 16-bit
//   inputs, the plain epilogue, the design's default shape, and design Auto or Cooperative.
// - The static walk's designs (7a13b03, the MoE layer of bench/python/grouped.py): cooperative
//   1128 us, with 3 stages 1144, ping-pong 1251 (torch's _grouped_mm 1116). At long K each tile's
//   main loop is long enough that ping-pong's hidden epilogue buys less than the 128 x 256 tile's
//   operand reuse; at the seed's short K (128 to 1024) a tile's epilogue outlasts its main loop
//   and ping-pong hides it behind the other warpgroup's. The K that decides is the mean over
//   output tiles (a large group weighs more than a small one). An epilogue with a second pass
//   takes ping-pong, as gemm()'s selected_design explains.
GemmTuning selected_grouped_tuning(GemmArguments const* groups, std::size_t count,
                                   GemmTuning tuning) {
  double tiles = 0, tile_k = 0;
  bool second_pass = false, fused = false, sixteen_bit = true;
  for (GemmArguments const& g : std::span(groups, count)) {
    if (g.m <= 0 || g.n <= 0 || g.k <= 0) continue;  // refused, or no tile, later
    // Output tiles of 128 x 128 (the smaller design's): a weight, not a count the kernel uses.
    double const t = std::ceil(g.m / 128.0) * std::ceil(g.n / 128.0) * std::max(g.batch, 1);
    tiles += t;
    tile_k += t * static_cast<double>(g.k);
    GemmEpilogue const& e = g.epilogue;
    second_pass = second_pass || e.activation != Activation::Identity ||
                  e.residual.data != nullptr || e.pre_activation.data != nullptr;
    fused = fused || second_pass || e.bias != nullptr || e.row_scale != nullptr ||
            e.col_scale != nullptr;
    sixteen_bit = sixteen_bit && (g.a.type == ScalarType::F16 || g.a.type == ScalarType::BF16);
  }
  // The dynamic scheduler's one verified shape: the cooperative design's defaults.
  sm90::DesignShape const coop = sm90::design_shape(ConsumerDesign::Cooperative);
  bool const default_shape =
      (tuning.stages == 0 || tuning.stages == coop.stages) &&
      (tuning.staging_buffers == 0 || tuning.staging_buffers == coop.staging_buffers);
  if (tuning.tile_scheduling == TileScheduling::Auto) {
    bool const dynamic =
        sixteen_bit && !fused && default_shape && tuning.design != ConsumerDesign::PingPong;
    tuning.tile_scheduling = dynamic ? TileScheduling::Dynamic : TileScheduling::Static;
  }
  if (tuning.design != ConsumerDesign::Auto) return tuning;
  if (tuning.tile_scheduling == TileScheduling::Dynamic) {  // measured: cooperative (above)
    tuning.design = ConsumerDesign::Cooperative;
    return tuning;
  }
  bool const long_k = tiles > 0 && tile_k / tiles >= kGroupedLongK;
  tuning.design = long_k && !second_pass ? ConsumerDesign::Cooperative : ConsumerDesign::PingPong;
  return tuning;
}

namespace {

// What a grouped call runs: its groups checked (a refusal of group i prefixed with group_name(i)),
// in one launch of the grouped kernel per configuration, and the groups it does not run (gemm()'s,
// one each) with the tuning they run with.
struct GroupedPlan {
  std::vector<Launch> launches;
  std::vector<std::size_t> singles;
  GemmTuning single;
};

GroupedPlan grouped_plan(std::span<GemmArguments const> all, GemmTuning const& tuning,
                         std::function<std::string(std::size_t)> const& group_name,
                         std::string_view who) {
  // Named by its group: an error of group i's arguments.
  auto const for_group = [&](std::size_t i, auto&& check) {
    try {
      check();
    } catch (std::invalid_argument const& e) {
      throw std::invalid_argument(group_name(i) + e.what());
    }
  };
  GemmTuning const resolved = selected_grouped_tuning(all.data(), all.size(), tuning);
  GroupedPlan plan;
  for (std::size_t i = 0; i < all.size(); ++i) {
    for_group(i, [&] {
      // An asked-for kernel needs no selection: kernel_arguments checks the group for it.
      GemmKernel const kernel =
          tuning.kernel == GemmKernel::Auto ? selected_kernel(all[i]) : tuning.kernel;
      GemmArguments const r = kernel_arguments(all[i], kernel);
      if (all[i].workspace != nullptr)
        throw std::invalid_argument(
            fmt::format("workspace = {}: a group takes no workspace of its own; the call's is {}'s "
                        "workspace argument",
                        all[i].workspace, who));
      Launch candidate;
      if (!grouped_config(r, kernel, resolved, candidate)) {
        plan.singles.push_back(i);
        return;
      }
      auto it = plan.launches.begin();
      while (it != plan.launches.end() && !(it->config == candidate.config)) ++it;
      if (it == plan.launches.end()) it = plan.launches.insert(it, std::move(candidate));
      it->groups.push_back(r);
      it->index.push_back(i);
      it->tiles += tiles_of_64(r.m, r.n);
      if (it->tiles > kMaxTiles)
        throw std::invalid_argument(fmt::format(
            "the groups up to this one make {} output tiles of 64 x 64 in one launch of the "
            "grouped kernel, more than 2^30: it counts the tiles of all its groups in 32 bits "
            "(split the groups over several calls)",
            it->tiles));
    });
  }
  // The driver's verdicts on the pointers last: every argument is known good by then.
  for (std::size_t i = 0; i < all.size(); ++i) for_group(i, [&] { check_device_pointers(all[i]); });
  // A group the grouped kernel does not run is one gemm(), whose tiles walk in a static order.
  plan.single = tuning;
  plan.single.tile_scheduling = TileScheduling::Auto;
  return plan;
}

}  // namespace

void grouped_gemm_named(std::span<GemmArguments const> all, cudaStream_t stream,
                        GemmTuning const& tuning,
                        std::function<std::string(std::size_t)> const& group_name, void* workspace,
                        std::size_t workspace_bytes, std::string_view who) {
  GroupedPlan const plan = grouped_plan(all, tuning, group_name, who);
  // Every group checked: none is enqueued before all are known good.
  launch_all(plan.launches, nullptr, workspace, workspace_bytes, who, stream,
             [&](std::size_t l, std::size_t j) { return group_name(plan.launches[l].index[j]); });
  for (std::size_t i : plan.singles) gemm(all[i], stream, plan.single);
}

// A prepared grouped GEMM's runs: each launch's groups, its launcher and its share of the
// workspace (the Run step), and the groups gemm() runs.
struct PreparedGroupedGemm::State {
  struct GroupedRun {
    sm90::GroupedLaunchFn launch;
    std::vector<GemmArguments> groups;
    GemmTuning tuning;
    void* share;
  };
  std::vector<GroupedRun> grouped;
  std::vector<GemmArguments> singles;
  GemmTuning single;
  int device = -1;
  void* owned = nullptr;  // the workspace, where prepare_grouped_gemm allocated it

  ~State() {
    if (owned != nullptr) (void)cudaFree(owned);  // no throw from a destructor; nothing to report
  }
};

PreparedGroupedGemm::PreparedGroupedGemm() = default;
PreparedGroupedGemm::PreparedGroupedGemm(std::unique_ptr<State> state) : state_(std::move(state)) {}
PreparedGroupedGemm::~PreparedGroupedGemm() = default;
PreparedGroupedGemm::PreparedGroupedGemm(PreparedGroupedGemm&&) noexcept = default;
PreparedGroupedGemm& PreparedGroupedGemm::operator=(PreparedGroupedGemm&&) noexcept = default;

void PreparedGroupedGemm::run(cudaStream_t stream) const {
  if (state_ == nullptr) return;
  int device = -1;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  if (device != state_->device)
    throw std::invalid_argument(fmt::format(
        "PreparedGroupedGemm.run: the current device is {}, and the groups were prepared on device "
        "{} (their kernel parameters and tensors live there): make it current",
        device, state_->device));
  for (State::GroupedRun const& g : state_->grouped)
    g.launch(g.groups, {}, nullptr, g.tuning, g.share, sm90::GroupedSteps::Run, stream);
  for (GemmArguments const& a : state_->singles) gemm(a, stream, state_->single);
}

std::size_t PreparedGroupedGemm::groups() const {
  if (state_ == nullptr) return 0;
  std::size_t groups = state_->singles.size();
  for (State::GroupedRun const& g : state_->grouped) groups += g.groups.size();
  return groups;
}

std::size_t PreparedGroupedGemm::grouped_launches() const {
  return state_ == nullptr ? 0 : state_->grouped.size();
}

PreparedGroupedGemm prepare_grouped_gemm_named(
    std::span<GemmArguments const> all, cudaStream_t stream, GemmTuning const& tuning,
    std::function<std::string(std::size_t)> const& group_name, void* workspace,
    std::size_t workspace_bytes, std::string_view who) {
  // First: the checks below ask the driver about pointers, which a capture may not allow. Without
  // a device there is no capture, and the checks name what is wrong (a group, or the device).
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError();
    capture = cudaStreamCaptureStatusNone;
  }
  if (capture != cudaStreamCaptureStatusNone)
    throw std::invalid_argument(fmt::format(
        "{}: stream is capturing a CUDA graph: preparing sets the groups up once and waits for "
        "it; prepare before the capture and capture the prepared GEMM's run()",
        who));
  GroupedPlan plan = grouped_plan(all, tuning, group_name, who);
  auto state = std::make_unique<PreparedGroupedGemm::State>();
  WL_CUDA_CHECK(cudaGetDevice(&state->device));
  std::size_t const groups = groups_in(plan.launches);
  if (groups > 0 && workspace == nullptr) {
    workspace_bytes = grouped_gemm_workspace_bytes(groups);
    WL_CUDA_CHECK(cudaMalloc(&state->owned, workspace_bytes));
    workspace = state->owned;
  }
  launch_all(
      plan.launches, nullptr, workspace, workspace_bytes, who, stream,
      [&](std::size_t l, std::size_t j) { return group_name(plan.launches[l].index[j]); },
      sm90::GroupedSteps::SetUp);
  // The setup finished before a run on any stream reads what it wrote.
  WL_CUDA_CHECK(cudaStreamSynchronize(stream));
  auto* share = static_cast<char*>(workspace);
  for (Launch& l : plan.launches) {
    state->grouped.push_back({.launch = sm90::grouped_instance_for(l.config),
                              .groups = std::move(l.groups),
                              .tuning = l.tuning,
                              .share = share});
    share += grouped_gemm_workspace_bytes(state->grouped.back().groups.size());
  }
  for (std::size_t i : plan.singles) state->singles.push_back(all[i]);
  state->single = plan.single;
  return PreparedGroupedGemm(std::move(state));
}

PreparedGroupedGemm prepare_grouped_gemm(GemmArguments const* groups, std::size_t count,
                                         cudaStream_t stream, GemmTuning tuning, void* workspace,
                                         std::size_t workspace_bytes) {
  check_grouped_tuning(tuning, "prepare_grouped_gemm");
  if (count > 0 && groups == nullptr)
    throw std::invalid_argument(fmt::format(
        "prepare_grouped_gemm: groups is null with count = {}: give count groups", count));
  return prepare_grouped_gemm_named(
      {groups, count}, stream, tuning,
      [](std::size_t i) { return fmt::format("prepare_grouped_gemm: groups[{}]: ", i); }, workspace,
      workspace_bytes, "prepare_grouped_gemm");
}

void grouped_gemm(GemmArguments const* groups, std::size_t count, cudaStream_t stream,
                  GemmTuning tuning, void* workspace, std::size_t workspace_bytes) {
  check_grouped_tuning(tuning, "grouped_gemm");
  if (count > 0 && groups == nullptr)
    throw std::invalid_argument(
        fmt::format("grouped_gemm: groups is null with count = {}: give count groups", count));
  grouped_gemm_named(
      {groups, count}, stream, tuning,
      [](std::size_t i) { return fmt::format("grouped_gemm: groups[{}]: ", i); }, workspace,
      workspace_bytes, "grouped_gemm");
}

void grouped_gemm_masked(GemmArguments const& args, int const* valid_m, cudaStream_t stream,
                         GemmTuning tuning) {
  check_grouped_tuning(tuning, "grouped_gemm_masked");
  auto const refuse = [](std::string const& why) {
    throw std::invalid_argument("grouped_gemm_masked: " + why);
  };
  if (valid_m == nullptr)
    refuse(
        fmt::format("valid_m is null: give batch = {} int32 counts of valid rows in device "
                    "memory",
                    args.batch));
  if (reinterpret_cast<std::uintptr_t>(valid_m) % alignof(int) != 0)
    refuse("valid_m is not 4-byte aligned: it holds int32 counts");
  // The counts are of D's rows, which the kernel's tiles walk: a column-major D would be run as
  // its transpose (rows become columns).
  if (args.d_layout != MatrixLayout::RowMajor)
    refuse("d_layout is column-major: valid_m counts rows of D, which must be row-major");
  if (args.epilogue.residual.data != nullptr || args.epilogue.pre_activation.data != nullptr)
    refuse(
        "a residual or pre-activation tensor is not taken in the masked layout yet (bias, "
        "scales and activations are)");
  GemmArguments const r = tensor_core_arguments(args, tuning, "masked", "valid_m", valid_m, refuse);
  GemmKernel const kernel = GemmKernel::TensorCore;
  if (is_fp8(r.d_type))
    refuse("an fp8 D (its amax spans the batch) is not taken in the masked layout");
  // The configuration of one group (one batch; the tensor cores; no fp8 D: it is one).
  GemmArguments one_batch = r;
  one_batch.batch = 1;
  Launch launch;
  (void)grouped_config(one_batch, kernel, selected_grouped_tuning(&one_batch, 1, tuning), launch);
  // Group g: batch g of every batched operand (a batch stride of 0 shares one matrix), M rows of
  // which the kernel reads valid_m[g].
  auto const at = [](void const* base, ScalarType t, std::int64_t stride, int g) {
    return static_cast<char const*>(base) + stride * g * size_of(t);
  };
  for (int g = 0; g < r.batch; ++g) {
    GemmArguments one = one_batch;
    one.a.data = at(r.a.data, r.a.type, r.a.batch_stride, g);
    one.b.data = at(r.b.data, r.b.type, r.b.batch_stride, g);
    if (r.c.data != nullptr) one.c.data = at(r.c.data, r.c.type, r.c.batch_stride, g);
    one.d = const_cast<char*>(at(r.d, r.d_type, r.batch_stride_d, g));
    launch.groups.push_back(one);
    launch.valid_m.push_back(valid_m + g);
    launch.tiles += tiles_of_64(r.m, r.n);
  }
  if (launch.tiles > kMaxTiles)
    refuse(
        fmt::format("its {} batches of {} x {} make {} output tiles of 64 x 64, more than 2^30: "
                    "the grouped kernel counts its tiles in 32 bits",
                    r.batch, r.m, r.n, launch.tiles));
  launch_all({&launch, 1}, nullptr, args.workspace, args.workspace_bytes, "grouped_gemm_masked",
             stream, [](std::size_t, std::size_t) { return std::string("grouped_gemm_masked: "); });
}

void grouped_gemm_contiguous(GemmArguments const& args, int groups, int const* row_ends,
                             cudaStream_t stream, GemmTuning tuning) {
  check_grouped_tuning(tuning, "grouped_gemm_contiguous");
  auto const refuse = [](std::string const& why) {
    throw std::invalid_argument("grouped_gemm_contiguous: " + why);
  };
  if (groups < 1) refuse(fmt::format("groups = {}: give at least one group", groups));
  if (row_ends == nullptr)
    refuse(fmt::format(
        "row_ends is null: give groups = {} int32 cumulative row ends in device memory", groups));
  if (reinterpret_cast<std::uintptr_t>(row_ends) % alignof(int) != 0)
    refuse("row_ends is not 4-byte aligned: it holds int32 row ends");
  if (args.batch != 1)
    refuse(fmt::format(
        "batch = {}: the groups lie along M (group g is rows [row_ends[g - 1], row_ends[g]) of A, "
        "C and D) and B holds one matrix per group, b.batch_stride apart: give batch = 1",
        args.batch));
  // A group's slice starts row_ends[g - 1] rows down A, C and D: rows of A and D (and C) are
  // TMA's (and the threads') units there, so they must be rows, each 16-byte aligned.
  if (args.a.layout != MatrixLayout::RowMajor)
    refuse(
        "a.layout is column-major: a group's rows start at a row offset of A, which must be "
        "row-major (K-major, as an MoE layer's stacked tokens are)");
  if (args.d_layout != MatrixLayout::RowMajor)
    refuse(
        "d_layout is column-major: a group's rows start at a row offset of D, which must be "
        "row-major");
  if (args.c.data != nullptr && args.c.layout != MatrixLayout::RowMajor)
    refuse("c.layout is column-major: C is sliced by rows as D is, and must be row-major");
  GemmEpilogue const& e = args.epilogue;
  if (e.residual.data != nullptr || e.pre_activation.data != nullptr)
    refuse(
        "a residual or pre-activation tensor is not taken in the contiguous layout yet (column "
        "bias, column scales and activations are)");
  if (e.row_scale != nullptr || (e.bias != nullptr && e.bias_broadcast == Broadcast::PerRow))
    refuse(
        "epilogue.row_scale and a per-row bias are not taken in the contiguous layout yet: "
        "their rows would be the stacked rows (column bias and scales are)");
  // The stacked problem (B: group 0's).
  GemmArguments const r =
      tensor_core_arguments(args, tuning, "contiguous", "row_ends", row_ends, refuse);
  GemmKernel const kernel = GemmKernel::TensorCore;
  if (is_fp8(r.d_type))
    refuse("an fp8 D (its amax spans the groups) is not taken in the contiguous layout");
  // B of group g lies g x b.batch_stride elements after group 0's (kPacked: K x N matrices back to
  // back; 0: one B for every group). Each is a TMA base (16-byte aligned) and none may reach past
  // the address space or into D.
  std::int64_t const bytes_b = size_of(r.b.type);
  std::int64_t const one_b = r.b.batch_stride;  // resolved: one packed-or-strided matrix's span
  std::int64_t stride_b = args.b.batch_stride == kPacked ? one_b : args.b.batch_stride;
  if (stride_b < 0)
    refuse(
        fmt::format("b.batch_stride = {} is negative: kPacked ({}), 0 (one B for every group) "
                    "or the elements between two groups' B",
                    stride_b, kPacked));
  bool const b_contiguous_k = r.b.layout == MatrixLayout::ColMajor;
  std::int64_t const b_strided = b_contiguous_k ? r.n : r.k;
  std::int64_t const b_contiguous = b_contiguous_k ? r.k : r.n;
  std::int64_t const b_span = (b_strided - 1) * r.b.ld + b_contiguous;  // elements of one B
  if (stride_b != 0 && stride_b < b_span)
    refuse(
        fmt::format("b.batch_stride = {} is less than one group's B ({} elements: ld {} x {} "
                    "{}): the groups' B would overlap",
                    stride_b, b_span, r.b.ld, b_strided, b_contiguous_k ? "columns" : "rows"));
  if ((stride_b * bytes_b) % 16 != 0)
    refuse(
        fmt::format("b.batch_stride = {} elements of {} bytes is not a multiple of 16 bytes: "
                    "each group's B is a TMA base address",
                    stride_b, bytes_b));
  std::int64_t last_b = 0;  // elements from B's first to past the last group's last
  if (__builtin_mul_overflow(std::int64_t{groups} - 1, stride_b, &last_b) ||
      __builtin_add_overflow(last_b, b_span, &last_b) ||
      __builtin_mul_overflow(last_b, bytes_b, &last_b) ||
      reinterpret_cast<std::uintptr_t>(r.b.data) >
          UINTPTR_MAX - static_cast<std::uintptr_t>(last_b))
    refuse(fmt::format("b.batch_stride = {} over groups = {} reaches past the address space",
                       stride_b, groups));
  auto const first_b = reinterpret_cast<std::uintptr_t>(r.b.data);
  auto const first_d = reinterpret_cast<std::uintptr_t>(r.d);
  auto const last_d =
      first_d + static_cast<std::uintptr_t>(((r.m - 1) * r.ldd + r.n) * size_of(r.d_type));
  if (first_b < last_d && first_d < first_b + static_cast<std::uintptr_t>(last_b))
    refuse(
        fmt::format("d overlaps the B of the groups (b.batch_stride = {} over groups = {}): "
                    "D is written while they are read",
                    stride_b, groups));
  // A launch's tile walk counts tiles in 32 bits: the bound on the groups' tiles (every group may
  // end one partial tile row) must stay within it.
  std::int64_t const tile_bound = (static_cast<std::int64_t>(r.m + 63) / 64 + groups) *
                                  (static_cast<std::int64_t>(r.n + 63) / 64);
  if (tile_bound > kMaxTiles)
    refuse(
        fmt::format("{} rows of {} columns over groups = {} bound {} output tiles of 64 x 64, "
                    "more than 2^30: the grouped kernel counts its tiles in 32 bits",
                    r.m, r.n, groups, tile_bound));
  Launch launch;
  (void)grouped_config(r, kernel, selected_grouped_tuning(&r, 1, tuning), launch);
  // Every group: the whole stacked A, C and D (the setup kernel slices their rows by row_ends) and
  // its own B.
  for (int g = 0; g < groups; ++g) {
    GemmArguments one = r;
    one.b.data = static_cast<char const*>(r.b.data) + stride_b * g * bytes_b;
    launch.groups.push_back(one);
  }
  launch_all({&launch, 1}, row_ends, args.workspace, args.workspace_bytes,
             "grouped_gemm_contiguous", stream,
             [](std::size_t, std::size_t) { return std::string("grouped_gemm_contiguous: "); });
}

}  // namespace warploom::gemm
