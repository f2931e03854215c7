// src/jit/loaded_library.hpp
//
// Which build of a shared library this process loaded, for the cache keys of code that links
// against it (a JIT instance links libwarploom_gemm: another build of it is another key), without
// its path: the same library installed elsewhere is the same build. And which build a library file
// is, without loading it (the NVRTC a cache entry was compiled by, nvrtc.hpp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace warploom::jit {

// "build-id <hex>": the GNU build ID of the loaded object that contains `address` (the linker's
// hash of its contents, `ld --build-id`, read from the image in memory: no file read), or
// "content <hash>" of its file where it has none. Throws std::runtime_error when no loaded object
// contains `address`.
std::string loaded_library_identity(void const* address);

// The GNU build ID (hex) of the ELF file at `path`, read from its note segments without loading it
// (a few reads: libnvrtc is 110 MB and takes ~6 ms to load); nullopt when the file cannot be read,
// is no 64-bit ELF file or has none.
std::optional<std::string> file_build_id(std::filesystem::path const& path);

}  // namespace warploom::jit
