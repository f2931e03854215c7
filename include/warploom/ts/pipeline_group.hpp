// warploom/ts/pipeline_group.hpp
//
// Pipeline groups (the seed's PipelineGroup, tutorial 07): pipelined resources that share one side
// of their barriers, so that one op serves them all.
//
//   using Inputs = ts::Merge<"inputs", Operands, Residual>;  // one consumer, several producers
//   using Tiles2 = ts::Fork<"tile", ForMma, ForStore>;       // one producer, several consumers
//
// Merge: each member keeps its own full barriers (its producer, perhaps a TMA beside a thread
//        writer, completes them); the members share one array of empty barriers. The consumer
//        waits on every member as usual, then releases them all with one `release()` of the
//        group, once per stage it waited on in each member.
// Fork:  the members share one array of full barriers (the one producer's fill completes it: the
//        first member's acquire arms a TMA stage's bytes) and each keeps its own empty barriers,
//        so its consumers (a wgmma reader beside a thread reader, say) release on their own. The
//        producer acquires every member as usual, then publishes them all with one `commit()` of
//        the group.
//
// One buffer read by two consumers (a TMA tile for wgmma and for threads): a Fork whose members'
// buffers alias (ts::Aliases<ts::Alias<&A::stages, &B::stages>> on the TaskManager). The producer
// acquires every member, writes the primary's stage once (its TMA bytes complete the fill), then
// commits the group; the model checker proves per byte range that no reader still holds it.
//
// Lowering (task_manager.hpp, device/group_handle.hpp): the shared side is one barrier array, the
// group's (smem_layout.hpp); each member's DevicePipeline points at it, so member ops lower as on a
// plain pipeline. The group's op arrives once and moves every member's cursor on that side.
//
// A group is a resource of kind ResourceKind::Group with no buffers and no works of its own: its
// pipeline config describes the shared barrier array (the members' common stages, flags, multicast
// and the shared side's cooperative group). Members stay resources of their own, with their
// buffers, works and names in diagnostics; a task lists the group beside the members it uses, on
// the side of the group op (Merge: src; Fork: dst). A member-level release of a Merge member or
// commit of a Fork member is refused (R-D25); so is any other op on the group.
//
// The rules a group's declaration must follow are checked where the type is first used, by
// static_asserts numbered R-C2 as in the seed (ts-reference §4.C); the compiler's note names the
// group and the member.
#pragma once

#include <cstddef>
#include <string_view>

#include "warploom/ts/pipeline_config.hpp"
#include "warploom/ts/resource.hpp"
#include "warploom/ts/type_list.hpp"

namespace warploom::ts {

// A name as a template argument: ts::Merge<"inputs", ...> (and the corpus's resources and tasks).
template <std::size_t N>
struct FixedName {
  char text[N]{};
  constexpr FixedName(char const (&s)[N]) {  // NOLINT: implicit, so that "inputs" converts
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
  constexpr std::string_view view() const { return {text, N - 1}; }
};

namespace detail {

// Which unit reads a stage (the consumer kind) and which writes it (the producer kind).
constexpr AsyncReader consumer_kind(PipelineConfig const& p) {
  return p.async_reader();
}
constexpr bool same_group(CooperativeGroup a, CooperativeGroup b) {
  return a.agent == b.agent && a.size == b.size;
}

// R-C2, one member against the first: `First` fixes what every member must agree on.
template <GroupMode kMode, class First, class Member>
constexpr bool check_group_member() {
  constexpr PipelineConfig f = First::spec.pipeline;
  constexpr PipelineConfig p = Member::spec.pipeline;
  static_assert(Member::spec.kind != ResourceKind::Group,
                "R-C2: a pipeline group's member is a pipelined resource, not another group");
  static_assert(
      p.enabled(),
      "R-C2: a pipeline group's member needs a pipeline (`.pipeline = ts::tma_async(...)` "
      "etc. in its ResourceSpec)");
  static_assert(p.num_stages == f.num_stages,
                "R-C2: the members of a pipeline group must have the same num_stages (the note "
                "names the group and the member)");
  static_assert(
      p.advance_on_wait == f.advance_on_wait && p.advance_on_acquire == f.advance_on_acquire,
      "R-C2: the members of a pipeline group must agree on advance_on_wait and "
      "advance_on_acquire: the group op moves every member's cursor alike");
  static_assert(p.multicast_ctas == f.multicast_ctas && p.release_ctas() == f.release_ctas(),
                "R-C2: the members of a pipeline group must multicast to the same CTAs");
  if constexpr (kMode == GroupMode::Merge) {
    static_assert(consumer_kind(p) == consumer_kind(f),
                  "R-C2: the members of a ts::Merge share one consumer kind (threads, wgmma or TMA "
                  "store): one task releases them all; use ts::Fork for different consumers");
    static_assert(same_group(p.consumer, f.consumer),
                  "R-C2: the members of a ts::Merge must have the same consumer group: the shared "
                  "empty barrier counts one release of the group");
  } else {
    static_assert(p.tma_producer() == f.tma_producer(),
                  "R-C2: the members of a ts::Fork share one producer kind (TMA or threads): one "
                  "task fills them all; use ts::Merge for different producers");
    static_assert(same_group(p.producer, f.producer),
                  "R-C2: the members of a ts::Fork must have the same producer group: the shared "
                  "full barrier counts one commit of the group");
    static_assert(p.num_bytes == f.num_bytes,
                  "R-C2: the members of a ts::Fork must have equal num_bytes: one fill completes "
                  "the shared full barrier");
  }
  return true;
}

template <class T, class... Ts>
inline constexpr int count_of_v = (0 + ... + (std::is_same_v<T, Ts> ? 1 : 0));

template <GroupMode kMode, class First, class... Members>
constexpr PipelineConfig group_pipeline() {
  static_assert(sizeof...(Members) >= 1,
                "R-C2: a pipeline group has at least two members (one member is the member "
                "itself)");
  static_assert(((count_of_v<Members, First, Members...> == 1) && ... &&
                 (count_of_v<First, First, Members...> == 1)),
                "R-C2: a resource is listed twice in one pipeline group");
  static_assert((check_group_member<kMode, First, First>() && ... &&
                 check_group_member<kMode, First, Members>()));
  // The shared array's config: the first member's, which every member matches on the shared side.
  return First::spec.pipeline;
}

}  // namespace detail

// One consumer, several producers: the members share their empty barriers (see above).
template <FixedName kName, class... Members>
struct Merge {
  static constexpr ResourceSpec spec{
      .name = kName.view(),
      .pipeline = detail::group_pipeline<GroupMode::Merge, Members...>(),
      .kind = ResourceKind::Group,
      .group = GroupMode::Merge};
  using members = list<Members...>;
};

// One producer, several consumers: the members share their full barriers (see above).
template <FixedName kName, class... Members>
struct Fork {
  static constexpr ResourceSpec spec{
      .name = kName.view(),
      .pipeline = detail::group_pipeline<GroupMode::Fork, Members...>(),
      .kind = ResourceKind::Group,
      .group = GroupMode::Fork};
  using members = list<Members...>;
};

namespace detail {

template <class R>
struct group_members {
  using type = list<>;
};
template <class R>
requires(R::spec.kind == ResourceKind::Group) struct group_members<R> {
  using type = typename R::members;
};

template <class R, class Group>
inline constexpr int membership_v = contains_v<R, typename group_members<Group>::type> ? 1 : 0;

// R-C2 across a TaskManager: a resource belongs to at most one group (its barriers can be shared
// one way only).
template <class R, class... Rs>
constexpr bool check_one_group() {
  static_assert((0 + ... + membership_v<R, Rs>) <= 1,
                "R-C2: a resource is a member of two pipeline groups; a resource shares one side "
                "of its barriers with one group at most (the note names the resource)");
  return true;
}

}  // namespace detail

// `List` with every group's members added (a member no task names still gets barriers), and every
// resource checked to be in at most one group.
template <class List>
struct with_group_members;
template <class... Rs>
struct with_group_members<list<Rs...>> {
  using type = unique_t<concat_t<list<Rs...>, typename detail::group_members<Rs>::type...>>;
};
template <class List>
using with_group_members_t = typename with_group_members<List>::type;

template <class List>
constexpr bool check_group_membership() {
  return []<class... Rs>(list<Rs...>) {
    return (detail::check_one_group<Rs, Rs...>() && ...);
  }(List{});
}

}  // namespace warploom::ts
