// warploom/ts/device/group_handle.hpp
//
// A pipeline group (ts::Merge, ts::Fork; pipeline_group.hpp) as an executing schedule sees it: the
// group's one op on the shared barrier array, and the members' cursors that op moves.
//
//   ts::Merge  release():  one arrival on the shared empty barrier of the stage (the consumer
//                          waited on every member's own full barrier before), then every member's
//                          release cursor moves, as its own release would have moved it.
//   ts::Fork   commit():   one arrival on the shared full barrier (threads producer; a TMA fill
//                          completes it by its bytes, armed by the primary member's acquire), then
//                          every member's commit cursor moves.
//
// The group holds no state of its own but its cursor on the shared array, which moves in step with
// the members' (every member starts where the group starts and moves only by the group op, R-D25);
// it points at the members' cursors in the task's handles, so a task's state stays private and
// every op lowers to the instructions of the same op on a plain pipeline.
#pragma once

#include <cuda/std/array>

#include "warploom/config.hpp"
#include "warploom/ts/device/pipeline.hpp"
#include "warploom/ts/pipeline_ops.hpp"
#include "warploom/ts/resource.hpp"
#include "warploom/ts/type_list.hpp"

namespace warploom::ts {

#if defined(__CUDACC__)

template <class G, Access kAccess>
class DeviceGroupHandle : public PipelineOps<DeviceGroupHandle<G, kAccess>, kAccess> {
 public:
  using resource = G;
  static constexpr PipelineConfig kPipeline = G::spec.pipeline;
  static constexpr GroupMode kMode = G::spec.group;
  // The op the group takes, and so the side of the members' cursors it moves.
  static constexpr OpKind kGroupOp = kMode == GroupMode::Merge ? OpKind::Release : OpKind::Commit;
  static constexpr int kMembers = []<class... Ms>(list<Ms...>) {
    return static_cast<int>(sizeof...(Ms));
  }(typename G::members{});
  using Pipeline = DevicePipeline<kPipeline>;

  WL_DEVICE explicit DeviceGroupHandle(Pipeline pipe) : pipe_(pipe) {}

  // The members' cursors, in the group's declaration order (the TaskManager links them once the
  // task's handles exist).
  template <class... Cursors>
  WL_DEVICE void link(Cursors&... members) {
    static_assert(sizeof...(Cursors) == kMembers);
    members_ = {&members...};
  }

  template <OpKind kOp>
  WL_DEVICE void pipeline_op() {
    static_assert(kOp == kGroupOp,
                  "R-D25: a pipeline group takes one op: release() of a ts::Merge (its consumer "
                  "waits on each member) or commit() of a ts::Fork (its producer acquires each "
                  "member)");
    if constexpr (kMode == GroupMode::Merge) {
      pipe_.consumer_release(cursor_);
    } else {
      pipe_.producer_commit(cursor_);
    }
    Pipeline::advance(cursor_);
    // Copied, not advanced each: the members' cursors on this side equal the group's (they start
    // alike and only the group op moves them), and a copy lets the compiler see that and keep one
    // cursor in registers where the schedule names three (the hand-written kernel's one).
#pragma unroll
    for (int i = 0; i < kMembers; ++i) *members_[i] = cursor_;
  }

  // The members drain the pipelines (each its own empty array, or a Merge's shared one).
  WL_DEVICE void producer_tail() const {}

 private:
  Pipeline pipe_;
  PipelineState cursor_ =
      kMode == GroupMode::Merge ? Pipeline::consumer_start() : Pipeline::producer_start();
  cuda::std::array<PipelineState*, kMembers> members_{};
};

#endif  // __CUDACC__

}  // namespace warploom::ts
