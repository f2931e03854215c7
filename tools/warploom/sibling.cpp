// tools/warploom/sibling.cpp
#include "sibling.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "exit_codes.hpp"

extern char** environ;

namespace warploom::cli {
namespace {

std::filesystem::path sibling_path(std::string const& name) {
  std::error_code ec;
  std::filesystem::path const self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path(".") : self.parent_path()) / name;
}

}  // namespace

bool sibling_exists(std::string const& name) {
  return ::access(sibling_path(name).c_str(), X_OK) == 0;
}

int exec_sibling(std::string const& name, int argc, char** argv) {
  std::string const path = sibling_path(name).string();
  std::vector<char*> args{const_cast<char*>(path.c_str())};
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(path.c_str(), args.data());
  std::fprintf(stderr,
               "warploom: cannot run %s: %s (it is built with the kernels; build the target %s)\n",
               path.c_str(), std::strerror(errno), name.c_str());
  return kFailure;
}

int run_sibling(std::string const& name, std::vector<std::string> const& args) {
  std::string const path = sibling_path(name).string();
  std::vector<char*> argv{const_cast<char*>(path.c_str())};
  for (auto const& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, path.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    std::fprintf(stderr, "warploom: cannot run %s\n", path.c_str());
    return kFailure;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return kFailure;
  return WIFEXITED(status) ? WEXITSTATUS(status) : kFailure;
}

}  // namespace warploom::cli
