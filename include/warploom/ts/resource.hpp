// warploom/ts/resource.hpp
//
// A resource is the unit of ownership in TS: a buffer, a queue, a barrier, or only coordinate
// logic. It is an ordinary struct holding its run-time state (pointers, descriptors, sizes) and
// its works as member functions, plus a compile-time ts::ResourceSpec:
//
//   struct SmemTiles {
//     static constexpr ts::ResourceSpec spec{
//         .name = "smem",
//         .pipeline = ts::tma_async(kStages, kStageBytes, ts::threads(1), ts::threads(128))};
//     ts::SmemBuffer<half, kStages * kTileElems> tiles;   // (STAGES*TILE)
//     using smem_buffers = ts::buffers<&SmemTiles::tiles>;
//
//     void tma_load(ts::Produce const& stage, int row);    // producer work
//     half read_smem(ts::Consume const& stage) const;      // consumer work
//   };
//
// The reserved pipeline operations (try_acquire, acquire, commit, try_wait, wait, release, skip)
// are TS's, not the resource's: a member with one of those names is a compile error (R-A5).
// Resources must be default-constructible in constant expressions (give members initialisers),
// because schedules are captured at compile time with a default instance.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "warploom/ts/pipeline_config.hpp"
#include "warploom/ts/smem_buffer.hpp"

namespace warploom::ts {

enum class ResourceKind : std::uint8_t {
  Memory,     // owns data (registers, shared or global memory)
  Barrier,    // signalling only: ordering edges, relaxed dependency-graph rules
  WorkQueue,  // hands out work tiles to persistent tasks
  // Programmatic dependent launch (ts/pdl.hpp): the previous grid's results, and the signal that
  // the next grid may start. Signalling only, like Barrier; R-D7 orders the wait.
  PdlWait,
  PdlLaunch,
  // A pipeline group (ts::Merge, ts::Fork; pipeline_group.hpp): no buffers or works of its own,
  // only the barrier array its members share and the one group op.
  Group,
};

// How a group's members share barriers: Merge, one consumer releasing every member's stage with
// one arrival (one shared empty array); Fork, one producer filling every member's stage with one
// commit (one shared full array). None: not a group.
enum class GroupMode : std::uint8_t { None, Merge, Fork };

// Whether a resource only signals (no data of its own): the dependency graph's relaxed rules.
constexpr bool is_barrier(ResourceKind kind) {
  return kind == ResourceKind::Barrier || kind == ResourceKind::PdlWait ||
         kind == ResourceKind::PdlLaunch || kind == ResourceKind::Group;
}

struct ResourceSpec {
  std::string_view name;
  PipelineConfig pipeline = no_pipeline;
  ResourceKind kind = ResourceKind::Memory;
  GroupMode group = GroupMode::None;  // ResourceKind::Group only
};

// Whether a task that produces the resource drains it at its end (the producer tail: wait until
// the consumers released every stage once more). The drain keeps the CTA alive while arrivals
// from other CTAs may still target its barriers (multicast), and on a data ring it turns a fill
// nobody consumes (a lost tile) into a hang the verifier reports. An ordering token of one CTA
// needs neither: it carries no data, and its last signal may rightly go unwaited (e.g. "the next
// tile may start" after the last tile), where a drain would hang the kernel. The device
// (DeviceHandle::producer_tail) and the model checker (build_program) both ask this.
// A group drains through its members (each member's producer waits on its own cursor), never
// itself.
constexpr bool drains_at_exit(ResourceKind kind, PipelineConfig const& p) {
  if (kind == ResourceKind::Group) return false;
  return p.enabled() && (kind != ResourceKind::Barrier || p.multicast_ctas > 1);
}

namespace detail {

// "Does R have a member called X?" without knowing its kind: a derived class that also inherits
// a member X from a probe base makes `&Derived::X` ambiguous exactly when R declares one. A final
// class cannot be derived from; there `&R::X` (or `R::X` for a type) is asked directly, which
// finds every member but an overloaded function.
#define WL_TS_DECLARE_MEMBER_PROBE(X)                          \
  struct probe_##X {                                           \
    int X;                                                     \
  };                                                           \
  template <class R>                                           \
  struct probe_derived_##X : R, probe_##X {};                  \
  template <class R>                                           \
  constexpr bool declares_##X() {                              \
    if constexpr (std::is_class_v<R> && !std::is_final_v<R>) { \
      return !requires {                                       \
        &probe_derived_##X<R>::X;                              \
      };                                                       \
    } else if constexpr (std::is_class_v<R>) {                 \
      return requires {                                        \
        &R::X;                                                 \
      }                                                        \
      || requires {                                            \
        typename R::X;                                         \
      };                                                       \
    } else {                                                   \
      return false;                                            \
    }                                                          \
  }

WL_TS_DECLARE_MEMBER_PROBE(try_acquire)
WL_TS_DECLARE_MEMBER_PROBE(acquire)
WL_TS_DECLARE_MEMBER_PROBE(commit)
WL_TS_DECLARE_MEMBER_PROBE(try_wait)
WL_TS_DECLARE_MEMBER_PROBE(wait)
WL_TS_DECLARE_MEMBER_PROBE(release)
WL_TS_DECLARE_MEMBER_PROBE(skip)
#undef WL_TS_DECLARE_MEMBER_PROBE

}  // namespace detail

template <class R>
concept Resource = requires {
  { R::spec } -> std::convertible_to<ResourceSpec>;
}
&&std::is_default_constructible_v<R>;

template <class R>
inline constexpr bool has_pipeline_v = R::spec.pipeline.enabled();

// Compile-time checks on a resource declaration, evaluated wherever TS first sees the type.
template <class R>
constexpr bool check_resource() {
  static_assert(Resource<R>,
                "TS resource: a resource needs `static constexpr ts::ResourceSpec spec{...}` and a "
                "default constructor usable in constant expressions");
  static_assert(!detail::declares_try_acquire<R>(),
                "R-A5: a resource may not declare a member named `try_acquire`: it is a reserved "
                "pipeline operation; rename the work");
  static_assert(!detail::declares_acquire<R>(),
                "R-A5: a resource may not declare a member named `acquire`: it is a reserved "
                "pipeline operation; rename the work");
  static_assert(!detail::declares_commit<R>(),
                "R-A5: a resource may not declare a member named `commit`: it is a reserved "
                "pipeline operation; rename the work");
  static_assert(!detail::declares_try_wait<R>(),
                "R-A5: a resource may not declare a member named `try_wait`: it is a reserved "
                "pipeline operation; rename the work");
  static_assert(!detail::declares_wait<R>(),
                "R-A5: a resource may not declare a member named `wait`: it is a reserved pipeline "
                "operation; rename the work");
  static_assert(!detail::declares_release<R>(),
                "R-A5: a resource may not declare a member named `release`: it is a reserved "
                "pipeline operation; rename the work");
  static_assert(!detail::declares_skip<R>(),
                "R-A5: a resource may not declare a member named `skip`: it is a reserved "
                "pipeline operation; rename the work");
  return true;
}

}  // namespace warploom::ts
