// warploom/ts/size_probe.hpp
//
// Run-time sizes, named. A schedule forms run-time loop bounds from its resources' fields
// (`ctx.domain_loop(tiles->num_tiles, ...)`); C++20 cannot see which field an `int` was read from,
// so the capture *probes*: besides the capture with default-constructed resources it captures the
// schedule twice more with every integer field of every resource set to a value of its own (a
// hash of the resource type, the field's position and the probe). A run-time bound is then known
// by its values in the three captures: `n` and `m` differ in the probes even when both default to
// 0, `n` and `n + 1` everywhere, and two tasks reading the same field of the same resource agree.
// The verifier runs two loops alike only when their bounds agree in every capture (program.hpp).
//
// A size that two resources carry because the kernel sets both from one value (the load's and the
// store's row band) is declared once, on the resource that copies it:
//
//   struct OutputGmem {
//     int row_begin = 0, row_end = 0;  // this CTA's band, as in InputGmem
//     using same_sizes = ts::same_sizes<ts::same_size<&OutputGmem::row_begin,
//     &InputGmem::row_begin>,
//                                       ts::same_size<&OutputGmem::row_end, &InputGmem::row_end>>;
//   };
//
// It is a promise, like ts::multiple_of: the probes give the field the other field's value, and
// the device runs whatever the kernel stored. Probing needs an aggregate (public fields, no
// constructors: what resources are); a resource that is not one is captured with its defaults in
// every probe, so its fields are told apart only by their default values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

namespace warploom::ts {

// `kCopy` (a field of this resource) holds the same size as `kOrigin` (a field of another one).
template <auto kCopy, auto kOrigin>
struct same_size {};

// A resource's `using same_sizes = ts::same_sizes<ts::same_size<...>, ...>;`.
template <class... Pairs>
struct same_sizes {};

namespace detail {

// Probes set at most this many leading initialisers of a resource (fields, or the elements of
// array fields, in declaration order).
inline constexpr std::size_t kMaxProbedFields = 32;

template <class T>
constexpr std::string_view probe_type_name() {
  return __PRETTY_FUNCTION__;
}

// FNV-1a of the compiler's spelling of T: the same in every capture of one build.
template <class T>
constexpr std::uint64_t probe_type_hash() {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : probe_type_name<T>()) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// The value field `index` of a resource (type hash `type`) holds in probe `probe` (1 or 2): in
// [1000, 30000), so that a bound multiplying two sizes still fits an int.
constexpr long long probe_value(std::uint64_t type, int index, int probe) {
  std::uint64_t h = type + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(index + 1) +
                    0xbf58476d1ce4e5b9ull * static_cast<std::uint64_t>(probe);
  h ^= h >> 31;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 29;
  return 1000 + static_cast<long long>(h % 29000);
}

// Initialises one field of a probed resource: an integer (not a bool) gets its probe value, any
// other type its value-initialised default.
struct ProbeField {
  std::uint64_t type = 0;
  int index = 0;
  int probe = 0;
  template <class T>
  constexpr operator T() const {  // NOLINT: implicit, it initialises any field
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      return static_cast<T>(probe_value(type, index, probe));
    } else {
      return T{};
    }
  }
};

template <class R, class Seq>
struct probe_initializable;
template <class R, std::size_t... I>
struct probe_initializable<R, std::index_sequence<I...>> {
  static constexpr bool value = requires { R{(static_cast<void>(I), ProbeField{})...}; };
};

// How many leading initialisers R's aggregate initialisation takes (at most kMaxProbedFields).
template <class R, std::size_t N = kMaxProbedFields>
constexpr std::size_t probe_field_count() {
  if constexpr (N == 0 || probe_initializable<R, std::make_index_sequence<N>>::value) {
    return N;
  } else {
    return probe_field_count<R, N - 1>();
  }
}

template <class R, std::size_t... I>
constexpr R probe_init([[maybe_unused]] int probe, std::index_sequence<I...>) {
  [[maybe_unused]] constexpr std::uint64_t type = probe_type_hash<R>();
  return R{ProbeField{type, static_cast<int>(I), probe}...};
}

template <class MemberPtr>
struct probe_member_class;
template <class C, class M>
struct probe_member_class<M C::*> {
  using type = C;
};

template <class R>
constexpr R probe_instance(int probe);

template <class R, auto kCopy, auto kOrigin>
constexpr void apply_same_size(R& r, int probe, same_size<kCopy, kOrigin>) {
  using Origin = typename probe_member_class<decltype(kOrigin)>::type;
  static_assert(
      std::is_same_v<typename probe_member_class<decltype(kCopy)>::type, R>,
      "ts::same_size<kCopy, kOrigin>: kCopy must be a field of the resource declaring it");
  static_assert(!std::is_same_v<Origin, R>,
                "ts::same_size<kCopy, kOrigin>: kOrigin must be a field of another resource");
  r.*kCopy = probe_instance<Origin>(probe).*kOrigin;
}

template <class R, class... Pairs>
constexpr void apply_same_sizes(R& r, int probe, same_sizes<Pairs...>) {
  (apply_same_size(r, probe, Pairs{}), ...);
}

// The instance a capture reads R's fields from: the default one (probe 0), or probe 1 or 2.
template <class R>
constexpr R probe_instance(int probe) {
  if constexpr (std::is_aggregate_v<R>) {
    if (probe == 0) return R{};
    R r = probe_init<R>(probe, std::make_index_sequence<probe_field_count<R>()>{});
    if constexpr (requires { typename R::same_sizes; })
      apply_same_sizes(r, probe, typename R::same_sizes{});
    return r;
  } else {
    (void)probe;
    return R{};
  }
}

}  // namespace detail
}  // namespace warploom::ts
