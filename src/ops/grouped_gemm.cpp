// src/ops/grouped_gemm.cpp — ops::GroupedGemm (warploom/ops/grouped_gemm.hpp).
#include "warploom/ops/grouped_gemm.hpp"

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "kernel_arguments.hpp"
#include "sm90_instances.hpp"

namespace warploom::ops {
namespace {

bool computes_nothing(GemmGroup const& g) {
  return g.d.rows == 0 || g.d.cols == 0;
}

// Runs `check` for group `i`, a refusal rethrown with the group's index in front of ops::Gemm's
// message (its arguments `a`, `b` ... becoming `groups[i].a` ...), of the same exception type.
template <class Check>
auto for_group(std::size_t i, Check&& check) {
  auto const named = [i](char const* what) {
    std::string message = what;
    // ops::Gemm names an argument as `a`, `b`, `c`, `d`: name the group's.
    for (char const arg : {'a', 'b', 'c', 'd'}) {
      std::string const plain = fmt::format("`{}`", arg);
      std::string const grouped = fmt::format("`groups[{}].{}`", i, arg);
      for (std::size_t at = message.find(plain); at != std::string::npos;
           at = message.find(plain, at + grouped.size()))
        message.replace(at, plain.size(), grouped);
    }
    return fmt::format("GroupedGemm: groups[{}]: {}", i, message);
  };
  try {
    return check();
  } catch (DtypeError const& e) {
    throw DtypeError(named(e.what()));
  } catch (std::invalid_argument const& e) {
    throw std::invalid_argument(named(e.what()));
  }
}

// make(group) for each non-empty group, checked and named by for_group, with its place.
template <class Make>
GroupedGemm::Arguments each_group(std::span<GemmGroup const> groups, Make&& make) {
  GroupedGemm::Arguments out;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (computes_nothing(groups[i])) continue;
    out.args.push_back(for_group(i, [&] { return make(groups[i]); }));
    out.index.push_back(i);
  }
  return out;
}

// The grouped kernel runs each group's tiles whole, in its design's own tile: a plan compiled to
// split K or stream-K, or to a narrow cooperative tile (neither side the design's own width, the
// first of sm90::tile_widths) is refused by name, not run otherwise.
void check_grouped_description(Gemm const& plan, std::string_view who) {
  std::optional<TileDescription> const td = plan.tile_description();
  if (!td) return;
  if (td->scheduler == TileScheduler::SplitK || td->scheduler == TileScheduler::StreamK)
    throw std::invalid_argument(fmt::format(
        "{}: the plan's compiled tile description ({}) cuts K, and the grouped kernel does not: "
        "compile a persistent one",
        who, to_string(*td)));
  int const own = gemm::sm90::tile_widths(gemm::ConsumerDesign::Cooperative).front();
  if (td->design == gemm::ConsumerDesign::Cooperative && td->tile_m != own && td->tile_n != own)
    throw std::invalid_argument(fmt::format(
        "{}: the plan's compiled tile description ({}) is a narrow tile, and the grouped kernel "
        "runs its design's own (cooperative 128x256): compile one of those",
        who, to_string(*td)));
}

}  // namespace

GroupedGemm::GroupedGemm(GemmOptions const& options) : plan_(options) {}

GroupedGemm::GroupedGemm(ScalarType element, MatrixLayout layout, std::optional<Arch> arch)
    : plan_(element, layout, arch) {}

std::string GroupedGemm::describe() const {
  return "GroupedGemm of " + plan_.describe();
}

void GroupedGemm::set_tile_scheduling(gemm::TileScheduling s) {
  int const v = static_cast<int>(s);
  if (v < 0 || v > static_cast<int>(gemm::TileScheduling::StreamK))
    throw std::invalid_argument(fmt::format(
        "GroupedGemm.tile_scheduling = TileScheduling({}) is out of range: the values are auto, "
        "static, dynamic (0 to 2), and stream-k (3), which the grouped kernel does not take",
        v));
  if (s == gemm::TileScheduling::StreamK)
    throw std::invalid_argument(
        "GroupedGemm.tile_scheduling = stream-k: stream-K cuts the tiles of one matrix "
        "(ops::Gemm with a stream-k tile description); a grouped GEMM takes auto, static or "
        "dynamic");
  tile_scheduling_ = s;
}

gemm::GemmTuning GroupedGemm::run_tuning() const {
  gemm::GemmTuning tuning = plan_.run_tuning();
  tuning.tile_scheduling = tile_scheduling_;
  return tuning;
}

GroupedGemm::Arguments GroupedGemm::arguments(std::span<GemmGroup const> groups, float alpha,
                                              float beta) const {
  return each_group(
      groups, [&](GemmGroup const& g) { return plan_.arguments(g.a, g.b, g.c, g.d, alpha, beta); });
}

std::size_t GroupedGemm::workspace_bytes(std::size_t groups) {
  return gemm::grouped_gemm_workspace_bytes(groups);
}

GroupedGemm::Arguments GroupedGemm::run_arguments(std::span<GemmGroup const> groups, float alpha,
                                                  float beta, std::string_view who) const {
  // Every group checked as the plan's run() checks one (the current device included), before any
  // is enqueued. Without a device that can run the plan, a bad group is still named first (it is
  // the more specific error), then the device.
  check_grouped_description(plan_, who);
  try {
    plan_.check_run_device();
  } catch (std::invalid_argument const&) {
    (void)arguments(groups, alpha, beta);
    throw;
  }
  return each_group(groups, [&](GemmGroup const& g) {
    return plan_.run_arguments(g.a, g.b, g.c, g.d, alpha, beta);
  });
}

void GroupedGemm::run(std::span<GemmGroup const> groups, float alpha, float beta,
                      cudaStream_t stream, GroupedWorkspace workspace) const {
  Arguments const checked = run_arguments(groups, alpha, beta, "GroupedGemm.run");
  // What is left to refuse (a host pointer, too many tiles for one launch) is named by the group's
  // place among `groups`, as the plan's own run() words it; then gemm::grouped_gemm launches them
  // together.
  gemm::grouped_gemm_named(
      checked.args, stream, run_tuning(),
      [&](std::size_t j) {
        return fmt::format("GroupedGemm: groups[{}]: Gemm.run: ", checked.index[j]);
      },
      workspace.data, workspace.bytes, "GroupedGemm.run");
}

gemm::PreparedGroupedGemm GroupedGemm::prepare(std::span<GemmGroup const> groups, float alpha,
                                               float beta, cudaStream_t stream,
                                               GroupedWorkspace workspace) const {
  Arguments const checked = run_arguments(groups, alpha, beta, "GroupedGemm.prepare");
  return gemm::prepare_grouped_gemm_named(
      checked.args, stream, run_tuning(),
      [&](std::size_t j) {
        return fmt::format("GroupedGemm: groups[{}]: GroupedGemm.prepare: ", checked.index[j]);
      },
      workspace.data, workspace.bytes, "GroupedGemm.prepare");
}

void GroupedGemm::run_masked(TensorView const& a, TensorView const& b, TensorView const& c,
                             TensorView const& d, int const* valid_m, float alpha, float beta,
                             cudaStream_t stream, GroupedWorkspace workspace) const {
  check_grouped_description(plan_, "GroupedGemm.run_masked");
  GemmArguments args = plan_.run_arguments(a, b, c, d, alpha, beta);
  args.workspace = workspace.data;
  args.workspace_bytes = workspace.bytes;
  try {
    gemm::grouped_gemm_masked(args, valid_m, stream, run_tuning());
  } catch (std::invalid_argument const& e) {
    throw std::invalid_argument(fmt::format("GroupedGemm.run_masked: {}", e.what()));
  }
}

void GroupedGemm::run_contiguous(TensorView const& a, TensorView const& b, TensorView const& c,
                                 TensorView const& d, int const* row_ends, float alpha, float beta,
                                 cudaStream_t stream, GroupedWorkspace workspace) const {
  auto const refuse = [](std::string const& why) {
    throw std::invalid_argument("GroupedGemm.run_contiguous: " + why);
  };
  check_grouped_description(plan_, "GroupedGemm.run_contiguous");
  if (b.batch < 1 || b.batch > std::numeric_limits<int>::max())
    refuse(fmt::format("b holds {} matrices: give one K x N matrix per expert (1 to 2^31 - 1)",
                       b.batch));
  // The stacked problem with expert 0's B, as run() checks it; then the experts' B apart.
  TensorView first_b = b;
  first_b.batch = 1;
  GemmArguments args = plan_.run_arguments(a, first_b, c, d, alpha, beta);
  args.b.batch_stride = b.batch_stride;
  args.workspace = workspace.data;
  args.workspace_bytes = workspace.bytes;
  try {
    gemm::grouped_gemm_contiguous(args, static_cast<int>(b.batch), row_ends, stream, run_tuning());
  } catch (std::invalid_argument const& e) {
    refuse(e.what());
  }
}

}  // namespace warploom::ops
