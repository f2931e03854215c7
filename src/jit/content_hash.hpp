// src/jit/content_hash.hpp
//
// Content hashes for the kernel cache: 128-bit XXH3 (xxHash, Debian's libxxhash-dev, header-only
// here), fast enough to hash a JIT instance's few megabytes of headers in about a millisecond.
// Not cryptographic: the cache trusts its own directory, it only has to tell contents apart.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warploom::jit {

// 32 hexadecimal digits.
std::string content_hash(std::string_view bytes);

// The content hash of a file, or nullopt when it cannot be read.
std::optional<std::string> file_hash(std::filesystem::path const& path);

}  // namespace warploom::jit
