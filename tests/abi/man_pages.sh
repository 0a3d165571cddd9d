#!/usr/bin/env bash
# The man pages: cudrop(7), cudrop-info(1) and cudrop-run(1) format without a single warning
# (groff -ww, and mandoc -T lint where installed); cudrop(7) names every user setting of
# core/settings.def, and cudrop-info(1) and cudrop-run(1) every option of their program's usage
# text.
#
#   man_pages.sh SOURCE_DIR CUDROP_INFO CUDROP_RUN
# Exit 0 pass, 1 fail, 77 skipped (neither groff nor mandoc installed).
set -euo pipefail
src=$1 info=$2 run=$3
pages=("$src/docs/man/cudrop.7" "$src/docs/man/cudrop-info.1" "$src/docs/man/cudrop-run.1")
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

# A page as text (its source where groff is missing).
text() { LC_ALL=C.UTF-8 MANWIDTH=200 groff -man -Tascii -P-c -P-b -P-u "$1" 2>/dev/null || cat "$1"; }

# Each user setting of the table (core/settings.def; tests/settings/settings_docs.sh holds the README to
# the same list), in cudrop(7).
text7=$(text "${pages[0]}")
settings=$(sed -nE 's/^CUDROP_SETTING\((CUDROP_[A-Z0-9_]+), *user,.*/\1/p' "$src/core/settings.def")
[[ -n $settings ]] || bad "no user setting found in core/settings.def"
for s in $settings; do
  grep -q -- "$s" <<<"$text7" || bad "cudrop(7) does not describe $s"
done
# Each option of a program's usage text, in its page.
noptions=0
check_options() {  # check_options PROGRAM PAGE NAME
  local text options o
  text=$(text "$2")
  options=$("$1" --help | grep -o -- '--[a-z-]*' | sort -u)
  [[ -n $options ]] || bad "$3 --help lists no option"
  for o in $options; do
    grep -q -- "$o" <<<"$text" || bad "$3(1) does not describe $o"
  done
  noptions=$((noptions + $(wc -w <<<"$options")))
}
check_options "$info" "${pages[1]}" cudrop-info
check_options "$run" "${pages[2]}" cudrop-run

[[ $fail == 0 ]] || exit 1
echo "man_pages: PASS ($(wc -w <<<"$settings") settings, $noptions options)"
