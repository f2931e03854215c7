// tools/gemm_instance_sources/main.cpp — writes the sources of the sm90 GEMM instances the build
// prebuilds (kernels/gemm/CMakeLists.txt runs it), from the same generator the JIT uses, so a
// prebuilt and a JIT-compiled instance of one configuration are the same code.
//
//   gemm_instance_sources <out.cu> <config>...           the instances' translation unit
//   gemm_instance_sources --table <out.cpp> <config>...  the table of prebuilt instances
//
// A configuration is named as sm90::name_of spells it, e.g. bf16_bf16_tn_cooperative_s4_b2_1x1.
// The output is rewritten only when its content changes, so relinking this tool rebuilds nothing.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sm90_source.hpp"

namespace sm90 = warploom::gemm::sm90;

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool const table = !args.empty() && args.front() == "--table";
  if (table) args.erase(args.begin());
  char const* const usage = "usage: gemm_instance_sources [--table] <output> <config>...\n";
  if (!args.empty() && (args.front() == "--help" || args.front() == "-h")) {
    std::fputs(usage, stdout);
    return 0;
  }
  // An output named like an option is a mistyped option, not a file to create (`--help` once
  // left a file of that name in the tree).
  if (args.empty() || args.front().starts_with('-')) {
    std::fputs(usage, stderr);
    return 2;
  }
  std::vector<sm90::KernelConfig> configs;
  for (std::size_t i = 1; i < args.size(); ++i) {
    auto const c = sm90::parse_config(args[i]);
    if (!c) {
      std::fprintf(stderr, "gemm_instance_sources: `%s` is not a configuration name\n",
                   args[i].c_str());
      return 2;
    }
    configs.push_back(*c);
  }
  std::string const text =
      table ? sm90::instance_table_source(configs) : sm90::instance_source(configs);
  std::ifstream old(args.front());
  if (old && std::string(std::istreambuf_iterator<char>(old), {}) == text) return 0;
  std::ofstream out(args.front());
  out << text;
  return out.flush() ? 0 : 1;
}
