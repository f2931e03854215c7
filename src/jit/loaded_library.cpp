// src/jit/loaded_library.cpp
#include "loaded_library.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "content_hash.hpp"

namespace warploom::jit {
namespace {

struct Search {
  std::uintptr_t address;
  std::string build_id;  // hex; empty: none found
  bool found = false;
};

bool contains(dl_phdr_info const& info, std::uintptr_t address) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    ElfW(Phdr) const& ph = info.dlpi_phdr[i];
    std::uintptr_t const start = info.dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && address >= start && address < start + ph.p_memsz) return true;
  }
  return false;
}

// The NT_GNU_BUILD_ID note among the object's PT_NOTE segments, as hex ("" without one). Note
// layout (ELF gABI): a header, the name padded to 4 bytes, the descriptor padded to 4 bytes.
std::string build_id_of(dl_phdr_info const& info) {
  constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    ElfW(Phdr) const& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    auto const* at = reinterpret_cast<unsigned char const*>(info.dlpi_addr + ph.p_vaddr);
    auto const* const end = at + ph.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, at, sizeof note);
      auto const* const name = at + sizeof note;
      auto const* const desc = name + ((note.n_namesz + 3) & ~3u);
      at = desc + ((note.n_descsz + 3) & ~3u);
      if (at > end) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        std::string hex;
        for (std::size_t b = 0; b < note.n_descsz; ++b) {
          hex += kHex[desc[b] >> 4];
          hex += kHex[desc[b] & 15];
        }
        return hex;
      }
    }
  }
  return "";
}

}  // namespace

std::string loaded_library_identity(void const* address) {
  Search search{.address = reinterpret_cast<std::uintptr_t>(address), .build_id = {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto& s = *static_cast<Search*>(data);
        if (!contains(*info, s.address)) return 0;
        s.found = true;
        s.build_id = build_id_of(*info);
        return 1;  // stop
      },
      &search);
  if (!search.found) throw std::runtime_error("JIT: no loaded library contains the given address");
  if (!search.build_id.empty()) return "build-id " + search.build_id;
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr)
    throw std::runtime_error("JIT: cannot name the library of the given address");
  std::optional<std::string> const hash = file_hash(info.dli_fname);
  if (!hash) throw std::runtime_error(std::string("JIT: cannot read ") + info.dli_fname);
  return "content " + *hash;
}

}  // namespace warploom::jit
