// src/harness/extents.cpp
#include "warploom/harness/extents.hpp"

#include <charconv>
#include <stdexcept>

namespace warploom::harness {
namespace {

[[noreturn]] void fail(std::string_view option, std::string_view text, std::string const& rule) {
  throw std::invalid_argument(std::string(option) + ": `" + std::string(text) + "` " + rule);
}

}  // namespace

std::vector<std::string> split_list(std::string_view list, std::string_view option) {
  if (list.empty()) fail(option, list, "is empty: give at least one item");
  std::vector<std::string> items;
  std::size_t begin = 0;
  while (true) {
    std::size_t const end = list.find(',', begin);
    std::string_view const item =
        list.substr(begin, end == std::string_view::npos ? end : end - begin);
    if (item.empty()) fail(option, list, "has an empty item");
    items.emplace_back(item);
    if (end == std::string_view::npos) return items;
    begin = end + 1;
  }
}

std::vector<std::int64_t> parse_extents(std::string_view text, int dims, std::string_view option,
                                        std::int64_t max) {
  std::string const form = dims == 3   ? "MxNxK"
                           : dims == 1 ? "a single extent"
                                       : std::to_string(dims) + " extents joined by 'x'";
  std::vector<std::int64_t> extents;
  std::size_t begin = 0;
  while (true) {
    std::size_t const end = text.find('x', begin);
    std::string_view const part =
        text.substr(begin, end == std::string_view::npos ? end : end - begin);
    std::int64_t v = 0;
    auto const [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size())
      fail(option, text, "is not " + form + " (decimal integers)");
    if (v < 1 || v > max)
      fail(option, text, "has an extent outside [1, " + std::to_string(max) + "]");
    extents.push_back(v);
    if (end == std::string_view::npos) break;
    begin = end + 1;
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
