// warploom/ts/device/context.hpp
//
// The executing context: a schedule instantiated with ts::DeviceContext *is* the task's code.
// Every decision (which op, which resource, which work, which stage state) is resolved by
// templates; what remains at run time is the loop, the mbarrier operations, the state arithmetic
// and the work bodies — the same instructions a hand-written kernel has.
//
// Each task owns private pipeline state: a DeviceHandle per resource holds the task's cursor
// (stage index and phase) and try_* status; tasks share nothing at run time but the barriers and
// buffers in shared memory.
#pragma once

#include <climits>
#include <type_traits>
#include <utility>

#include <cuda/ptx>                     // cp_async_bulk_wait_group_read
#include <cute/arch/mma_sm90_gmma.hpp>  // cute::warpgroup_wait

#include "warploom/arch/sm90/warp.hpp"
#include "warploom/config.hpp"
#include "warploom/ts/device/pipeline.hpp"
#include "warploom/ts/domain_loop.hpp"
#include "warploom/ts/pipeline_ops.hpp"
#include "warploom/ts/resource.hpp"
#include "warploom/ts/stage_info.hpp"
#include "warploom/ts/work.hpp"
#include "warploom/ts/work_tile_loop.hpp"

namespace warploom::ts {

#if defined(__CUDACC__)

// The innermost enclosing domain loop, as work sees it through ts::StageInfo.
struct LoopCoords {
  int offset = 0, start = 0, end = 0, step = 0;
};

// A task-local variable at run time: a register.
template <class T>
struct DeviceLocal {
  using value_type = T;
  T value;
  WL_DEVICE DeviceLocal& operator=(T const& v) {
    value = v;
    return *this;
  }
  WL_DEVICE operator T const&() const { return value; }
};

class DeviceContext;

// The loop object a domain_loop body receives on the device.
class DeviceLoop {
 public:
  WL_DEVICE DeviceLoop(int i, int start, int end, int step)
      : i_(i), start_(start), end_(end), step_(step) {}
  template <class Body>
  WL_DEVICE void first_iter(Body&& body) const {
    if (is_first()) body();
  }
  template <class Body>
  WL_DEVICE void last_iter(Body&& body) const {
    if (is_last()) body();
  }
  template <class Body>
  WL_DEVICE void not_first_iter(Body&& body) const {
    if (!is_first()) body();
  }
  template <class Body>
  WL_DEVICE void not_last_iter(Body&& body) const {
    if (!is_last()) body();
  }

 private:
  WL_DEVICE bool is_first() const { return i_ == start_; }
  WL_DEVICE bool is_last() const {
    int const next = i_ + step_;
    return step_ > 0 ? next >= end_ : next <= end_;
  }

  int i_, start_, end_, step_;
};

// The tile-loop object a work_tile_loop body receives on the device: whether the loop is done
// (the queue handed out its invalid tile) and whether the current tile is skipped.
template <class Queue, class Skip>
class DeviceTileLoop {
 public:
  WL_DEVICE DeviceTileLoop(DeviceContext& ctx, Queue const& queue) : ctx_(&ctx), queue_(&queue) {}

  template <class Body>
  WL_DEVICE void if_valid(WorkTile const& tile, Body&& body);
  template <class Body>
  WL_DEVICE void if_invalid(WorkTile const& tile, Body&& body) const {
    if (!tile.valid) body();
  }
  template <class Body>
  WL_DEVICE void first_iter(Body&& body) const {
    if (fetch_ == 0) body();
  }
  template <class Body>
  WL_DEVICE void not_first_iter(Body&& body) const {
    if (fetch_ != 0) body();
  }

  template <class Body>
  WL_DEVICE void skippable(Body&& body) const {
    static_assert(detail::is_skip_if<Skip>::value,
                  "R-A13: skippable() needs a tile loop with a skip predicate: "
                  "ctx.work_tile_loop(queue, ts::skip_if<&Queue::member>, body)");
    if (!skipped_) body();
  }

  WL_DEVICE bool done() const { return done_; }
  WL_DEVICE void set_fetch(int fetch) { fetch_ = fetch; }

 private:
  DeviceContext* ctx_;
  Queue const* queue_;
  int fetch_ = 0;  // this iteration's fetch, from 0
  bool done_ = false;
  bool skipped_ = false;
};

class DeviceContext {
 public:
  static constexpr bool is_device = true;

  WL_DEVICE DeviceContext(ResourceContext rc, int task_warp_idx)
      : rc_(rc), task_warp_idx_(task_warp_idx) {}

  // The ranges CUDA guarantees (x: at most 1024 threads, 2^31 - 1 CTAs), stated so the compiler
  // knows them: a stride of grid_dim() threads is positive, so a loop over it compiles in one
  // direction with no test of the step's sign (domain_loop).
  WL_DEVICE int thread_idx() const {
    int const t = static_cast<int>(threadIdx.x);
    __builtin_assume(t >= 0 && t < 1024);
    return t;
  }
  WL_DEVICE int block_idx() const {
    int const b = static_cast<int>(blockIdx.x);
    __builtin_assume(b >= 0);
    return b;
  }
  WL_DEVICE int block_dim() const {
    int const d = static_cast<int>(blockDim.x);
    __builtin_assume(d >= 1 && d <= 1024);
    return d;
  }
  WL_DEVICE int grid_dim() const {
    int const g = static_cast<int>(gridDim.x);
    __builtin_assume(g >= 1);
    return g;
  }
  WL_DEVICE int warp_idx() const { return sm90::warp_idx_uniform(); }
  // Thread index within the task's own warps (0 for the task's first thread).
  WL_DEVICE int task_thread_idx() const {
    return static_cast<int>(threadIdx.x) - task_warp_idx_ * sm90::kThreadsPerWarp;
  }

  // wgmma.wait_group kKeep: all but the kKeep most recent wgmma groups of this warpgroup retire;
  // cp.async.bulk.wait_group.read kKeep: all but the kKeep most recent bulk-copy groups of this
  // thread have finished reading shared memory.
  template <AsyncReader kUnit, int kKeep>
  WL_DEVICE void async_wait() const {
    if constexpr (kUnit == AsyncReader::Wgmma) {
      cute::warpgroup_wait<kKeep>();
    } else {
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<kKeep>{});
    }
  }

  template <class T>
  WL_DEVICE DeviceLocal<T> local(T const& init) const {
    return DeviceLocal<T>{init};
  }

  // The lowering of ctx.domain_loop. Without ts::unroll (or with ts::unroll<1>) it is the loop a
  // hand-written kernel has, `for (i = start; i < end; i += step)`, made overflow-free: the exit
  // test compares i against `last`, the last start from which one more step stays inside the
  // domain, computed once (saturated, so that i += step never overflows for any int bounds).
  // Its SASS is the hand-written loop's: one add and one compare per iteration, no trip count.
  // With ts::unroll<N> (N >= 2) it is a counted loop instead: the trip count is computed once
  // (a division by a run-time step; a static step folds it), so the compiler sees a canonical
  // loop it can unroll into N bodies with no exit test between them and batch their loads — the
  // grid-stride loop needs this to keep N loads in flight, which a loop with an exit test per
  // item cannot (docs/kernels/tutorial_copies.md).
  template <class... Args>
  WL_DEVICE void domain_loop(Args... args) {
    using L = detail::LoopArgs<Args...>;
    auto bounds = detail::loop_bounds<L::num_bounds>(args...);
    using Step = std::remove_cvref_t<std::tuple_element_t<2, decltype(bounds)>>;
    int const start = detail::to_int(std::get<0>(bounds));
    int const end = detail::to_int(std::get<1>(bounds));
    int const step = detail::to_int(std::get<2>(bounds));
    auto&& body = detail::loop_body(args...);
    LoopCoords const saved = loop_;
    // The direction: a static step's sign is a constant, and so is a run-time step's wherever the
    // compiler can prove it (ctx.grid_dim() is known to be >= 1, so a grid stride is positive):
    // then every `up ? ... : ...` below folds and only one direction is compiled.
    bool up;
    if constexpr (StaticBound<Step>) {
      up = Step::value > 0;
    } else {
      // A run-time step the verifier could not see is 0: stop (R-B3) rather than hang. No
      // printf: any call in a kernel makes ptxas serialize every wgmma of it (C7510), so the rule
      // is reported as the trap's launch failure (docs/verification/rules.md, R-B3).
      if (step == 0) __trap();
      up = step > 0;
    }
    // x ^ flip orders ints by the loop's direction without overflow: ~x reverses their order.
    int const flip = up ? 0 : -1;
    auto iterate = [&](int i) {
      // True for every offset the loop visits; it lets the compiler drop a work's own bounds
      // check against `end` (the scalar copy's `i < num_entries`).
      __builtin_assume((i ^ flip) < (end ^ flip));
      loop_ = {i, start, end, step};
      DeviceLoop loop(i, start, end, step);
      body(loop);
    };
    if constexpr (L::unroll > 1) {
      int const trips = up ? trip_count_positive(start, end, static_cast<unsigned>(step))
                           : trip_count_positive(end, start, 0u - static_cast<unsigned>(step));
#pragma unroll(L::unroll)
      for (int t = 0; t < trips; ++t) iterate(start + t * step);
    } else if ((start ^ flip) < (end ^ flip)) {
      // i < last (up) or i > last (down) <=> i + step stays inside the domain. `last` is
      // end - step, or the int limit when that overflows (then no further step fits); the test
      // is in unsigned arithmetic, which neither overflows nor trips on a folded static step.
      unsigned const room = up ? static_cast<unsigned>(end) - static_cast<unsigned>(INT_MIN)
                               : static_cast<unsigned>(INT_MAX) - static_cast<unsigned>(end);
      unsigned const stride = up ? static_cast<unsigned>(step) : 0u - static_cast<unsigned>(step);
      int const last = room >= stride ? end - step : (up ? INT_MIN : INT_MAX);
      for (int i = start;; i += step) {
        iterate(i);
        if ((i ^ flip) >= (last ^ flip)) break;
      }
    }
    loop_ = saved;
  }

  // A persistent task's loop over its queue's tiles (work_tile_loop.hpp): until the queue hands
  // out an invalid tile. The tile is the same in every thread of the task (a static queue computes
  // it, a dynamic one broadcasts it through shared memory), so the loop exit is warp-uniform.
  template <class Handle, class... Args>
  WL_DEVICE void work_tile_loop(Handle& queue, Args... args) {
    using Queue = typename Handle::resource;
    using L = detail::TileLoopArgs<Queue, Args...>;
    static_assert(detail::check_tile_loop_queue<Handle>());
    static_assert(detail::check_skip_if<Queue, typename L::skip>());
    auto&& body = detail::loop_body(args...);
    LoopCoords const saved = loop_;
    DeviceTileLoop<Queue, typename L::skip> tiles(*this, *queue.operator->());
    for (int i = 0; !tiles.done(); ++i) {
      loop_ = {i, 0, INT_MAX, 1};  // the fetch count is unknown until the invalid tile comes
      tiles.set_fetch(i);
      body(tiles);
    }
    loop_ = saved;
    tile_ = WorkTile{};
  }

  WL_DEVICE LoopCoords const& loop() const {
    return loop_;
  }
  // The tile the enclosing tile loop works on ((0,0,0), valid, outside tile loops).
  WL_DEVICE WorkTile const& tile() const {
    return tile_;
  }
  WL_DEVICE void set_tile(WorkTile const& t) {
    tile_ = t;
  }
  WL_DEVICE ResourceContext const& resource_context() const {
    return rc_;
  }

 private:
  // Iterations of [lo, hi) with step > 0 (|INT_MIN| included); unsigned arithmetic cannot
  // overflow for int bounds.
  static WL_DEVICE int trip_count_positive(int lo, int hi, unsigned step) {
    if (hi <= lo) return 0;
    unsigned const span = static_cast<unsigned>(hi) - static_cast<unsigned>(lo);
    return static_cast<int>((span - 1u) / step + 1u);
  }

  LoopCoords loop_{};
  WorkTile tile_{};
  ResourceContext rc_;
  int task_warp_idx_;
};

template <class Queue, class Skip>
template <class Body>
WL_DEVICE void DeviceTileLoop<Queue, Skip>::if_valid(WorkTile const& tile, Body&& body) {
  if (!tile.valid) {
    done_ = true;
    return;
  }
  ctx_->set_tile(tile);
  if constexpr (detail::is_skip_if<Skip>::value) skipped_ = (queue_->*Skip::member)(tile);
  body();
}

namespace detail {
template <class T>
struct is_device_local : std::false_type {};
template <class T>
struct is_device_local<DeviceLocal<T>> : std::true_type {};

// Task-local variables pass their value (by reference: a mutable local binds to a work's
// non-const reference parameter, which updates it in place); everything else is forwarded.
template <class A>
WL_DEVICE decltype(auto) unwrap(A&& a) {
  using L = std::remove_cvref_t<A>;
  if constexpr (is_device_local<L>::value) {
    if constexpr (std::is_const_v<std::remove_reference_t<A>>) {
      return static_cast<typename L::value_type const&>(a.value);
    } else {
      return static_cast<typename L::value_type&>(a.value);
    }
  } else {
    return std::forward<A>(a);
  }
}
}  // namespace detail

// A resource as an executing schedule sees it: the resource object, the pipeline's barriers, and
// this task's private cursors on them. `Pipeline` is the resource's own, but for a ts::Fork's
// secondary member, whose acquire does not arm the shared full barrier (the TaskManager picks it).
template <class R, Access kAccess, class PipelineT = DevicePipeline<R::spec.pipeline>>
class DeviceHandle : public PipelineOps<DeviceHandle<R, kAccess, PipelineT>, kAccess> {
 public:
  using resource = R;
  static constexpr PipelineConfig kPipeline = R::spec.pipeline;
  using Pipeline = PipelineT;

  WL_DEVICE DeviceHandle(R& r, DeviceContext& ctx, Pipeline pipe)
      : res_(&r), ctx_(&ctx), pipe_(pipe) {}

  WL_DEVICE R* operator->() const { return res_; }

  // Cursors: acquire_ (producer) and wait_ (consumer) always; with advance_on_acquire /
  // advance_on_wait, commit_ and release_ move separately and the stage a work owns is the one
  // last acquired / waited on. Otherwise commit and release use (and move) acquire_ and wait_.
  template <OpKind kOp>
  WL_DEVICE void pipeline_op() {
    if constexpr (kPipeline.enabled()) {
      if constexpr (kOp == OpKind::TryAcquire) {
        prod_ready_ = pipe_.producer_try_acquire(acquire_);
      } else if constexpr (kOp == OpKind::Acquire) {
        pipe_.producer_acquire(acquire_, prod_ready_);
        prod_ready_ = false;
        if constexpr (kPipeline.advance_on_acquire) {
          owned_by_producer_ = acquire_;
          Pipeline::advance(acquire_);
        }
      } else if constexpr (kOp == OpKind::Commit) {
        if constexpr (kPipeline.advance_on_acquire) {
          pipe_.producer_commit(commit_);
          Pipeline::advance(commit_);
        } else {
          pipe_.producer_commit(acquire_);
          Pipeline::advance(acquire_);
        }
      } else if constexpr (kOp == OpKind::TryWait) {
        cons_ready_ = pipe_.consumer_try_wait(wait_);
      } else if constexpr (kOp == OpKind::Wait) {
        pipe_.consumer_wait(wait_, cons_ready_);
        cons_ready_ = false;
        if constexpr (kPipeline.advance_on_wait) {
          owned_by_consumer_ = wait_;
          Pipeline::advance(wait_);
        }
      } else if constexpr (kOp == OpKind::Release) {
        if constexpr (kPipeline.advance_on_wait) {
          pipe_.consumer_release(release_);
          Pipeline::advance(release_);
        } else {
          pipe_.consumer_release(wait_);
          Pipeline::advance(wait_);
        }
      } else if constexpr (kOp == OpKind::Skip) {
        // Another consumer task waits on and releases this stage; only the cursors move.
        Pipeline::advance(wait_);
        if constexpr (kPipeline.advance_on_wait) Pipeline::advance(release_);
      }
    }
  }

  template <auto kMember, class... Args>
  WL_DEVICE decltype(auto) invoke(Args&&... args) {
    using Stage = std::remove_cvref_t<typename work_traits<kMember>::first>;
    return (res_->*kMember)(make_stage<Stage>(), detail::unwrap(std::forward<Args>(args))...);
  }

  // The cursor a pipeline group's one op moves for this member (device/group_handle.hpp): a
  // ts::Merge's release moves every member's release cursor, a ts::Fork's commit every member's
  // commit cursor — the ones a member's own release / commit would move.
  template <OpKind kOp>
  WL_DEVICE PipelineState& group_op_cursor() {
    if constexpr (kOp == OpKind::Release) {
      if constexpr (kPipeline.advance_on_wait) return release_;
      return wait_;
    } else {
      static_assert(kOp == OpKind::Commit);
      if constexpr (kPipeline.advance_on_acquire) return commit_;
      return acquire_;
    }
  }

  // Emitted by the TaskManager at the end of a task that produces this resource.
  WL_DEVICE void producer_tail() const {
    if constexpr (drains_at_exit(R::spec.kind, kPipeline) && kAccess != Access::Source)
      pipe_.producer_tail(acquire_);
  }

 private:
  template <class Stage>
  WL_DEVICE Stage make_stage() const {
    Stage st{};
    LoopCoords const& l = ctx_->loop();
    st.loop_offset = l.offset;
    st.loop_start = l.start;
    st.loop_end = l.end;
    st.loop_step = l.step;
    st.context = ctx_->resource_context();
    st.work_tile = ctx_->tile();
    if constexpr (kPipeline.enabled()) {
      PipelineState const s = is_producer_side(Stage::role) ? producer_stage() : consumer_stage();
      st.stage_idx = s.index;
      st.barrier = pipe_.full_barrier(s);
    }
    return st;
  }

  // The stage producer / consumer work touches.
  WL_DEVICE PipelineState producer_stage() const {
    if constexpr (kPipeline.advance_on_acquire) return owned_by_producer_;
    return acquire_;
  }
  WL_DEVICE PipelineState consumer_stage() const {
    if constexpr (kPipeline.advance_on_wait) return owned_by_consumer_;
    return wait_;
  }

  R* res_;
  DeviceContext* ctx_;
  Pipeline pipe_;
  PipelineState acquire_ = Pipeline::producer_start();
  PipelineState commit_ = Pipeline::producer_start();
  PipelineState owned_by_producer_ = Pipeline::producer_start();
  PipelineState wait_ = Pipeline::consumer_start();
  PipelineState release_ = Pipeline::consumer_start();
  PipelineState owned_by_consumer_ = Pipeline::consumer_start();
  bool prod_ready_ = false;
  bool cons_ready_ = false;
};

#endif  // __CUDACC__

}  // namespace warploom::ts
