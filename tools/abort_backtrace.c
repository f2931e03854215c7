/* tools/abort_backtrace.c: LD_PRELOAD=abort_backtrace.so <command> prints the native stack of a
 * process that dies of SIGABRT, SIGSEGV, SIGBUS or SIGFPE (glibc's backtrace_symbols_fd: module,
 * symbol or offset, address), then lets the signal end it as it would have. For machines without
 * gdb (the H200 device): tools/python_gpu_check.sh builds it there with the C compiler that
 * builds the Python extension. Offsets into a library built elsewhere resolve with
 * `addr2line -f -C -e <that library> <offset>`. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

static void print_stack(int sig) {
  static char const banner[] = "\n==== native backtrace (tools/abort_backtrace.c) ====\n";
  void* frames[128];
  int const n = backtrace(frames, 128);
  (void)!write(STDERR_FILENO, banner, sizeof banner - 1);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  /* backtrace() loads libgcc_s on first use: do it now, not inside the handler. */
  void* warm[1];
  (void)backtrace(warm, 1);
  int const signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE};
  for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; ++i) signal(signals[i], print_stack);
}
