// warploom/ts/stage_info.hpp
//
// ts::StageInfo is what TS hands every work call: where the enclosing domain loop is, which
// pipeline stage the call owns, and the shared-memory context. The *type* of a work's first
// parameter declares the work's role, the way the seed's @producer_work / @consumer_work
// decorators do:
//
//   void tma_load(ts::Produce const& stage, int row);     // producer work: writes the resource
//   half8 read_smem(ts::Consume const& stage);            // consumer work: reads the resource
//   void init(ts::ProduceAux const& stage);               // auxiliary: outside the bracket checks
//   void scale(ts::ConsumeInPlace const& stage, float s);  // consumer work that also writes
//
// Auxiliary work runs like any other work but is invisible to the bracketing, ordering and race
// checks; it is for pointer or descriptor set-up, never for payload access.
//
// In-place consumer work (an update of the waited-on stage before it is read, e.g. scaling a tile
// or adding a residual into it) is consumer work that writes: the model checker reports it (R-M4)
// when another task may read the stage meanwhile — a second consumer task of the ring, or
// asynchronous (wgmma) reads still in flight. The generic-to-async proxy fence a later wgmma or
// TMA read of the written bytes needs is the work's own (docs/verification/README.md §6).
#pragma once

#include <cstdint>

namespace warploom::ts {

enum class Role : std::uint8_t { Producer, Consumer, ProducerAux, ConsumerAux, ConsumerInPlace };

constexpr bool is_producer_side(Role r) {
  return r == Role::Producer || r == Role::ProducerAux;
}
constexpr bool is_auxiliary(Role r) {
  return r == Role::ProducerAux || r == Role::ConsumerAux;
}

// Coordinates of the tile a persistent task is working on; (0,0,0) and valid outside tile loops.
struct WorkTile {
  int m = 0, n = 0, l = 0;
  bool valid = true;
};

// Shared state of the CTA that every work may need, and the calling task's named barrier.
struct ResourceContext {
  char* smem_base = nullptr;  // start of the dynamic shared-memory block the allocator lays out
  // The task's named barrier and its thread count (task_barrier.hpp, ts::sync_task); 0: none.
  int task_barrier = 0;
  int task_threads = 0;
};

struct StageInfo {
  // The innermost enclosing domain loop; all zero for work outside any loop.
  int loop_offset = 0;  // current iteration's index
  int loop_start = 0;
  int loop_end = 0;
  int loop_step = 0;
  // Pipeline stage this call owns (producer side: the acquired stage, consumer side: the stage
  // waited on); -1 on resources without a pipeline.
  int stage_idx = -1;
  // The stage's full barrier: a TMA issued by producer work completes its bytes on it.
  std::uint64_t* barrier = nullptr;
  WorkTile work_tile{};
  ResourceContext context{};
};

struct Produce : StageInfo {
  static constexpr Role role = Role::Producer;
};
struct Consume : StageInfo {
  static constexpr Role role = Role::Consumer;
};
struct ProduceAux : StageInfo {
  static constexpr Role role = Role::ProducerAux;
};
struct ConsumeAux : StageInfo {
  static constexpr Role role = Role::ConsumerAux;
};
struct ConsumeInPlace : StageInfo {
  static constexpr Role role = Role::ConsumerInPlace;
};

}  // namespace warploom::ts
