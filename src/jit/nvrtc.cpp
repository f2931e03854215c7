// src/jit/nvrtc.cpp
#include "nvrtc.hpp"

#include <dlfcn.h>

#include <elf.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include <cuda_runtime_api.h>  // CUDART_VERSION
#include <nvrtc.h>

#include "loaded_library.hpp"
#include "nvcc.hpp"

namespace warploom::jit {
namespace {

namespace fs = std::filesystem;

// The NVRTC entry points this file calls, from the library dlopen found.
struct Nvrtc {
  std::string version;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcAddNameExpression) add_name = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetLoweredName) lowered_name = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
};

// The library's name for the CUDA major version this build was compiled with: NVRTC's ABI is
// stable within a major version, and a cubin for another major's driver is not what was tested.
std::string soname() {
  return "libnvrtc.so." + std::to_string(CUDART_VERSION / 1000);
}

// The libnvrtc this process uses: $WARPLOOM_NVRTC; else the one of the toolkit whose nvcc the JIT
// runs (Toolchain::of_build), in its library folder beside bin/; else the soname on the loader's
// path. A file's build ID (read from it, not loaded) names it in cache keys, so that a lookup in
// the kernel cache needs no libnvrtc loaded (~6 ms: a load from the cache takes 5).
struct Library {
  std::string path;
  std::optional<std::string> build_id;  // of a file found; nullopt for the soname
};
Library const& library() {
  static Library const found = [] {
    char const* env = std::getenv("WARPLOOM_NVRTC");
    if (env != nullptr && *env != '\0') return Library{.path = env, .build_id = file_build_id(env)};
    std::error_code ec;
    fs::path const bin = fs::canonical(Toolchain::of_build().nvcc, ec).parent_path();
    if (!ec)
      for (char const* dir : {"lib64", "lib", "targets/x86_64-linux/lib"})
        if (fs::path const p = bin.parent_path() / dir / soname(); fs::is_regular_file(p, ec))
          return Library{.path = p.string(), .build_id = file_build_id(p)};
    return Library{.path = soname(), .build_id = std::nullopt};
  }();
  return found;
}

// Loaded once per process; nullptr, with the reason in `why`, when it cannot be.
Nvrtc const* loaded(std::string* why = nullptr) {
  static std::string failure;
  static std::unique_ptr<Nvrtc> const nvrtc = []() -> std::unique_ptr<Nvrtc> {
    std::string const& path = library().path;
    void* const handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      char const* e = dlerror();
      failure = "cannot load " + path + (e != nullptr ? std::string(": ") + e : std::string());
      return nullptr;
    }
    auto n = std::make_unique<Nvrtc>();
    auto const bind = [&](auto& fn, char const* symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, symbol));
      if (fn == nullptr && failure.empty()) failure = path + " has no " + symbol;
    };
    decltype(&nvrtcVersion) version = nullptr;
    bind(version, "nvrtcVersion");
    bind(n->error_string, "nvrtcGetErrorString");
    bind(n->create, "nvrtcCreateProgram");
    bind(n->destroy, "nvrtcDestroyProgram");
    bind(n->add_name, "nvrtcAddNameExpression");
    bind(n->compile, "nvrtcCompileProgram");
    bind(n->log_size, "nvrtcGetProgramLogSize");
    bind(n->log, "nvrtcGetProgramLog");
    bind(n->lowered_name, "nvrtcGetLoweredName");
    bind(n->cubin_size, "nvrtcGetCUBINSize");
    bind(n->cubin, "nvrtcGetCUBIN");
    if (!failure.empty()) return nullptr;
    int major = 0, minor = 0;
    version(&major, &minor);
    n->version = std::to_string(major) + "." + std::to_string(minor);
    return n;  // the handle stays open: the functions live in it
  }();
  if (nvrtc == nullptr && why != nullptr) *why = failure;
  return nvrtc.get();
}

Nvrtc const& require() {
  std::string why;
  Nvrtc const* n = loaded(&why);
  if (n == nullptr) throw std::runtime_error("JIT: NVRTC is not available: " + why);
  return *n;
}

// Owns one nvrtcProgram.
class Program {
 public:
  Program(Nvrtc const& n, std::string const& source, std::string const& name) : n_(n) {
    check(n_.create(&p_, source.c_str(), name.c_str(), 0, nullptr, nullptr), "create");
  }
  ~Program() { n_.destroy(&p_); }
  Program(Program const&) = delete;
  Program& operator=(Program const&) = delete;

  nvrtcProgram get() const { return p_; }
  void check(nvrtcResult r, char const* what) const {
    if (r != NVRTC_SUCCESS)
      throw std::runtime_error(std::string("JIT: nvrtc ") + what + ": " + n_.error_string(r));
  }
  std::string log() const {
    std::size_t size = 0;
    check(n_.log_size(p_, &size), "log size");
    std::string text(size, '\0');
    check(n_.log(p_, text.data()), "log");
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
    return text;
  }

 private:
  Nvrtc const& n_;
  nvrtcProgram p_ = nullptr;
};

}  // namespace

std::optional<std::string> nvrtc_version() {
  Nvrtc const* n = loaded();
  return n != nullptr ? std::optional(n->version) : std::nullopt;
}

bool nvrtc_available() {
  return library().build_id.has_value() || loaded() != nullptr;
}

NvrtcToolchain make_nvrtc_toolchain(std::vector<std::string> options) {
  NvrtcToolchain t{.options = std::move(options), .identity = {}, .roots = {}};
  std::string const version =
      library().build_id ? "build-id " + *library().build_id : require().version;
  t.identity = "nvrtc " + version + "\n" + flags_identity(t.options, t.roots);
  return t;
}

Cubin nvrtc_compile(NvrtcToolchain const& toolchain, std::string const& source,
                    std::string const& name, std::vector<std::string> const& kernels) {
  Nvrtc const& n = require();
  auto const t0 = std::chrono::steady_clock::now();
  Program const program(n, source, name);
  for (std::string const& k : kernels) program.check(n.add_name(program.get(), k.c_str()), "name");
  std::vector<char const*> options;
  for (std::string const& o : toolchain.options) options.push_back(o.c_str());
  nvrtcResult const compiled =
      n.compile(program.get(), static_cast<int>(options.size()), options.data());
  Cubin out;
  out.log = program.log();
  if (compiled != NVRTC_SUCCESS) {
    std::string command;
    for (std::string const& o : toolchain.options) command += " " + o;
    throw std::runtime_error("JIT: NVRTC failed to compile " + name + " (" +
                             n.error_string(compiled) + ")\noptions:" + command + "\n" + out.log);
  }
  for (std::string const& k : kernels) {
    char const* lowered = nullptr;
    program.check(n.lowered_name(program.get(), k.c_str(), &lowered), "lowered name");
    out.lowered_names.emplace_back(lowered);
  }
  std::size_t size = 0;
  program.check(n.cubin_size(program.get(), &size), "cubin size");
  out.image.resize(size);
  program.check(n.cubin(program.get(), out.image.data()), "cubin");
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

void write_cubin(std::filesystem::path const& path, Cubin const& cubin) {
  std::ofstream out(path, std::ios::binary);
  out.write(cubin.image.data(), static_cast<std::streamsize>(cubin.image.size()));
  if (!out.flush()) throw std::runtime_error("JIT: cannot write " + path.string());
}

std::optional<std::string> cubin_symbol(std::string const& cubin, std::string const& symbol) {
  // Reads a T at `offset` of the image, if it lies inside.
  auto const read = [&]<class T>(std::size_t offset, T& out) {
    if (offset > cubin.size() || cubin.size() - offset < sizeof(T)) return false;
    std::memcpy(&out, cubin.data() + offset, sizeof(T));
    return true;
  };
  Elf64_Ehdr header{};
  if (!read(0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64)
    return std::nullopt;
  auto const section = [&](std::size_t i, Elf64_Shdr& out) {
    return i < header.e_shnum && read(header.e_shoff + i * sizeof(Elf64_Shdr), out);
  };
  for (std::size_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr symtab{}, strtab{};
    if (!section(i, symtab) || symtab.sh_type != SHT_SYMTAB || !section(symtab.sh_link, strtab))
      continue;
    for (std::size_t j = 0; j < symtab.sh_size / sizeof(Elf64_Sym); ++j) {
      Elf64_Sym sym{};
      if (!read(symtab.sh_offset + j * sizeof(Elf64_Sym), sym)) break;
      std::size_t const name = strtab.sh_offset + sym.st_name;
      if (name >= cubin.size() ||
          cubin.compare(name, symbol.size() + 1, symbol.c_str(), symbol.size() + 1) != 0)
        continue;
      Elf64_Shdr data{};
      if (!section(sym.st_shndx, data) || data.sh_type == SHT_NOBITS) return std::nullopt;
      std::size_t const at = data.sh_offset + (sym.st_value - data.sh_addr);
      if (at > cubin.size() || cubin.size() - at < sym.st_size) return std::nullopt;
      return cubin.substr(at, sym.st_size);
    }
  }
  return std::nullopt;
}

}  // namespace warploom::jit
