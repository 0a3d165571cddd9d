#!/usr/bin/env bash
# The man pages: cudrop(7) and cudrop-info(1) format without a single warning (groff -ww, and
# mandoc -T lint where installed); cudrop(7) names every user setting of the README's
# Environment table, and cudrop-info(1) every option of the program's usage text.
#
#   man_pages.sh SOURCE_DIR CUDROP_INFO
# Exit 0 pass, 1 fail, 77 skipped (neither groff nor mandoc installed).
set -euo pipefail
src=$1 info=$2
pages=("$src/docs/man/cudrop.7" "$src/docs/man/cudrop-info.1")
fail=0
bad() { echo "man_pages: FAIL: $*"; fail=1; }

linted=0
if command -v groff >/dev/null; then
  for page in "${pages[@]}"; do
    out=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1) || bad "groff exits non-zero on $page"
    [[ -z $out ]] || bad "groff warns on $page: $out"
  done
  linted=1
fi
if command -v mandoc >/dev/null; then
  for page in "${pages[@]}"; do
    out=$(mandoc -T lint -W warning "$page" 2>&1) || bad "mandoc -T lint on $page: $out"
  done
  linted=1
fi
[[ $linted == 1 ]] || { echo "man_pages: skipped: neither groff (groff-base) nor mandoc installed"; exit 77; }

# Each CUDROP_* name in the first column of the README's Environment table, in cudrop(7).
text7=$(LC_ALL=C.UTF-8 MANWIDTH=200 groff -man -Tascii -P-c -P-b -P-u "${pages[0]}" 2>/dev/null || cat "${pages[0]}")
settings=$(awk '/^### Environment/ {on=1} on && /^\| `CUDROP_/ {print} on && /^## / && !/Environment/ {exit}' "$src/README.md" \
  | cut -d'|' -f2 | grep -o 'CUDROP_[A-Z0-9_]*' | sort -u)
[[ -n $settings ]] || bad "no CUDROP_ setting found in README.md's Environment table"
for s in $settings; do
  grep -q -- "$s" <<<"$text7" || bad "cudrop(7) does not describe $s"
done
# Each option of cudrop-info's usage text, in cudrop-info(1).
text1=$(LC_ALL=C.UTF-8 MANWIDTH=200 groff -man -Tascii -P-c -P-b -P-u "${pages[1]}" 2>/dev/null || cat "${pages[1]}")
options=$("$info" --help | grep -o -- '--[a-z-]*' | sort -u)
[[ -n $options ]] || bad "cudrop-info --help lists no option"
for o in $options; do
  grep -q -- "$o" <<<"$text1" || bad "cudrop-info(1) does not describe $o"
done

[[ $fail == 0 ]] || exit 1
echo "man_pages: PASS ($(wc -w <<<"$settings") settings, $(wc -w <<<"$options") options)"
