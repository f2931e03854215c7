// warploom/ts/stream_order.hpp
//
// How a TS kernel's launch follows the kernel before it on its stream (ts::launch, launch.hpp),
// apart so that host code that only names it (a launcher's API) needs no CUDA compiler.
#pragma once

namespace warploom::ts {

// How a launch follows the kernel before it on its stream. Serial: its CTAs start once that kernel
// finished (a plain launch). Programmatic (Hopper's programmatic dependent launch): they may start
// while it still runs — once each of its CTAs called ts::allow_dependent_launch() or exited — and
// wait in ts::wait_for_prior_grid() (griddepcontrol.wait: that kernel finished and its writes are
// visible) before they read anything it writes. What they do before (launch, shared-memory and
// barrier set-up) overlaps its tail.
enum class StreamOrder { Serial, Programmatic };

}  // namespace warploom::ts
