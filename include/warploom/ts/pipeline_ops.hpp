// warploom/ts/pipeline_ops.hpp
//
// The reserved pipeline operations, shared by the capturing handle (host) and the executing
// handle (device) so that both enforce the same compile-time rules.
//
// Producer side:  try_acquire -> acquire (claim an empty stage) -> ...work... -> commit (publish)
// Consumer side:  try_wait    -> wait    (wait for a full stage) -> ...work... -> release (free it)
//
// Consumers that take turns: skip() passes over one stage without waiting or releasing — another
// consumer task of the resource takes it. The stages of one resource are then split between its
// consumer tasks (each stage waited on and released by exactly one of them), which the verifier
// checks: the consumer group is one task's arrivals (R-D15), no skip() inside wait..release
// (R-D10), and the model checker proves every stage released exactly once.
//
// try_* start the barrier probe early; the blocking op that follows returns at once when the probe
// succeeded. On a resource without a pipeline every operation is a no-op, as in the seed.
#pragma once

#include "warploom/config.hpp"
#include "warploom/ts/schedule_ir.hpp"

namespace warploom::ts {

// Which side(s) of a resource a task is on: src (reads: consumer side), dst (writes: producer
// side), or both.
enum class Access : std::uint8_t { Source, Destination, Both };

template <class Derived, Access kAccess>
struct PipelineOps {
  static constexpr bool can_produce = kAccess != Access::Source;
  static constexpr bool can_consume = kAccess != Access::Destination;

  WL_HOST_DEVICE constexpr void try_acquire() {
    static_assert(can_produce,
                  "R-D5: try_acquire() is a producer operation, but the task lists this resource "
                  "only in `src`; list it in `dst`");
    self().template pipeline_op<OpKind::TryAcquire>();
  }
  WL_HOST_DEVICE constexpr void acquire() {
    static_assert(can_produce,
                  "R-D5: acquire() is a producer operation, but the task lists this resource only "
                  "in `src`; list it in `dst`");
    self().template pipeline_op<OpKind::Acquire>();
  }
  WL_HOST_DEVICE constexpr void commit() {
    static_assert(can_produce,
                  "R-D5: commit() is a producer operation, but the task lists this resource only "
                  "in `src`; list it in `dst`");
    self().template pipeline_op<OpKind::Commit>();
  }
  WL_HOST_DEVICE constexpr void try_wait() {
    static_assert(can_consume,
                  "R-D5: try_wait() is a consumer operation, but the task lists this resource "
                  "only in `dst`; list it in `src`");
    self().template pipeline_op<OpKind::TryWait>();
  }
  WL_HOST_DEVICE constexpr void wait() {
    static_assert(can_consume,
                  "R-D5: wait() is a consumer operation, but the task lists this resource only in "
                  "`dst`; list it in `src`");
    self().template pipeline_op<OpKind::Wait>();
  }
  WL_HOST_DEVICE constexpr void release() {
    static_assert(can_consume,
                  "R-D5: release() is a consumer operation, but the task lists this resource only "
                  "in `dst`; list it in `src`");
    self().template pipeline_op<OpKind::Release>();
  }
  WL_HOST_DEVICE constexpr void skip() {
    static_assert(can_consume,
                  "R-D5: skip() is a consumer operation, but the task lists this resource only in "
                  "`dst`; list it in `src`");
    self().template pipeline_op<OpKind::Skip>();
  }

 private:
  WL_HOST_DEVICE constexpr Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace warploom::ts
