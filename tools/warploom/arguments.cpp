// tools/warploom/arguments.cpp
#include "arguments.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "exit_codes.hpp"

namespace warploom::cli {

std::optional<int> parse_command_line(CLI::App& app, int argc, char const* const* argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (CLI::Success const& e) {  // --help: CLI11 prints the help of the subcommand given
    return app.exit(e);
  } catch (CLI::ParseError const& e) {
    std::vector<CLI::App*> const& subs = app.get_subcommands();
    std::string const who = subs.empty() ? "warploom" : "warploom " + subs.front()->get_name();
    std::fprintf(stderr, "%s: %s\nrun `%s --help` for the options and exit codes\n", who.c_str(),
                 e.what(), who.c_str());
    return kUsageError;
  }
}

}  // namespace warploom::cli
