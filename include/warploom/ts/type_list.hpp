// warploom/ts/type_list.hpp
//
// The few type-list operations the TaskManager needs to turn task declarations into a resource
// table: membership, index, de-duplicated concatenation. (C++20 has no type-list library and CuTe's
// tuple algorithms work on values, so this stays small and local.)
#pragma once

#include <cstddef>
#include <type_traits>

namespace warploom::ts {

template <class... Ts>
struct list {
  static constexpr std::size_t size = sizeof...(Ts);
};

namespace detail {

template <class T, class List>
struct contains;
template <class T, class... Ts>
struct contains<T, list<Ts...>> : std::bool_constant<(std::is_same_v<T, Ts> || ...)> {};

template <class T, class List>
struct index_of;
template <class T, class... Ts>
struct index_of<T, list<Ts...>> {
  static constexpr int value = [] {
    int i = 0, found = -1;
    ((std::is_same_v<T, Ts> ? (found = found < 0 ? i : found, ++i) : ++i), ...);
    return found;
  }();
};

template <class Acc, class... Rest>
struct unique_impl {
  using type = Acc;
};
template <class... Acc, class T, class... Rest>
struct unique_impl<list<Acc...>, T, Rest...>
    : std::conditional_t<contains<T, list<Acc...>>::value, unique_impl<list<Acc...>, Rest...>,
                         unique_impl<list<Acc..., T>, Rest...>> {};

template <class... Lists>
struct concat;
template <>
struct concat<> {
  using type = list<>;
};
template <class... Ts>
struct concat<list<Ts...>> {
  using type = list<Ts...>;
};
template <class... As, class... Bs, class... Rest>
struct concat<list<As...>, list<Bs...>, Rest...> : concat<list<As..., Bs...>, Rest...> {};

template <class List>
struct unique;
template <class... Ts>
struct unique<list<Ts...>> : unique_impl<list<>, Ts...> {};

}  // namespace detail

template <class T, class List>
inline constexpr bool contains_v = detail::contains<T, List>::value;

// Position of T in List, or -1.
template <class T, class List>
inline constexpr int index_of_v = detail::index_of<T, List>::value;

template <class... Lists>
using concat_t = typename detail::concat<Lists...>::type;

// List with repeated types removed, first occurrence kept.
template <class List>
using unique_t = typename detail::unique<List>::type;

template <class T>
inline constexpr bool dependent_false = false;

}  // namespace warploom::ts
