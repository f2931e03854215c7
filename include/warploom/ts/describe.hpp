// warploom/ts/describe.hpp
//
// Builds the ts::ManagerModel of a TaskManager from its types: captures every task's schedule
// with the recorder, collects the resource table, graph and shared-memory requests. Usable at run
// time (the CLI, tests) and in constant expressions (the compile-time gate in task_manager.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "warploom/ts/labels.hpp"
#include "warploom/ts/manager_traits.hpp"
#include "warploom/ts/model.hpp"
#include "warploom/ts/recorder.hpp"
#include "warploom/ts/resource.hpp"
#include "warploom/ts/task_barrier.hpp"

namespace warploom::ts {

namespace detail {

template <class R, auto kMember>
using buffer_type_t = std::remove_cvref_t<decltype(std::declval<R&>().*kMember)>;

template <class R, class Buffers>
struct smem_buffers_of;
template <class R, auto... kMembers>
struct smem_buffers_of<R, buffers<kMembers...>> {
  static constexpr void add(std::vector<SmemRequest>& out, int resource) {
    (out.push_back({member_name<kMembers>(), resource,
                    static_cast<long long>(buffer_type_t<R, kMembers>::bytes),
                    buffer_type_t<R, kMembers>::alignment}),
     ...);
  }
};

template <class R>
constexpr void add_smem_requests(std::vector<SmemRequest>& out, int resource) {
  if constexpr (requires { typename R::smem_buffers; }) {
    smem_buffers_of<R, typename R::smem_buffers>::add(out, resource);
  }
}

template <class MemberPtr>
struct member_class;
template <class C, class M>
struct member_class<M C::*> {
  using type = C;
};

template <class Traits, auto... kMembers>
constexpr void mark_alias_group(std::vector<SmemRequest>& reqs, int group, Alias<kMembers...>) {
  int phase = 0;
  (
      [&] {
        using R = typename member_class<decltype(kMembers)>::type;
        int res = Traits::template resource_index<R>;
        for (auto& r : reqs) {
          if (r.resource == res && r.name == member_name<kMembers>()) {
            r.alias_group = group;
            r.alias_phase = phase;
          }
        }
        ++phase;
      }(),
      ...);
}

template <class Traits, class... Groups>
constexpr void mark_aliases(std::vector<SmemRequest>& reqs, Aliases<Groups...>) {
  int group = 0;
  (mark_alias_group<Traits>(reqs, group++, Groups{}), ...);
}

// A group's members point at it, with their rank in its declaration (members_of, empty_owner,
// full_owner).
template <class Traits, class Group, class... Members>
constexpr void mark_group_members(ManagerModel& m, list<Members...>) {
  [&]<std::size_t... kRank>(std::index_sequence<kRank...>) {
    ((m.resources[Traits::template resource_index<Members>].group =
          Traits::template resource_index<Group>,
      m.resources[Traits::template resource_index<Members>].group_rank = static_cast<int>(kRank)),
     ...);
  }
  (std::index_sequence_for<Members...>{});
}

template <class Traits, class T, class R>
constexpr auto make_record_handle(Recorder& rec) {
  return RecordHandle<R, access_v<T, R>>(rec, Traits::template resource_index<R>);
}

template <class T, class Handles, std::size_t... I>
constexpr void call_schedule(Recorder& rec, Handles& handles, std::index_sequence<I...>) {
  static_assert(
      requires(Recorder & r, Handles & h) { T::schedule(r, std::get<I>(h)...); },
      "R-B1: the task's schedule must be callable as "
      "`schedule(ctx, <one handle per src resource>, <one per dst resource>)`");
  T::schedule(rec, std::get<I>(handles)...);
}

template <class Traits, class T, class... Src, class... Dst>
constexpr Schedule capture_at(Recorder::Coords coords, bool* reads_thread, list<Src...>,
                              list<Dst...>, int probe = 0) {
  Schedule s;
  Recorder rec(s, coords, reads_thread, probe);
  std::tuple<RecordHandle<Src, access_v<T, Src>>..., RecordHandle<Dst, access_v<T, Dst>>...>
      handles{make_record_handle<Traits, T, Src>(rec)...,
              make_record_handle<Traits, T, Dst>(rec)...};
  call_schedule<T>(rec, handles, std::index_sequence_for<Src..., Dst...>{});
  return s;
}

constexpr bool is_reserved(Node const& n) {
  return n.kind == NodeKind::Op && n.op != OpKind::Work && n.op != OpKind::AsyncWait;
}

// The reserved ops of `s` in program order, and the loops that hold some reserved op.
struct Reserved {
  std::vector<int> ops, loops;
};
constexpr void reserved_of(Schedule const& s, int id, Reserved& out) {
  Node const& n = s.nodes[id];
  if (is_reserved(n)) out.ops.push_back(id);
  std::size_t const before = out.ops.size();
  int const slot = static_cast<int>(out.loops.size());
  if (n.kind == NodeKind::Loop) out.loops.push_back(id);
  for (int c : n.children) reserved_of(s, c, out);
  if (n.kind == NodeKind::Loop && out.ops.size() == before)
    out.loops.erase(out.loops.begin() + slot);  // no reserved op inside
}

// R-D24: compares `base` with the capture `other` made as another lane (or warp) and records in
// `base` the first reserved op whose count differs: a guard (the reserved ops differ) or a loop
// bound (a loop around reserved ops has other bounds).
constexpr void mark_divergence(Schedule& base, Schedule const& other, bool warp) {
  Reserved a, b;
  reserved_of(base, 0, a);
  reserved_of(other, 0, b);
  auto same_op = [&](int i, int j) {
    return base.nodes[i].op == other.nodes[j].op &&
           base.nodes[i].resource == other.nodes[j].resource;
  };
  std::size_t const n = std::min(a.ops.size(), b.ops.size());
  for (std::size_t k = 0; k <= n; ++k) {
    if (k == n && a.ops.size() == b.ops.size()) break;
    if (k < n && same_op(a.ops[k], b.ops[k])) continue;
    Node const& op = k < a.ops.size() ? base.nodes[a.ops[k]] : other.nodes[b.ops[k]];
    base.divergent.push_back({warp, false, k < a.ops.size() ? a.ops[k] : -1, op.op, op.resource});
    return;
  }
  auto same_bound = [](Bound const& x, Bound const& y) {
    return x.is_static == y.is_static && x.value == y.value;
  };
  for (std::size_t k = 0; k < a.loops.size() && k < b.loops.size(); ++k) {
    Node const& x = base.nodes[a.loops[k]];
    Node const& y = other.nodes[b.loops[k]];
    if (same_bound(x.start, y.start) && same_bound(x.end, y.end) && same_bound(x.step, y.step))
      continue;
    int first = -1;
    for (int id : a.ops)
      for (int p = id; p >= 0 && first < 0; p = base.nodes[p].parent)
        if (p == a.loops[k]) first = id;
    base.divergent.push_back({warp, true, first, base.nodes[first].op, base.nodes[first].resource});
    return;
  }
}

// Records in `base` each loop bound's value in probe capture `probe` (1 or 2; size_probe.hpp). A
// schedule whose probe captured another tree (it branches on a resource field) keeps its bounds'
// own values: its run-time sizes are told apart by their default values only.
constexpr void mark_probe(Schedule& base, Schedule const& probed, int probe) {
  bool alike = base.nodes.size() == probed.nodes.size();
  for (std::size_t i = 0; alike && i < base.nodes.size(); ++i)
    alike = base.nodes[i].kind == probed.nodes[i].kind;
  if (!alike) return;
  for (std::size_t i = 0; i < base.nodes.size(); ++i) {
    Node& n = base.nodes[i];
    if (n.kind != NodeKind::Loop) continue;
    Node const& p = probed.nodes[i];
    for (auto [b, v] : {std::pair{&n.start, p.start.value}, std::pair{&n.end, p.end.value},
                        std::pair{&n.step, p.step.value}}) {
      b->probed = true;
      b->probes[probe - 1] = v;
    }
  }
}

// Captures T's schedule at `at` (its first lane), and again with probed resource fields
// (size_probe.hpp) to name its run-time sizes; one that reads a thread coordinate is captured
// again as lanes 1 and 31 of the same warp and as lane 0 of the next warp, and the differences are
// marked (R-D24).
template <class Traits, class T, class... Src, class... Dst>
constexpr Schedule capture(list<Src...> src, list<Dst...> dst, Recorder::Coords at = {}) {
  auto moved = [&](int lanes) {
    return Recorder::Coords{at.thread + lanes, at.task_thread + lanes, at.warp + lanes / 32};
  };
  bool reads_thread = false;
  Schedule s = capture_at<Traits, T>(at, &reads_thread, src, dst);
  for (int probe : {1, 2})
    mark_probe(s, capture_at<Traits, T>(at, nullptr, src, dst, probe), probe);
  if (reads_thread) {
    mark_divergence(s, capture_at<Traits, T>(moved(1), nullptr, src, dst), false);
    if (s.divergent.empty())
      mark_divergence(s, capture_at<Traits, T>(moved(31), nullptr, src, dst), false);
    mark_divergence(s, capture_at<Traits, T>(moved(32), nullptr, src, dst), true);
  }
  return s;
}

template <class Traits, class... Rs>
constexpr std::vector<int> resource_indices(list<Rs...>) {
  return {Traits::template resource_index<Rs>...};
}

// Where warp `role` of a task whose warps take roles (TaskSpec::warp_roles) is captured: that
// warp's first lane, at its real warp index, which the schedule's branches read. Every other task
// is captured at placeholder coordinates (lane 0 of warp 0).
constexpr Recorder::Coords role_coords(TaskSpec const& spec, int role) {
  int const warp = spec.warp_idx + role;
  return {.thread = warp * 32, .task_thread = 0, .warp = warp};
}

// "name[warp W]": the name a warp role of task T goes by in the model and its findings (static
// storage: TaskSpec::name is a view).
template <class T, int kWarp>
struct RoleName {
  static constexpr std::string_view task = T::spec.name;
  static constexpr std::string_view suffix = "[warp ";
  static constexpr std::size_t size = task.size() + suffix.size() + (kWarp >= 10 ? 2 : 1) + 1;
  static constexpr std::array<char, size> text = [] {
    std::array<char, size> out{};
    std::size_t n = 0;
    for (char c : task) out[n++] = c;
    for (char c : suffix) out[n++] = c;
    if (kWarp >= 10) out[n++] = static_cast<char>('0' + kWarp / 10);
    out[n++] = static_cast<char>('0' + kWarp % 10);
    out[n] = ']';
    return out;
  }();
  static constexpr std::string_view value{text.data(), size};
};

// The resources of `declared` that `s` uses, with the members of a pipeline group it uses (the
// group op moves their cursors).
constexpr std::vector<int> used_of(ManagerModel const& m, Schedule const& s,
                                   std::vector<int> const& declared) {
  auto uses = [&](int r) {
    for (Node const& n : s.nodes)
      if (n.kind == NodeKind::Op && n.resource >= 0 &&
          (n.resource == r || n.resource == m.resources[r].group))
        return true;
    return false;
  };
  std::vector<int> out;
  for (int r : declared)
    if (uses(r)) out.push_back(r);
  return out;
}

// Task T's models, appended to `m`: one, or one per warp when its warps take roles. A warp role is
// a one-warp task at its own warp index, without a named barrier, that declares the resources its
// own capture uses; one the task declares and no warp uses stays with the first warp, where R-D9
// reports it.
template <class Traits, class T>
constexpr void add_task_models(ManagerModel& m) {
  std::vector<int> const src = resource_indices<Traits>(typename T::src{});
  std::vector<int> const dst = resource_indices<Traits>(typename T::dst{});
  if constexpr (T::spec.warp_roles) {
    int const first = static_cast<int>(m.tasks.size());
    [&]<int... kRole>(std::integer_sequence<int, kRole...>) {
      (
          [&] {
            TaskSpec spec = T::spec;
            spec.name = RoleName<T, T::spec.warp_idx + kRole>::value;
            spec.warp_idx += kRole;
            spec.num_warps = 1;
            Schedule s = capture<Traits, T>(typename T::src{}, typename T::dst{},
                                            role_coords(T::spec, kRole));
            TaskModel t{spec, used_of(m, s, src), used_of(m, s, dst), std::move(s)};
            t.role = kRole;
            m.tasks.push_back(std::move(t));
          }(),
          ...);
    }
    (std::make_integer_sequence<int, T::spec.num_warps>{});
    auto keep_unused = [&](std::vector<int> const& declared, auto list_of) {
      for (int r : declared) {
        bool used = false;
        for (std::size_t t = static_cast<std::size_t>(first); t < m.tasks.size(); ++t)
          used = used || std::ranges::find(list_of(m.tasks[t]), r) != list_of(m.tasks[t]).end();
        if (!used) list_of(m.tasks[static_cast<std::size_t>(first)]).push_back(r);
      }
    };
    keep_unused(src, [](TaskModel& t) -> std::vector<int>& { return t.src; });
    keep_unused(dst, [](TaskModel& t) -> std::vector<int>& { return t.dst; });
  } else {
    m.tasks.push_back({T::spec, src, dst, capture<Traits, T>(typename T::src{}, typename T::dst{}),
                       task_barrier<T>(typename Traits::tasks{})});
  }
}

template <class Traits, class Edge>
constexpr void add_edges(std::vector<GraphEdge>& out) {
  using D = typename Edge::downstream;
  [&]<class... Us>(list<Us...>) {
    if constexpr (sizeof...(Us) == 0) {
      out.push_back({Traits::template resource_index<D>, -1});  // in the graph, depends on nothing
    } else {
      (out.push_back({Traits::template resource_index<D>, Traits::template resource_index<Us>}),
       ...);
    }
  }(typename Edge::upstreams{});
}

template <class Traits, class G>
struct graph_edges;
template <class Traits, class... Edges>
struct graph_edges<Traits, Graph<Edges...>> {
  static constexpr std::vector<GraphEdge> get() {
    std::vector<GraphEdge> out;
    (add_edges<Traits, Edges>(out), ...);
    return out;
  }
};

}  // namespace detail

// The resource table and shared-memory requests of the TaskManager described by `Traits`: all the
// allocator needs, without capturing any schedule.
template <class Traits>
constexpr void describe_resources(ManagerModel& m) {
  m.block_warps = Traits::options.block_warps;
  m.smem_capacity = Traits::options.smem_capacity;
  [&]<class... Rs>(list<Rs...>) {
    (check_resource<Rs>(), ...);
    (m.resources.push_back({Rs::spec.name, Rs::spec.kind, Rs::spec.pipeline, Rs::spec.group}), ...);
    (detail::mark_group_members<Traits, Rs>(m, typename detail::group_members<Rs>::type{}), ...);
    (detail::add_smem_requests<Rs>(m.smem, Traits::template resource_index<Rs>), ...);
  }(typename Traits::resources{});
  detail::mark_aliases<Traits>(m.smem, typename Traits::aliases{});
}

// The verifier's view of the TaskManager described by `Traits` (a ts::ManagerTraits): its tasks
// in list order (a task whose warps take roles as one task per warp), then the padding the
// TaskManager derives for the idle warps (derive_padding).
template <class Traits>
constexpr ManagerModel describe(std::string_view name = "task_manager") {
  ManagerModel m;
  m.name = name;
  describe_resources<Traits>(m);
  [&]<class... Ts>(list<Ts...>) {
    (detail::add_task_models<Traits, Ts>(m), ...);
  }(typename Traits::tasks{});
  derive_padding(m);
  m.graph = detail::graph_edges<Traits, typename Traits::graph>::get();
  return m;
}

}  // namespace warploom::ts
