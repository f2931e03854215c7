// warploom/ts/domain_loop.hpp
//
// Arguments of ctx.domain_loop(...), shared by the capturing and the executing context:
//
//   ctx.domain_loop(end, body)
//   ctx.domain_loop(start, end, body)
//   ctx.domain_loop(start, end, step, body)          // any of these with ts::unroll<N> before body
//
// A bound is a run-time integer, a compile-time one (ts::c<N>, std::integral_constant,
// cute::Int<N>), or an integer a consumer work returned earlier in the task (a bound read from the
// data: a dynamic domain, e.g. the K tiles of a grouped GEMM's current problem). On the device that
// value is a plain int; during capture it is the work's ts::Token, and the loop records which step
// produced its bound. The verifier treats run-time and data bounds as unknown trip counts;
// ts::multiple_of<K>(n) tells it that a run-time bound is a multiple of K, ts::at_least<N>(n) that
// it gives at least N trips.
#pragma once

#include <concepts>
#include <cstddef>
#include <tuple>
#include <type_traits>

#include "warploom/config.hpp"
#include "warploom/ts/schedule_ir.hpp"

namespace warploom::ts {

template <int kFactor>
struct Unroll {
  static_assert(kFactor >= 1, "R-B3: unroll factor must be at least 1");
  static constexpr int factor = kFactor;
};
// ts::unroll<4>: unroll the domain loop by 4.
template <int kFactor>
inline constexpr Unroll<kFactor> unroll{};

// ts::c<4>: the compile-time integer 4.
template <int kValue>
inline constexpr std::integral_constant<int, kValue> c{};

// A run-time bound the schedule promises is a multiple of kMultiple, e.g. the end of a loop that
// takes two items per iteration over 2n items: ctx.domain_loop(0, ts::multiple_of<2>(2 * n),
// ts::c<2>, ...). The verifier then tries only such extents for the loops over that domain; the
// device runs the plain integer (the promise is the caller's, unchecked).
template <int kMultiple>
struct MultipleOf {
  static_assert(kMultiple >= 1, "ts::multiple_of<K>: K must be at least 1");
  static constexpr int multiple = kMultiple;
  int value = 0;
  WL_HOST_DEVICE constexpr operator int() const { return value; }
};
template <int kMultiple>
WL_HOST_DEVICE constexpr MultipleOf<kMultiple> multiple_of(int value) {
  return {value};
}

// A run-time bound that may differ between the CTAs of a cluster, e.g. a persistent loop whose
// tiles are dealt to the CTAs one by one, so that some CTAs get one tile fewer:
// ctx.domain_loop(ts::per_cta(tiles_of_this_cta), ...). On a multicast pipeline every CTA must
// fill and release alike (a peer waits for the fill or the release of a CTA that stopped early),
// so the verifier then also tries scenarios in which some CTAs of the cluster run one iteration
// fewer than the others. The device runs the plain integer.
struct PerCta {
  int value = 0;
  WL_HOST_DEVICE constexpr operator int() const { return value; }
};
WL_HOST_DEVICE constexpr PerCta per_cta(int value) {
  return {value};
}

// A run-time or data bound the schedule promises gives its loops at least kMin trips, e.g. the K
// tiles of a GEMM tile (K >= 1) when the loop's last iteration hands a turn to another task:
// ctx.domain_loop(ts::at_least<1>(k_tiles), ...). The verifier then tries no trip count below
// kMin for the loops over that bound (a zero-trip loop would never give the turn); the device
// runs the plain integer (the promise is the caller's, unchecked).
template <int kMin, class B>
struct AtLeast {
  static_assert(kMin >= 1, "ts::at_least<N>: N must be at least 1");
  static constexpr int min = kMin;
  B bound;
  WL_HOST_DEVICE constexpr operator int() const requires std::convertible_to<B, int> {
    return static_cast<int>(bound);
  }
};
template <int kMin, class B>
WL_HOST_DEVICE constexpr AtLeast<kMin, B> at_least(B bound) {
  return {bound};
}

template <class T>
concept StaticBound = std::is_empty_v<T> && requires {
  { T::value } -> std::convertible_to<long long>;
};

// A captured work's integer result (ts::Token<int>, recorder.hpp), used as a bound.
template <class T>
concept DataBound = requires(T const& t) {
  typename T::value_type;
  requires std::integral<typename T::value_type>;
  { t.node } -> std::convertible_to<int>;
};

namespace detail {
template <class T>
struct is_multiple_of : std::false_type {};
template <int k>
struct is_multiple_of<MultipleOf<k>> : std::true_type {};
template <class T>
struct is_at_least : std::false_type {};
template <int k, class B>
struct is_at_least<AtLeast<k, B>> : std::true_type {};
}  // namespace detail

template <class T>
concept LoopBound = std::integral<std::remove_cvref_t<T>> || StaticBound<std::remove_cvref_t<T>> ||
    DataBound<std::remove_cvref_t<T>> || detail::is_multiple_of<std::remove_cvref_t<T>>::value ||
    detail::is_at_least<std::remove_cvref_t<T>>::value ||
    std::same_as<std::remove_cvref_t<T>, PerCta>;

namespace detail {

template <class T>
struct is_unroll : std::false_type {};
template <int k>
struct is_unroll<Unroll<k>> : std::true_type {};

template <class B>
constexpr Bound to_bound(B const& b) {
  if constexpr (is_at_least<B>::value) {
    Bound out = to_bound(b.bound);
    out.at_least = B::min;
    return out;
  } else if constexpr (StaticBound<B>) {
    return {true, static_cast<long long>(B::value)};
  } else if constexpr (DataBound<B>) {
    return {.is_static = false, .value = 0, .source = b.node};
  } else if constexpr (is_multiple_of<B>::value) {
    return {.is_static = false, .value = static_cast<long long>(b.value), .multiple = B::multiple};
  } else if constexpr (std::same_as<B, PerCta>) {
    return {.is_static = false, .value = static_cast<long long>(b.value), .per_cta = true};
  } else {
    return {false, static_cast<long long>(b)};
  }
}

template <class B>
WL_HOST_DEVICE constexpr int to_int(B const& b) {
  if constexpr (is_at_least<B>::value) {
    return to_int(b.bound);
  } else if constexpr (StaticBound<B>) {
    return static_cast<int>(B::value);
  } else {
    return static_cast<int>(b);
  }
}

// Splits domain_loop's arguments into bounds, unroll factor and body.
template <class... Args>
struct LoopArgs {
  static constexpr std::size_t n = sizeof...(Args);
  static_assert(n >= 2, "R-A12: domain_loop needs 1 to 3 bounds followed by the loop body");
  using tuple = std::tuple<Args&...>;
  static constexpr bool has_unroll =
      n >= 3 && is_unroll<std::remove_cvref_t<std::tuple_element_t<n - 2, tuple>>>::value;
  static constexpr std::size_t num_bounds = n - 1 - (has_unroll ? 1 : 0);
  static_assert(num_bounds >= 1 && num_bounds <= 3,
                "R-A12: domain_loop takes (end), (start, end) or (start, end, step), optionally "
                "ts::unroll<N>, then the body");
  static constexpr int unroll = [] {
    if constexpr (has_unroll) {
      return std::remove_cvref_t<std::tuple_element_t<n - 2, tuple>>::factor;
    } else {
      return 0;
    }
  }();

  template <std::size_t i>
  using arg_t = std::remove_cvref_t<std::tuple_element_t<i, tuple>>;

  static constexpr bool bounds_ok = [] {
    if constexpr (num_bounds == 1) {
      return LoopBound<arg_t<0>>;
    } else if constexpr (num_bounds == 2) {
      return LoopBound<arg_t<0>> && LoopBound<arg_t<1>>;
    } else {
      return LoopBound<arg_t<0>> && LoopBound<arg_t<1>> && LoopBound<arg_t<2>>;
    }
  }();
  static_assert(bounds_ok,
                "R-B2: domain_loop bounds must be integers: run-time, compile-time (ts::c<N>) or "
                "returned by a consumer work");

  static constexpr bool static_zero_step = [] {
    if constexpr (num_bounds == 3) {
      if constexpr (StaticBound<arg_t<2>>) return arg_t<2>::value == 0;
    }
    return false;
  }();
  static_assert(!static_zero_step, "R-B3: domain_loop step must not be 0");
};

template <class... Args>
WL_HOST_DEVICE constexpr auto&& loop_body(Args&... args) {
  return std::get<sizeof...(Args) - 1>(std::tuple<Args&...>(args...));
}

// start, end, step of a domain_loop call; start defaults to 0 and step to 1.
template <std::size_t kNumBounds, class... Args>
WL_HOST_DEVICE constexpr auto loop_bounds(Args&... args) {
  std::tuple<Args&...> t(args...);
  // Prvalues, not the variable template ts::c: a host variable cannot be named in device code.
  using Zero = std::integral_constant<int, 0>;
  using One = std::integral_constant<int, 1>;
  if constexpr (kNumBounds == 1) {
    return std::make_tuple(Zero{}, std::get<0>(t), One{});
  } else if constexpr (kNumBounds == 2) {
    return std::make_tuple(std::get<0>(t), std::get<1>(t), One{});
  } else {
    return std::make_tuple(std::get<0>(t), std::get<1>(t), std::get<2>(t));
  }
}

}  // namespace detail
}  // namespace warploom::ts
