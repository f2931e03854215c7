// warploom/ts/labels.hpp
//
// Labels for free: a work is named in a schedule by a pointer to the resource's member function
// (`ts::work<&SmemTiles::tma_load>(smem, ...)`), so its label is the member's own name. C++20 has
// no reflection; the name is read from the compiler's spelling of the template argument in
// __PRETTY_FUNCTION__ ("... [with auto kMember = &SmemTiles::tma_load; ...]" for GCC,
// "... [kMember = &SmemTiles::tma_load]" for Clang, "kMember=&SmemTiles::tma_load" for EDG).
// tests/cpu/ts/labels_test.cpp pins the format; the verifier rejects an empty label (R-D20).
#pragma once

#include <cstddef>
#include <string_view>

namespace warploom::ts {

namespace detail {

// The whole array, not up to its first NUL: EDG spells a character of a class-type template
// argument as itself, so ts::FixedName<4>{"ops"} puts a NUL byte inside the text.
template <auto kMember>
constexpr std::string_view pretty_function_of() {
  return {__PRETTY_FUNCTION__, sizeof(__PRETTY_FUNCTION__) - 1};
}

// "... kMember = &Ns::Resource<A, B>::work; ..." -> "Ns::Resource<A, B>::work". Compilers differ:
// GCC and Clang write "kMember = &X"; EDG (nvcc's front end) writes the parameter's declarator,
// "void (Ns::R::*kMember)(int) const = &X". So the value starts after the first '=' that follows
// the name, and ends at the first ';', ']' or ',' outside template brackets and parentheses.
constexpr std::string_view spelled_member(std::string_view pretty) {
  constexpr std::string_view key = "kMember";
  auto begin = pretty.find(key);
  if (begin == std::string_view::npos) return {};
  begin = pretty.find('=', begin + key.size());
  if (begin == std::string_view::npos) return {};
  ++begin;
  while (begin < pretty.size() && pretty[begin] == ' ') ++begin;
  auto end = begin;
  int depth = 0;
  for (; end < pretty.size(); ++end) {
    char const ch = pretty[end];
    if (ch == '<' || ch == '(') ++depth;
    if (ch == '>' || ch == ')') --depth;
    if (depth == 0 && (ch == ';' || ch == ']' || ch == ',')) break;
  }
  auto spelled = pretty.substr(begin, end - begin);
  while (!spelled.empty() && spelled.back() == ' ') spelled.remove_suffix(1);
  if (!spelled.empty() && spelled.front() == '&') spelled.remove_prefix(1);
  return spelled;
}

// Position of the last "::" outside template brackets and parentheses, or npos.
constexpr std::size_t last_scope(std::string_view spelled) {
  std::size_t found = std::string_view::npos;
  int depth = 0;
  for (std::size_t i = 0; i + 1 < spelled.size(); ++i) {
    char const ch = spelled[i];
    if (ch == '<' || ch == '(') ++depth;
    if (ch == '>' || ch == ')') --depth;
    if (depth == 0 && ch == ':' && spelled[i + 1] == ':') found = i;
  }
  return found;
}

}  // namespace detail

// The unqualified name of the member `kMember` points to: member_name<&Smem::tma_load>() ==
// "tma_load".
template <auto kMember>
constexpr std::string_view member_name() {
  constexpr std::string_view spelled =
      detail::spelled_member(detail::pretty_function_of<kMember>());
  constexpr auto colons = detail::last_scope(spelled);
  return colons == std::string_view::npos ? spelled : spelled.substr(colons + 2);
}

}  // namespace warploom::ts
