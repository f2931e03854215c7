#!/usr/bin/env bash
# clang-format (the repository's .clang-format) over every C++/CUDA source we own: the one list of
# files, used by CI (.ci/run), the ctest `clang_format_check` and by hand.
#
#   bash tools/format.sh           rewrites the files in place
#   bash tools/format.sh --check   changes nothing; prints each unformatted file with the diff that
#                                  would fix it, and fails
#
# CI formats with Debian's clang-format 14. Other major versions lay out some constructs
# differently, so a tree clean under one can fail under another: the script prefers clang-format-14,
# says which version it runs, and $CLANG_FORMAT picks the binary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# What we own: third-party code lives in .deps/ and build trees in build/, neither under these.
dirs=(include src kernels tools tests bench python)
patterns=(-name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh')

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: bash tools/format.sh [--check]" >&2; exit 2 ;;
esac

clang_format=${CLANG_FORMAT:-}
if [[ -z "$clang_format" ]]; then
  clang_format=$(command -v clang-format-14 || command -v clang-format || true)
fi
if [[ -z "$clang_format" ]]; then
  echo "format.sh: clang-format not found (apt-get install clang-format-14; or set CLANG_FORMAT)" \
    >&2
  exit 1
fi
version=$("$clang_format" --version)
[[ "$version" =~ version\ 14\. ]] ||
  echo "format.sh: warning: CI formats with clang-format 14; this is: $version" >&2

existing=()
for dir in "${dirs[@]}"; do [[ -d "$dir" ]] && existing+=("$dir"); done
mapfile -d '' files < <(find "${existing[@]}" -type f \( "${patterns[@]}" \) -print0 | sort -z)

if [[ $check -eq 0 ]]; then
  "$clang_format" -i "${files[@]}"
  echo "format.sh: formatted ${#files[@]} files"
  exit 0
fi

# One clang-format process for the whole tree (its per-line diagnostics stay quiet); then a diff
# for each file it rejects, which shows the fix, not only the place.
if "$clang_format" --dry-run --Werror "${files[@]}" >/dev/null 2>&1; then
  echo "format.sh: ${#files[@]} files clang-format clean"
  exit 0
fi
bad=()
for file in "${files[@]}"; do
  if ! "$clang_format" --dry-run --Werror "$file" >/dev/null 2>&1; then
    bad+=("$file")
    diff -u --label "$file" --label "$file (clang-format)" "$file" <("$clang_format" "$file") ||
      true
  fi
done
echo "format.sh: ${#bad[@]} of ${#files[@]} files need clang-format; run bash tools/format.sh:" >&2
printf '  %s\n' "${bad[@]}" >&2
exit 1
