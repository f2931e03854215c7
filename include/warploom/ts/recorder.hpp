// warploom/ts/recorder.hpp
//
// The capturing context: a schedule instantiated with ts::Recorder records its steps into a
// ts::Schedule instead of executing them. It runs on the host, in constant expressions too, so the
// TaskManager can verify a kernel's schedules while the kernel compiles.
//
// During capture, consumer work returns a ts::Token naming the step that produced the value;
// passing a token to later work records a data-flow edge. Work bodies never run on the host.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "warploom/ts/domain_loop.hpp"
#include "warploom/ts/pipeline_config.hpp"
#include "warploom/ts/pipeline_ops.hpp"
#include "warploom/ts/schedule_ir.hpp"
#include "warploom/ts/size_probe.hpp"
#include "warploom/ts/work.hpp"
#include "warploom/ts/work_tile_loop.hpp"

namespace warploom::ts {

namespace detail {
// One object per work member function: its address names the work in the captured schedule.
template <auto kMember>
inline constexpr char work_tag = 0;
}  // namespace detail

// A value produced by a captured work call (node `node` of the schedule).
template <class T>
struct Token {
  using value_type = T;
  int node = -1;
};

class Recorder;

// A task-local variable during capture: remembers which step last wrote it.
template <class T>
struct RecordLocal {
  using value_type = T;
  Recorder* rec = nullptr;
  int decl = -1;         // the Local node: stands for the default value
  int last_writer = -1;  // node whose value the variable holds now

  template <class U>
  constexpr RecordLocal& operator=(Token<U> t);
};

class Recorder {
 public:
  static constexpr bool is_device = false;

  // The placeholder coordinates a capture runs with. The TaskManager captures a schedule that
  // reads a thread coordinate again as another lane and as another warp (describe.hpp): a loop
  // bound or guard computed from the coordinate then differs between the captures, which is how
  // the verifier tells a thread-dependent count from a uniform one (R-D24).
  struct Coords {
    int thread = 0;       // thread_idx()
    int task_thread = 0;  // task_thread_idx()
    int warp = 0;         // warp_idx()
  };

  constexpr explicit Recorder(Schedule& s) : s_(&s), coords_{0, 0, 0} {}
  // `reads_thread`, when given, is set once the schedule reads a thread coordinate (thread, task
  // thread or warp index). `probe` 1 or 2 gives the resources' integer fields their probe values
  // (size_probe.hpp); 0 leaves them at their defaults.
  constexpr Recorder(Schedule& s, Coords c, bool* reads_thread, int probe = 0)
      : s_(&s), coords_(c), reads_thread_(reads_thread), probe_(probe) {}

  // Which instance record handles read resource fields from (detail::probe_instance).
  constexpr int probe() const { return probe_; }

  // CTA coordinates. Their capture-time values are placeholders: bounds computed from them are
  // run-time bounds, which the verifier treats as unknown.
  constexpr int thread_idx() const {
    if (reads_thread_) *reads_thread_ = true;
    return coords_.thread;
  }
  constexpr int block_idx() const { return 0; }
  constexpr int block_dim() const { return 32; }
  constexpr int grid_dim() const { return 1; }
  constexpr int warp_idx() const {
    if (reads_thread_) *reads_thread_ = true;
    return coords_.warp;
  }
  constexpr int task_thread_idx() const {
    if (reads_thread_) *reads_thread_ = true;
    return coords_.task_thread;
  }

  template <class... Args>
  constexpr void domain_loop(Args... args);

  // A persistent task's loop over its work queue's tiles (work_tile_loop.hpp).
  template <class Queue, class... Args>
  constexpr void work_tile_loop(Queue& queue, Args... args);

  // Declares a task-local variable initialised with `init` (the seed's TaskLocalVariable default).
  template <class T>
  constexpr RecordLocal<T> local(T const& init) {
    (void)init;
    Node n{};
    n.kind = NodeKind::Local;
    n.parent = parent_;
    n.label = "local";
    int id = s_->add(n);
    return RecordLocal<T>{this, id, id};
  }

  constexpr int add_op(OpKind op, Role role, int resource, std::string_view label) {
    Node n{};
    n.kind = NodeKind::Op;
    n.parent = parent_;
    n.op = op;
    n.role = role;
    n.resource = resource;
    n.label = label;
    return s_->add(n);
  }

  constexpr void add_edge(int from, int to, int arg) { s_->edges.push_back({from, to, arg}); }
  constexpr void set_work(int node, void const* work) { s_->nodes[node].work = work; }

  template <AsyncReader kUnit, int kKeep>
  constexpr void async_wait() {
    int const id = add_op(OpKind::AsyncWait, Role::Consumer, -1,
                          kUnit == AsyncReader::Wgmma ? "wgmma_wait" : "bulk_wait_read");
    s_->nodes[id].unit = static_cast<int>(kUnit);
    s_->nodes[id].keep = kKeep;
  }

  // Records one argument of work call `node`; `Param` is the work's parameter type. A task-local
  // variable bound to a non-const reference parameter is updated in place by the work (e.g. an
  // accumulator): the call reads its previous value and becomes its last writer.
  template <class Param, class Arg>
  constexpr void bind_arg(Arg&& arg, int node, int index) {
    using A = std::remove_cvref_t<Arg>;
    constexpr bool kInOut =
        std::is_lvalue_reference_v<Param> && !std::is_const_v<std::remove_reference_t<Param>>;
    if constexpr (is_token<A>::value) {
      static_assert(!kInOut,
                    "R-A6: a non-const reference parameter takes a task-local variable "
                    "(ctx.local), which the work updates in place, not a value returned by work");
      static_assert(std::is_convertible_v<typename A::value_type, Param>,
                    "R-A6: a value routed into this work has a type the parameter does not accept");
      add_edge(arg.node, node, index);
    } else if constexpr (is_local<A>::value) {
      if constexpr (kInOut) {
        static_assert(!std::is_const_v<std::remove_reference_t<Arg>>,
                      "R-A6: a non-const reference parameter needs a mutable task-local variable");
        static_assert(std::is_convertible_v<typename A::value_type&, Param>,
                      "R-A6: a task-local variable passed to this work has a type the parameter "
                      "does not accept");
        add_edge(arg.last_writer, node, index);
        add_edge(node, arg.decl, -1);
        arg.last_writer = node;
      } else {
        static_assert(std::is_convertible_v<typename A::value_type const&, Param>,
                      "R-A6: a task-local variable passed to this work has a type the parameter "
                      "does not accept");
        add_edge(arg.last_writer, node, index);
      }
    } else {
      static_assert(std::is_convertible_v<Arg&&, Param>,
                    "R-A6: an argument of this work does not convert to the parameter type");
      ++s_->nodes[node].plain_args;
    }
  }

  // Runs `body` with the recorder inside a new block node `n`; `make_args(id)` builds the
  // arguments the body receives from the new node's id.
  template <class Body>
  constexpr void block(Node n, Body&& body) {
    block(n, body, [](int) { return std::tuple<>{}; });
  }
  template <class Body, class MakeArgs>
  constexpr void block(Node n, Body&& body, MakeArgs&& make_args) {
    n.parent = parent_;
    int id = s_->add(n);
    int saved = parent_;
    parent_ = id;
    auto args = make_args(id);
    std::apply(body, args);
    parent_ = saved;
  }

 private:
  template <class T>
  struct is_token : std::false_type {};
  template <class T>
  struct is_token<Token<T>> : std::true_type {};
  template <class T>
  struct is_local : std::false_type {};
  template <class T>
  struct is_local<RecordLocal<T>> : std::true_type {};

  Schedule* s_;
  Coords coords_;
  bool* reads_thread_ = nullptr;
  int probe_ = 0;
  int parent_ = 0;
};

template <class T>
template <class U>
constexpr RecordLocal<T>& RecordLocal<T>::operator=(Token<U> t) {
  static_assert(std::is_convertible_v<U, T>,
                "R-A6: the value assigned to this task-local variable has another type");
  rec->add_edge(t.node, decl, -1);
  last_writer = t.node;
  return *this;
}

namespace detail {
// Captures `body` as a block of loop node `loop` that runs where `kind` holds (first_iter, ...;
// if_valid and if_invalid are a tile loop's not-last and last iteration; skippable a kept tile),
// testing the tile the work node `tile` returned (-1: none).
template <class Body>
constexpr void record_guarded(Recorder& rec, int loop, NodeKind kind, Body& body, int tile = -1) {
  Node n{};
  n.kind = kind;
  n.loop = loop;
  n.tile = tile;
  rec.block(n, body);
}
}  // namespace detail

// The loop object a domain_loop body receives during capture.
class RecordLoop {
 public:
  constexpr RecordLoop(Recorder& rec, int node) : rec_(&rec), node_(node) {}

  // Work that runs only in the loop's first / last iteration, or in every iteration but the
  // first / last (e.g. a release that lags its wait by one stage).
  template <class Body>
  constexpr void first_iter(Body&& body) {
    detail::record_guarded(*rec_, node_, NodeKind::FirstIter, body);
  }
  template <class Body>
  constexpr void last_iter(Body&& body) {
    detail::record_guarded(*rec_, node_, NodeKind::LastIter, body);
  }
  template <class Body>
  constexpr void not_first_iter(Body&& body) {
    detail::record_guarded(*rec_, node_, NodeKind::NotFirstIter, body);
  }
  template <class Body>
  constexpr void not_last_iter(Body&& body) {
    detail::record_guarded(*rec_, node_, NodeKind::NotLastIter, body);
  }

 private:
  Recorder* rec_;
  int node_;
};

// The tile-loop object a work_tile_loop body receives during capture. kSkips: the loop has a
// skip_if predicate.
template <bool kSkips>
class RecordTileLoop {
 public:
  constexpr RecordTileLoop(Recorder& rec, int node) : rec_(&rec), node_(node) {}

  // Runs `body` for a valid tile; the invalid one (the queue is empty) ends the loop after this
  // iteration. Captured as the loop's not-last-iteration block, testing `tile`'s value.
  template <class Tile, class Body>
  constexpr void if_valid(Tile const& tile, Body&& body) {
    static_assert(detail::TileToken<Tile>,
                  "R-D12: if_valid tests the ts::WorkTile a work of the queue returned "
                  "(ts::work<&Queue::next_tile>(queue))");
    detail::record_guarded(*rec_, node_, NodeKind::NotLastIter, body, tile.node);
  }

  // Runs `body` in the iteration whose tile is invalid, the loop's last (the queue ran dry): work
  // after a CTA's last tile that belongs to no tile of its own, such as storing a result the last
  // tile left for the next one to store. Captured as the loop's last-iteration block, testing
  // `tile`'s value.
  template <class Tile, class Body>
  constexpr void if_invalid(Tile const& tile, Body&& body) {
    static_assert(detail::TileToken<Tile>,
                  "R-D12: if_invalid tests the ts::WorkTile a work of the queue returned "
                  "(ts::work<&Queue::next_tile>(queue))");
    detail::record_guarded(*rec_, node_, NodeKind::LastIter, body, tile.node);
  }

  // Work in the loop's first fetch only, or in every fetch but the first (a value the tile before
  // left in a task-local, read only where there was a tile before).
  template <class Body>
  constexpr void first_iter(Body&& body) {
    detail::record_guarded(*rec_, node_, NodeKind::FirstIter, body);
  }
  template <class Body>
  constexpr void not_first_iter(Body&& body) {
    detail::record_guarded(*rec_, node_, NodeKind::NotFirstIter, body);
  }

  // Work that a tile the skip predicate keeps out omits.
  template <class Body>
  constexpr void skippable(Body&& body) {
    static_assert(kSkips,
                  "R-A13: skippable() needs a tile loop with a skip predicate: "
                  "ctx.work_tile_loop(queue, ts::skip_if<&Queue::member>, body)");
    detail::record_guarded(*rec_, node_, NodeKind::Skippable, body);
  }

 private:
  Recorder* rec_;
  int node_;
};

template <class Queue, class... Args>
constexpr void Recorder::work_tile_loop(Queue& queue, Args... args) {
  using L = detail::TileLoopArgs<typename Queue::resource, Args...>;
  static_assert(detail::check_tile_loop_queue<Queue>());
  static_assert(detail::check_skip_if<typename Queue::resource, typename L::skip>());
  Node n{};
  n.kind = NodeKind::Loop;
  n.start = {true, 0};
  n.end = tile_loop_bound(queue.index());
  n.step = {true, 1};
  n.queue = queue.index();
  n.skip_if = L::has_skip ? queue.index() : -1;
  auto&& body = detail::loop_body(args...);
  block(n, body, [this](int id) {
    return std::tuple<RecordTileLoop<L::has_skip>>{RecordTileLoop<L::has_skip>(*this, id)};
  });
}

template <class... Args>
constexpr void Recorder::domain_loop(Args... args) {
  using L = detail::LoopArgs<Args...>;
  auto [start, end, step] = detail::loop_bounds<L::num_bounds>(args...);
  Node n{};
  n.kind = NodeKind::Loop;
  n.start = detail::to_bound(start);
  n.end = detail::to_bound(end);
  n.step = detail::to_bound(step);
  n.unroll = L::unroll;
  auto&& body = detail::loop_body(args...);
  block(n, body, [this](int id) { return std::tuple<RecordLoop>{RecordLoop(*this, id)}; });
}

// A resource as a capturing schedule sees it. `->` reaches a default-constructed instance, or in
// a probe capture one whose integer fields hold probe values (size_probe.hpp), so schedules may
// read resource fields (e.g. a row count) to form run-time loop bounds.
template <class R, Access kAccess>
class RecordHandle : public PipelineOps<RecordHandle<R, kAccess>, kAccess> {
 public:
  using resource = R;

  constexpr RecordHandle(Recorder& rec, int index)
      : rec_(&rec), index_(index), instance_(detail::probe_instance<R>(rec.probe())) {}

  constexpr R const* operator->() const { return &instance_; }
  // The resource's index in the TaskManager's table.
  constexpr int index() const { return index_; }

  template <OpKind kOp>
  constexpr void pipeline_op() {
    rec_->add_op(kOp, is_producer_op(kOp) ? Role::Producer : Role::Consumer, index_, {});
  }

  template <auto kMember, class... Args>
  constexpr auto invoke(Args&&... args) {
    using W = work_traits<kMember>;
    using Result = typename W::result;
    static_assert(!is_producer_side(W::role) || std::is_void_v<Result>,
                  "R-A2: producer work returns nothing; values flow out of consumer work");
    int node = rec_->add_op(OpKind::Work, W::role, index_, W::label);
    rec_->set_work(node, &detail::work_tag<kMember>);
    bind_args<kMember>(node, std::index_sequence_for<Args...>{}, std::forward<Args>(args)...);
    if constexpr (!std::is_void_v<Result>) {
      return Token<Result>{node};
    }
  }

 private:
  template <auto kMember, std::size_t... I, class... Args>
  constexpr void bind_args([[maybe_unused]] int node, std::index_sequence<I...>, Args&&... args) {
    (rec_->template bind_arg<work_arg_t<kMember, I>>(std::forward<Args>(args), node,
                                                     static_cast<int>(I)),
     ...);
  }

  Recorder* rec_;
  int index_;
  R instance_;
};

}  // namespace warploom::ts
