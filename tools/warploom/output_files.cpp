// tools/warploom/output_files.cpp
#include "output_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace warploom::cli {
namespace fs = std::filesystem;

std::string unwritable_reason(std::string const& path) {
  if (path.empty()) return "the path is empty";
  fs::path const p(path);
  fs::path const directory = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::string const shown = '`' + directory.string() + '`';
  std::error_code ec;
  if (!fs::exists(directory, ec)) return "directory " + shown + " does not exist";
  if (!fs::is_directory(directory, ec)) return shown + " is not a directory";
  fs::file_status const status = fs::status(p, ec);
  if (fs::is_directory(status)) return "it is a directory";
  // A device or a pipe (/dev/stdout, a fifo) is written as given; opening a fifo to probe it
  // would block until a reader comes.
  if (fs::exists(status) && !fs::is_regular_file(status)) return "";
  // Permissions alone do not say it (root ignores them, a read-only mount does not show in them):
  // only creating the file does.
  bool const existed = fs::exists(status);
  std::FILE* const f = std::fopen(path.c_str(), "a");
  if (f == nullptr) return std::strerror(errno);
  std::fclose(f);
  if (!existed) fs::remove(p, ec);
  return "";
}

std::string write_failure(std::string const& path, std::string const& text) {
  std::FILE* const f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return std::strerror(errno);
  // stdio buffers, so a full disk may surface only at fclose: check both.
  bool const written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int const write_errno = errno;
  bool const closed = std::fclose(f) == 0;
  if (!written) return std::strerror(write_errno);
  if (!closed) return std::strerror(errno);
  return "";
}

bool write_output(std::string const& who, std::string const& option, std::string const& path,
                  std::string const& text) {
  std::string const why = write_failure(path, text);
  if (why.empty()) {
    std::printf("wrote %s\n", path.c_str());
    return true;
  }
  std::fprintf(stderr, "%s: %s: writing `%s` failed: %s\n", who.c_str(), option.c_str(),
               path.c_str(), why.c_str());
  return false;
}

}  // namespace warploom::cli
