#!/usr/bin/env bash
# gate_on_clang.sh <clang++> <source> <flags...>: compiles <source> (-fsyntax-only) with <clang++>
# and libc++; exit 77 (ctest: skipped) where there is no such compiler or no libc++ for it. The
# compile-time gate needs libc++ on Clang: GCC 12's libstdc++ fills new storage by assignment, which
# Clang does not evaluate (docs/verification/README.md).
set -euo pipefail
cxx=$1 src=$2
shift 2
if [[ -z $cxx || $cxx == *NOTFOUND ]]; then
  echo "no clang++ 16 or later: skipped"
  exit 77
fi
if ! echo '#include <vector>' | "$cxx" -stdlib=libc++ -std=c++20 -x c++ -fsyntax-only - 2>/dev/null; then
  echo "no libc++ for $cxx: skipped"
  exit 77
fi
exec "$cxx" -stdlib=libc++ -std=c++20 -fsyntax-only "$@" "$src"
