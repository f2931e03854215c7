// warploom/ts/work.hpp
//
// Calling work from a schedule. A work is a member function of a resource whose first parameter
// is a ts::StageInfo role type (ts::Produce, ts::Consume, ts::ProduceAux, ts::ConsumeAux,
// ts::ConsumeInPlace):
//
//   auto row = ts::work<&InputGmem::compute_coords>(in);     // consumer work, returns a value
//   ts::work<&SmemTiles::tma_load>(smem, row);                // producer work, takes it
//
// The member pointer identifies the work at compile time, so calling a work the resource does not
// declare, calling it through the wrong role or with the wrong arguments does not compile, and the
// label shown by the verifier is the member's name. The same call records a step when the schedule
// is captured on the host and runs the member function when the schedule executes on the device.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include "warploom/config.hpp"
#include "warploom/ts/labels.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::ts {

namespace detail {

template <class First>
inline constexpr bool is_stage_param_v = std::is_base_of_v<StageInfo, std::remove_cvref_t<First>> &&
                                         !std::is_same_v<StageInfo, std::remove_cvref_t<First>>;

template <class MemberFn>
struct member_fn_traits {
  static constexpr bool is_member_fn = false;
};

#define WL_TS_MEMBER_FN_TRAITS(QUALIFIERS)                         \
  template <class R, class Ret, class First, class... Args>        \
  struct member_fn_traits<Ret (R::*)(First, Args...) QUALIFIERS> { \
    static constexpr bool is_member_fn = true;                     \
    using resource = R;                                            \
    using result = Ret;                                            \
    using first = First;                                           \
    using args = std::tuple<Args...>;                              \
    static constexpr int arity = sizeof...(Args);                  \
  };
WL_TS_MEMBER_FN_TRAITS()
WL_TS_MEMBER_FN_TRAITS(const)
WL_TS_MEMBER_FN_TRAITS(noexcept)
WL_TS_MEMBER_FN_TRAITS(const noexcept)
#undef WL_TS_MEMBER_FN_TRAITS

}  // namespace detail

// What TS knows about a work from its member pointer alone.
template <auto kMember>
struct work_traits : detail::member_fn_traits<decltype(kMember)> {
  using base = detail::member_fn_traits<decltype(kMember)>;
  static constexpr bool is_work = [] {
    if constexpr (base::is_member_fn) {
      return detail::is_stage_param_v<typename base::first>;
    } else {
      return false;
    }
  }();
  static constexpr Role role = [] {
    if constexpr (is_work) {
      return std::remove_cvref_t<typename base::first>::role;
    } else {
      return Role::Producer;
    }
  }();
  static constexpr std::string_view label = member_name<kMember>();
};

template <auto kMember>
using work_result_t = typename work_traits<kMember>::result;

template <auto kMember, int kIndex>
using work_arg_t = std::tuple_element_t<kIndex, typename work_traits<kMember>::args>;

// Calls work `kMember` on resource handle `h` with `args` (tokens or locals from earlier works, or
// plain values). Host capture records the step and data-flow edges; device execution calls the
// member with the current ts::StageInfo.
template <auto kMember, class Handle, class... Args>
WL_HOST_DEVICE constexpr decltype(auto) work(Handle& h, Args&&... args) {
  using W = work_traits<kMember>;
  static_assert(W::is_member_fn,
                "ts::work<&Resource::member>: the template argument must point to a member "
                "function of the resource");
  static_assert(
      W::is_work,
      "ts::work: this member is not a work: a work's first parameter must be "
      "ts::Produce, ts::Consume, ts::ProduceAux, ts::ConsumeAux or ts::ConsumeInPlace (by "
      "const&)");
  if constexpr (W::is_work) {  // past a "not a work" error, the checks below would only add noise
    using R = typename Handle::resource;
    // A work the resource inherits is its own too: a kernel's queue derives from
    // ts::StaticTileQueue and adds its skip predicate (work_queue.hpp).
    static_assert(
        std::is_base_of_v<typename W::resource, R>,
        "R-D20: undeclared work: the work is declared on another resource than the handle "
        "it is called on (see the template arguments below for both names)");
    static_assert(sizeof...(Args) == W::arity,
                  "R-A6: wrong number of arguments for this work (the work's parameters after its "
                  "stage parameter must all be given)");
    if constexpr (is_producer_side(W::role)) {
      static_assert(Handle::can_produce,
                    "R-D5: producer work called on a resource the task lists only in `src` "
                    "(consumer side); list the resource in the task's `dst` or call consumer work");
    } else {
      static_assert(Handle::can_consume,
                    "R-D5: consumer work called on a resource the task lists only in `dst` "
                    "(producer side); list the resource in the task's `src` or call producer work");
    }
    return h.template invoke<kMember>(std::forward<Args>(args)...);
  }
}

}  // namespace warploom::ts
