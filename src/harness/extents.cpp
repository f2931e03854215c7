// src/harness/extents.cpp
#include "warploom/harness/extents.hpp"

#include <charconv>
#include <stdexcept>

namespace warploom::harness {
namespace {

[[noreturn]] void fail(std::string_view option, std::string_view text, std::string const& rule) {
  throw std::invalid_argument(std::string(option) + ": `" + std::string(text) + "` " + rule);
}

// The pieces of `text` between the separators, empty ones included ("a,,b": a, "", b).
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  std::size_t begin = 0;
  for (std::size_t end; (end = text.find(separator, begin)) != std::string_view::npos;
       begin = end + 1)
    pieces.push_back(text.substr(begin, end - begin));
  pieces.push_back(text.substr(begin));
  return pieces;
}

}  // namespace

std::vector<std::string> split_list(std::string_view list, std::string_view option) {
  if (list.empty()) fail(option, list, "is empty: give at least one item");
  std::vector<std::string> items;
  for (std::string_view const item : split(list, ',')) {
    if (item.empty()) fail(option, list, "has an empty item");
    items.emplace_back(item);
  }
  return items;
}

std::vector<std::int64_t> parse_extents(std::string_view text, int dims, std::string_view option,
                                        std::int64_t max) {
  std::string const form = dims == 3   ? "MxNxK"
                           : dims == 1 ? "a single extent"
                                       : std::to_string(dims) + " extents joined by 'x'";
  std::vector<std::int64_t> extents;
  for (std::string_view const part : split(text, 'x')) {
    std::int64_t v = 0;
    auto const [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size())
      fail(option, text, "is not " + form + " (decimal integers)");
    if (v < 1 || v > max)
      fail(option, text, "has an extent outside [1, " + std::to_string(max) + "]");
    extents.push_back(v);
  }
  if (static_cast<int>(extents.size()) != dims)
    fail(option, text, "has " + std::to_string(extents.size()) + " extents, not " + form);
  return extents;
}

std::vector<std::vector<std::int64_t>> parse_extents_list(std::string_view list, int dims,
                                                          std::string_view option,
                                                          std::int64_t max) {
  std::vector<std::vector<std::int64_t>> shapes;
  for (std::string const& item : split_list(list, option))
    shapes.push_back(parse_extents(item, dims, option, max));
  return shapes;
}

}  // namespace warploom::harness
