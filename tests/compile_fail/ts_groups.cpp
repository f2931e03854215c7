// tests/compile_fail/ts_groups.cpp — the compile-time rules of pipeline groups (R-C2,
// warploom/ts/pipeline_group.hpp).
//
// Without a CASE_ define this file declares a good ts::Merge and a good ts::Fork and a TaskManager
// naming both; tests/cpu/ts/pipeline_group_test.cpp includes it (the compile-pass control). Each
// CASE_R_C2_<what> define changes one member's declaration, and tests/compile_fail/CMakeLists.txt
// expects the compiler's error to name the rule.

#include "warploom/ts/ts.hpp"

namespace cf_groups {

namespace ts = warploom::ts;

inline constexpr int kBytes = 1024;

// Knobs, one per case: the second member of each group differs from the first in one field.
#if defined(CASE_R_C2_MERGE_STAGES)
inline constexpr ts::PipelineConfig kResidual =
    ts::async_async(3, ts::threads(32), ts::threads(128));  // 3 stages, the operands 4
#elif defined(CASE_R_C2_MERGE_ADVANCE_FLAGS)
inline constexpr ts::PipelineConfig kResidual =
    ts::async_async(4, ts::threads(32), ts::threads(128)).with_advance_on_wait();
#elif defined(CASE_R_C2_MERGE_MULTICAST)
inline constexpr ts::PipelineConfig kResidual =
    ts::tma_async(4, kBytes, ts::threads(1), ts::threads(128)).with_multicast(2);
#elif defined(CASE_R_C2_MERGE_CONSUMER_KIND)
inline constexpr ts::PipelineConfig kResidual =
    ts::tma_wgmma(4, kBytes, ts::threads(1), ts::threads(128));  // a wgmma consumer
#elif defined(CASE_R_C2_MERGE_CONSUMER_GROUP)
inline constexpr ts::PipelineConfig kResidual = ts::async_async(4, ts::threads(32), ts::warps(4));
#else
inline constexpr ts::PipelineConfig kResidual =
    ts::async_async(4, ts::threads(32), ts::threads(128));  // a thread-written residual tile
#endif

#if defined(CASE_R_C2_FORK_PRODUCER_KIND)
inline constexpr ts::PipelineConfig kForStore =
    ts::async_async(2, ts::threads(1), ts::threads(128));  // a thread producer
#elif defined(CASE_R_C2_FORK_BYTES)
inline constexpr ts::PipelineConfig kForStore =
    ts::tma_async(2, 2 * kBytes, ts::threads(1), ts::threads(128));
#else
inline constexpr ts::PipelineConfig kForStore =
    ts::tma_async(2, kBytes, ts::threads(1), ts::threads(128));
#endif

struct Operands {  // a TMA ring read by threads
  static constexpr ts::ResourceSpec spec{
      .name = "ops", .pipeline = ts::tma_async(4, kBytes, ts::threads(1), ts::threads(128))};
  ts::SmemBuffer<char, 4 * kBytes> stages;  // (STAGES, BYTES)
  using smem_buffers = ts::buffers<&Operands::stages>;
};

struct Residual {
  static constexpr ts::ResourceSpec spec{.name = "res", .pipeline = kResidual};
};

#if defined(CASE_R_C2_MEMBER_WITHOUT_PIPELINE)
struct Plain {
  static constexpr ts::ResourceSpec spec{.name = "plain"};
};
using Inputs = ts::Merge<"inputs", Operands, Plain>;
#else
using Inputs = ts::Merge<"inputs", Operands, Residual>;
#endif

struct ForMma {  // one tile, read by wgmma...
  static constexpr ts::ResourceSpec spec{
      .name = "for_mma", .pipeline = ts::tma_wgmma(2, kBytes, ts::threads(1), ts::threads(128))};
};
struct ForStore {  // ... and by threads
  static constexpr ts::ResourceSpec spec{.name = "for_store", .pipeline = kForStore};
};
using Tile = ts::Fork<"tile", ForMma, ForStore>;

#if defined(CASE_R_C2_TWO_GROUPS)
// Residual is already in Inputs.
using Again = ts::Merge<"again", Residual, Operands>;
#define CF_GROUPS Inputs, Tile, Again
#else
#define CF_GROUPS Inputs, Tile
#endif

// Force every declaration's checks.
static_assert(Inputs::spec.kind == ts::ResourceKind::Group);
static_assert(Tile::spec.kind == ts::ResourceKind::Group);

// A manager's resource table: every group with its members, each resource in one group.
using Table = ts::with_group_members_t<ts::list<CF_GROUPS>>;
static_assert(ts::check_group_membership<Table>());

}  // namespace cf_groups
