// src/jit/nvcc.cpp
#include "nvcc.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "content_hash.hpp"
#include "kernel_cache.hpp"

extern char** environ;

namespace warploom::jit {
namespace {

namespace fs = std::filesystem;

std::string read_file(fs::path const& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs argv[0] with argv, stdout and stderr into `log`; returns the exit status (-1: not run).
int run(std::vector<std::string> const& argv, fs::path const& log) {
  std::vector<char*> args;
  for (auto const& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int const spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The files a make-style dependency file (nvcc -MD) lists after its target.
std::vector<fs::path> dependencies_in(std::string const& text, fs::path const& scratch) {
  std::string joined;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;  // line continuation
    } else {
      joined += text[i];
    }
  }
  std::vector<fs::path> out;
  std::istringstream words(joined.substr(joined.find(':') + 1));
  for (std::string w; words >> w;) {
    fs::path const p = fs::path(w).lexically_normal();
    // The generated source is part of the key already.
    if (p.string().rfind(scratch.string(), 0) != 0) out.push_back(p);
  }
  return out;
}

}  // namespace

std::string toolkit_version(std::string const& nvcc) {
  std::error_code ec;
  fs::path const exe = fs::canonical(nvcc, ec);
  if (ec) return "no nvcc at " + nvcc;  // nothing compiles: only a key that matches nothing
  std::string version = read_file(exe.parent_path().parent_path() / "version.json");
  if (!version.empty()) return version;
  // No version.json (a toolkit assembled from pip wheels): what nvcc --version prints, remembered
  // by nvcc's path, size and modification time (ccache's default way to tell compilers apart),
  // so that only the first process after an install spawns it (~20 ms, four loads' budget).
  struct stat st {};
  if (::stat(exe.c_str(), &st) != 0) return "cannot read " + exe.string();
  fs::path const memo =
      KernelCache::default_dir() / "toolkits" /
      (content_hash(exe.string() + '\0' + std::to_string(st.st_size) + '\0' +
                    std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec)) +
       ".txt");
  version = read_file(memo);
  if (version.empty()) {
    fs::create_directories(memo.parent_path(), ec);
    fs::path const log = memo.string() + "." + std::to_string(::getpid()) + ".tmp";
    if (run({exe.string(), "--version"}, log) == 0) version = read_file(log);
    if (!version.empty()) fs::rename(log, memo, ec);  // else spawned again by the next process
    fs::remove(log, ec);
  }
  return version.empty() ? "nvcc --version failed: " + exe.string() : "nvcc --version\n" + version;
}

std::vector<std::string> toolkit_library_flags(std::string const& nvcc) {
  std::error_code ec;
  fs::path const exe = fs::canonical(nvcc, ec);
  if (ec) return {};
  fs::path const root = exe.parent_path().parent_path();
  std::vector<std::string> flags;
  for (fs::path const& dir : {root / "lib64", root / "targets" / "x86_64-linux" / "lib",
                              root / "targets" / "sbsa-linux" / "lib", root / "lib"})
    if (fs::exists(dir / "libcudart.so", ec)) flags.push_back("-L" + dir.string());
  return flags;
}

std::string flags_identity(std::vector<std::string> const& flags, std::vector<fs::path>& roots) {
  auto const root = [&](std::string const& dir) {
    roots.push_back(fs::path(dir).lexically_normal());
    return "<root " + std::to_string(roots.size() - 1) + ">";
  };
  auto const without_path = [](std::string const& word) {
    return word.starts_with('/') ? fs::path(word).filename().string() : word;
  };
  std::string identity;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    std::string const& f = flags[i];
    if (f.starts_with("-I") && f.size() > 2) {
      identity += "-I" + root(f.substr(2));
    } else if (f.starts_with("-isystem=")) {
      identity += "-isystem=" + root(f.substr(9));
    } else if (f == "-isystem" && i + 1 < flags.size()) {
      identity += "-isystem " + root(flags[++i]);
    } else if (f.starts_with("-L")) {
      continue;  // where the runtime was found: the toolkit's version names it already
    } else {
      identity += without_path(f);
    }
    identity += "\n";
  }
  return identity;
}

Toolchain make_toolchain(std::string nvcc, std::vector<std::string> flags,
                         std::string const& toolkit_version, std::string const& host_compiler) {
  Toolchain t{.nvcc = std::move(nvcc),
              .flags = std::move(flags),
              .identity = {},
              .roots = {},
              .toolkit_version = toolkit_version};
  t.identity = "nvcc " + toolkit_version + "\nhost " + host_compiler + "\n" +
               flags_identity(t.flags, t.roots);
  return t;
}

std::string cache_key(std::string const& name, std::string const& source,
                      Toolchain const& toolchain, std::vector<std::string> const& link_identity) {
  std::string text = source + '\0' + toolchain.identity;
  for (std::string const& f : link_identity) text += '\0' + f;
  return name + "_" + content_hash(text);
}

namespace {

void write_source(fs::path const& path, std::string const& source) {
  std::ofstream out(path);
  out << source;
  if (!out.flush()) throw std::runtime_error("JIT: cannot write " + path.string());
}

// Runs the toolchain's compiler (nvcc, or host_of_build's) with its flags and `args`; throws with
// its output unless it succeeds.
void run_compiler(Toolchain const& toolchain, std::vector<std::string> const& args,
                  fs::path const& log) {
  std::vector<std::string> argv{toolchain.nvcc};
  argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  argv.insert(argv.end(), args.begin(), args.end());
  int const status = run(argv, log);
  if (status == 0) return;
  std::string const name = fs::path(toolchain.nvcc).filename().string();
  std::string command;
  for (auto const& a : argv) command += (command.empty() ? "" : " ") + a;
  throw std::runtime_error(
      "JIT: " +
      (status < 0 ? "cannot run " + toolchain.nvcc + (name == "nvcc" ? " (set WARPLOOM_NVCC)" : "")
                  : name + " failed with exit status " + std::to_string(status)) +
      "\ncommand: " + command + "\n" + read_file(log));
}

}  // namespace

std::vector<fs::path> compile_shared_object(Toolchain const& toolchain, std::string const& source,
                                            fs::path const& output,
                                            std::vector<std::string> const& link_flags,
                                            SourceLanguage language) {
  fs::path const scratch = output.parent_path();
  bool const cxx = language == SourceLanguage::Cxx;
  fs::path const file = scratch / (cxx ? "launcher.cpp" : "instance.cu");
  fs::path const deps = scratch / "instance.d";
  write_source(file, source);
  std::vector<std::string> args{"-shared", "-MD", "-MF", deps.string(), "-o", output.string()};
  if (cxx) args.insert(args.end(), {"-x", "c++"});
  args.push_back(file.string());
  args.insert(args.end(), link_flags.begin(), link_flags.end());
  run_compiler(toolchain, args, scratch / "compiler.log");
  return dependencies_in(read_file(deps), scratch);
}

std::vector<fs::path> list_includes(Toolchain const& toolchain, std::string const& source,
                                    fs::path const& scratch) {
  fs::path const cu = scratch / "kernel.cu";
  fs::path const deps = scratch / "kernel.d";
  write_source(cu, source);
  run_compiler(toolchain, {"-M", "-x", "cu", cu.string(), "-o", deps.string()},
               scratch / "nvcc_m.log");
  return dependencies_in(read_file(deps), scratch);
}

}  // namespace warploom::jit
