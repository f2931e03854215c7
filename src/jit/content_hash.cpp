// src/jit/content_hash.cpp
#include "content_hash.hpp"

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace warploom::jit {

std::string content_hash(std::string_view bytes) {
  XXH128_hash_t const h = XXH3_128bits(bytes.data(), bytes.size());
  std::array<char, 33> text{};
  std::snprintf(text.data(), text.size(), "%016llx%016llx",
                static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return text.data();
}

std::optional<std::string> file_hash(std::filesystem::path const& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string const bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return std::nullopt;
  return content_hash(bytes);
}

}  // namespace warploom::jit
