// warploom/ts/pdl.hpp
//
// Programmatic dependent launch as TS resources (Hopper; the host side is ts::StreamOrder in
// launch.hpp, the instructions ts/device/grid_dependency.hpp):
//
//   ts::PdlWait    consumer work wait_griddep: the previous grid finished and its writes are
//                  visible (griddepcontrol.wait)
//   ts::PdlLaunch  producer work launch_griddep: the next grid may start its CTAs
//                  (griddepcontrol.launch_dependents)
//
// A resource whose data the previous grid writes depends on PdlWait in the graph
// (ts::DependsOn<Input, ts::PdlWait>), and R-D7 checks that every task producing it (or reading
// it, when it has no pipeline) waits before its first work on it. A task that signals the next
// grid lists PdlLaunch in dst; a graph entry ts::DependsOn<ts::PdlLaunch> places it.
#pragma once

#include "warploom/config.hpp"
#include "warploom/ts/device/grid_dependency.hpp"
#include "warploom/ts/resource.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::ts {

struct PdlWait {
  static constexpr ResourceSpec spec{.name = "pdl_wait", .kind = ResourceKind::PdlWait};
  WL_DEVICE void wait_griddep(Consume const&) const { wait_for_prior_grid(); }
};

struct PdlLaunch {
  static constexpr ResourceSpec spec{.name = "pdl_launch", .kind = ResourceKind::PdlLaunch};
  WL_DEVICE void launch_griddep(Produce const&) const { allow_dependent_launch(); }
};

}  // namespace warploom::ts
