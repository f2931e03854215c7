// warploom/harness/extents.hpp
//
// Problem sizes on the command line: "8192x8192x1024" (one shape, `dims` positive extents joined
// by 'x'), and comma lists of them or of names.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace warploom::harness {

// The extents of `text`, e.g. {8192, 8192, 1024}. Throws std::invalid_argument, naming `option`,
// the text and the rule, unless it is exactly `dims` decimal integers in [1, max] joined by 'x'.
std::vector<std::int64_t> parse_extents(std::string_view text, int dims, std::string_view option,
                                        std::int64_t max = std::numeric_limits<int>::max());

// A comma list of shapes, each as parse_extents; at least one.
std::vector<std::vector<std::int64_t>> parse_extents_list(
    std::string_view list, int dims, std::string_view option,
    std::int64_t max = std::numeric_limits<int>::max());

// The items of a comma list, in order; throws std::invalid_argument (naming `option`) for an
// empty list or an empty item ("a,,b").
std::vector<std::string> split_list(std::string_view list, std::string_view option);

}  // namespace warploom::harness
