// Calls the installed libwarploom_gemm.so through include/warploom/gemm.hpp without a GPU: argument
// checking runs on the host, so a bad argument must come back as std::invalid_argument naming it.
#include <cstdio>
#include <stdexcept>
#include <string>

#include <warploom/gemm.hpp>

int main() {
  namespace gemm = warploom::gemm;
  // check_arguments reads pointers' values only (null, alignment): host memory stands in for
  // device memory.
  alignas(16) static unsigned char storage[3][64 * 64 * 2];
  gemm::GemmArguments args;
  args.m = args.n = args.k = 64;
  args.a = {storage[0], gemm::ScalarType::BF16, gemm::MatrixLayout::RowMajor};
  args.b = {storage[1], gemm::ScalarType::BF16, gemm::MatrixLayout::ColMajor};
  args.d = storage[2];
  try {
    gemm::check_arguments(args);
  } catch (std::invalid_argument const& e) {
    std::fprintf(stderr, "FAIL: valid arguments rejected: %s\n", e.what());
    return 1;
  }

  args.a.ld = 32;  // less than a row of the 64 x 64 row-major A
  try {
    gemm::check_arguments(args);
  } catch (std::invalid_argument const& e) {
    std::string const what = e.what();
    if (what.find("a.ld = 32") == std::string::npos) {
      std::fprintf(stderr, "FAIL: the error does not name a.ld: %s\n", what.c_str());
      return 1;
    }
    std::printf("ok: %s\n", what.c_str());
    return 0;
  }
  std::fprintf(stderr, "FAIL: a.ld = 32 was accepted\n");
  return 1;
}
