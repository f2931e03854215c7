// warploom/ts/work_tile_loop.hpp
//
// Arguments of ctx.work_tile_loop(...), shared by the capturing and the executing context: a
// persistent task's loop over the tiles of its work queue (ts/work_queue.hpp).
//
//   ctx.work_tile_loop(queue, [&](auto& tiles) {
//     queue.wait();                                          // the queue's handshake, once per
//     auto tile = ts::work<&Tiles::next_tile>(queue);        // fetch: no-ops and a computed tile
//     queue.release();                                       // on a static queue
//     tiles.if_valid(tile, [&] { ...the tile's work... });   // the last fetch is invalid: the
//   });                                                      // loop ends after it
//
//   ctx.work_tile_loop(queue, ts::skip_if<&Tiles::masked>, [&](auto& tiles) {
//     ...the handshake...
//     tiles.if_valid(tile, [&] {
//       tiles.skippable([&] { ...work a skipped tile omits... });
//     });
//   });
//
//   ctx.work_tile_loop(queue, [&](auto& tiles) {
//     ...the handshake...
//     tiles.if_valid(tile, [&] {
//       tiles.not_first_iter([&] { ...use what the tile before left in a local... });
//       ...
//     });
//     tiles.if_invalid(tile, [&] { ...what the last tile left for a next one... });
//   });
//
// The loop runs until the queue hands out a tile marked invalid: once per tile and once more.
// first_iter / not_first_iter guard work on the fetch (the first fetch may be the invalid one:
// a CTA with no tile); if_invalid runs once, in the invalid tile's iteration, the loop's last.
// Every task on a queue sees the same tiles in the same order (a static queue computes them, a
// dynamic one broadcasts the scheduler's fetches to all), so the verifier gives their tile loops
// one trip count per scenario, and one skip predicate, the queue's, skips a tile for all of them.
//
// Rules: R-A10 (one tile loop, at top level, over a work queue the task lists in src; outside it
// only auxiliary work and signals), R-B5 / R-A11 (the skip predicate is a `bool (ts::WorkTile
// const&) const` member of that queue), R-A13 (skippable() only in a loop with skip_if, not
// nested, no queue op inside), R-D12 (queue ops once per iteration at the loop's top, the tile
// tested by if_valid or if_invalid read from the queue; all tasks persistent or none).
#pragma once

#include <concepts>
#include <cstddef>
#include <tuple>
#include <type_traits>

#include "warploom/ts/resource.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::ts {

// ts::skip_if<&Queue::member>: the tile loop's skip predicate, `bool member(ts::WorkTile const&)
// const` of the work queue. Sections in tiles.skippable(...) do not run for a tile it keeps out.
template <auto kMember>
struct SkipIf {
  static constexpr auto member = kMember;
};
template <auto kMember>
inline constexpr SkipIf<kMember> skip_if{};

// A tile loop without a skip predicate.
struct NoSkip {};

namespace detail {

template <class T>
struct is_skip_if : std::false_type {};
template <auto k>
struct is_skip_if<SkipIf<k>> : std::true_type {};

template <class MemberPtr>
struct skip_owner {
  using type = void;
};
template <class C, class M>
struct skip_owner<M C::*> {
  using type = C;
};

// Splits work_tile_loop's arguments after the queue: (body) or (ts::skip_if<...>, body).
template <class Queue, class... Args>
struct TileLoopArgs {
  static constexpr std::size_t n = sizeof...(Args);
  static_assert(n == 1 || n == 2,
                "R-A10: work_tile_loop takes the queue, optionally ts::skip_if<&Queue::member>, "
                "then the body");
  using tuple = std::tuple<std::remove_cvref_t<Args>...>;
  static constexpr bool has_skip = [] {
    if constexpr (n == 2) {
      return is_skip_if<std::tuple_element_t<0, tuple>>::value;
    } else {
      return false;
    }
  }();
  static_assert(n == 1 || has_skip,
                "R-A10: the argument between the queue and the body must be "
                "ts::skip_if<&Queue::member>");
  using skip = std::conditional_t<has_skip, std::tuple_element_t<0, tuple>, NoSkip>;
};

template <class Queue, class Skip>
constexpr bool check_skip_if() {
  if constexpr (is_skip_if<Skip>::value) {
    using Owner = typename skip_owner<std::remove_cv_t<decltype(Skip::member)>>::type;
    static_assert(std::is_member_function_pointer_v<decltype(Skip::member)> &&
                      std::is_base_of_v<std::remove_cv_t<Owner>, Queue>,
                  "R-A11: the skip_if predicate must be a member function of the work queue the "
                  "loop walks (every task on a queue skips by its one predicate)");
    static_assert(
        std::is_invocable_r_v<bool, decltype(Skip::member), Queue const&, WorkTile const&>,
        "R-B5: a skip_if predicate is `bool member(ts::WorkTile const&) const` of the "
        "work queue");
  }
  return true;
}

// A captured work result holding a tile (ts::Token<ts::WorkTile>, recorder.hpp).
template <class T>
concept TileToken = requires(T const& t) {
  typename T::value_type;
  { t.node } -> std::convertible_to<int>;
}
&&std::is_convertible_v<typename T::value_type, WorkTile>;

// The checks on the queue handle both contexts make.
template <class Handle>
constexpr bool check_tile_loop_queue() {
  static_assert(Handle::resource::spec.kind == ResourceKind::WorkQueue,
                "R-A10: work_tile_loop walks a work queue: give the resource "
                "`.kind = ts::ResourceKind::WorkQueue` (or use ts::StaticTileQueue / "
                "ts::DynamicTileQueue)");
  static_assert(Handle::can_consume,
                "R-A10: a task takes its tiles from a work queue it lists in `src` (the scheduler "
                "of a dynamic queue lists it in src and dst)");
  return true;
}

}  // namespace detail
}  // namespace warploom::ts
