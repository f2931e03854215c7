// tools/warploom/output_files.hpp — the files a command writes its results to (--json, --csv,
// --svg): checked before any work starts, and every write at the end reported as done or failed.
//
// Results exist only in memory until the end of a run, so a path that cannot be written is
// refused up front (a usage error), and a write that still fails at the end fails the run.
#pragma once

#include <string>

namespace warploom::cli {

// Why `path` cannot be written ("directory `out` does not exist"), or "" when it can: its
// directory exists and a file can be created there. A regular file is probed by opening it to
// append (which keeps its contents); a new one is created and removed again.
std::string unwritable_reason(std::string const& path);

// Writes `text` to `path`, replacing what it held; "" when every byte reached the file, else why
// not (the system's reason).
std::string write_failure(std::string const& path, std::string const& text);

// Writes one result file of option `option` and says so: "wrote PATH" on stdout, or on stderr
// "<who>: <option>: writing `PATH` failed: <reason>". True when written.
bool write_output(std::string const& who, std::string const& option, std::string const& path,
                  std::string const& text);

}  // namespace warploom::cli
