// src/jit/loaded_library.cpp
#include "loaded_library.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

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

// The NT_GNU_BUILD_ID note among the notes of a PT_NOTE segment, as hex ("" without one). Note
// layout (ELF gABI): a header, the name padded to 4 bytes, the descriptor padded to 4 bytes.
std::string build_id_in_notes(unsigned char const* at, std::size_t size) {
  constexpr char kHex[] = "0123456789abcdef";
  auto const* const end = at + size;
  while (at + sizeof(ElfW(Nhdr)) <= end) {
    ElfW(Nhdr) note;
    std::memcpy(&note, at, sizeof note);
    auto const* const name = at + sizeof note;
    auto const* const desc = name + ((note.n_namesz + 3) & ~3u);
    if (desc > end || static_cast<std::size_t>(end - desc) < note.n_descsz) break;
    at = desc + ((note.n_descsz + 3) & ~3u);
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
      std::string hex;
      for (std::size_t b = 0; b < note.n_descsz; ++b) {
        hex += kHex[desc[b] >> 4];
        hex += kHex[desc[b] & 15];
      }
      return hex;
    }
  }
  return "";
}

std::string build_id_of(dl_phdr_info const& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    ElfW(Phdr) const& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    std::string const id = build_id_in_notes(
        reinterpret_cast<unsigned char const*>(info.dlpi_addr + ph.p_vaddr), ph.p_memsz);
    if (!id.empty()) return id;
  }
  return "";
}

// Reads `size` bytes at `offset` of `fd` into `out`; false when the file is shorter.
bool read_at(int fd, std::size_t offset, std::size_t size, void* out) {
  auto* to = static_cast<char*>(out);
  while (size > 0) {
    ssize_t const n = ::pread(fd, to, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    to += n, offset += static_cast<std::size_t>(n), size -= static_cast<std::size_t>(n);
  }
  return true;
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

std::optional<std::string> file_build_id(std::filesystem::path const& path) {
  int const fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string id;
  ElfW(Ehdr) header{};
  if (read_at(fd, 0, sizeof header, &header) && std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 &&
      header.e_ident[EI_CLASS] == ELFCLASS64)
    for (std::size_t i = 0; i < header.e_phnum && id.empty(); ++i) {
      ElfW(Phdr) ph{};
      if (!read_at(fd, header.e_phoff + i * sizeof ph, sizeof ph, &ph)) break;
      if (ph.p_type != PT_NOTE || ph.p_filesz > (1u << 16)) continue;  // a note, not a blob
      std::vector<unsigned char> notes(ph.p_filesz);
      if (read_at(fd, ph.p_offset, notes.size(), notes.data()))
        id = build_id_in_notes(notes.data(), notes.size());
    }
  ::close(fd);
  return id.empty() ? std::nullopt : std::optional(id);
}

}  // namespace warploom::jit
