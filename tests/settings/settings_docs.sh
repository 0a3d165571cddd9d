#!/bin/bash
# settings_docs: the table of settings (core/settings.def) against the documents that describe
# them, so that a setting added, renamed or dropped is seen to be documented, or no longer is:
#   - every user row is named, backquoted (`CUDROP_NAME`), somewhere in README.md, and every
#     tuning and hook row somewhere in docs/tuning.md (wherever the documents put them);
#   - neither document names a CUDROP_* variable the table lacks, besides the names cudrop's own
#     tools read (core/env.cpp's kToolPrefixes and kToolNames, which cudrop never warns about),
#     CMake options (-DCUDROP_...) and the README's example of a typo;
#   - the hook rows, and only they, are named CUDROP_TEST_*.
# usage: settings_docs.sh SOURCE_DIR
set -u
src=$1
table=$src/core/settings.def readme=$src/README.md tuning=$src/docs/tuning.md
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# NAME AUDIENCE, one row a line.
rows=$(sed -nE 's/^CUDROP_SETTING\((CUDROP_[A-Z0-9_]+), *(user|tuning|hook),.*/\1 \2/p' "$table")
[[ $(grep -c '^CUDROP_SETTING(' "$table") == $(grep -c '' <<<"$rows") && -n $rows ]] ||
  fail "a row of core/settings.def does not start 'CUDROP_SETTING(CUDROP_NAME, user|tuning|hook,'"
names_of() { awk -v a="$1" '$2 == a {print $1}' <<<"$rows"; }

# The tools' own names, as core/env.cpp lists them.
tool_prefixes=$(grep -E 'kToolPrefixes\[\] *=' "$src/core/env.cpp" | grep -oE '"CUDROP_[A-Z0-9_]*"' | tr -d '"')
tool_names=$(grep -E 'kToolNames\[\] *=' "$src/core/env.cpp" | grep -oE '"CUDROP_[A-Z0-9_]*"' | tr -d '"')
[[ -n $tool_prefixes && -n $tool_names ]] || fail "core/env.cpp's kToolPrefixes or kToolNames not found"
# Named in the README as what cudrop warns about, not as a setting.
examples="CUDROP_MOD"

# named_in FILE NAME: NAME opens a code span (`CUDROP_MODE`, `CUDROP_MODE=cpu`) in FILE.
named_in() { grep -qE "\`$2([^A-Z0-9_]|\$)" "$1"; }

# stale FILE: the CUDROP_* names in FILE that are none of the above.
stale() {
  local name prefix known
  for name in $(grep -oE '(-D)?CUDROP_[A-Z0-9_]*' "$1" | sort -u); do
    [[ $name == -D* || $name == *_ ]] && continue  # a CMake option; a family (CUDROP_*, CUDROP_TEST_*)
    known=0
    grep -qx "$name" <<<"$(awk '{print $1}' <<<"$rows")
$tool_names
$examples" && known=1
    for prefix in $tool_prefixes; do [[ $name == "$prefix"* ]] && known=1; done
    [[ $known == 1 ]] || echo "$name"
  done
}

for name in $(names_of user); do
  named_in "$readme" "$name" || fail "README.md does not name the user setting \`$name\`"
done
for name in $(names_of tuning) $(names_of hook); do
  named_in "$tuning" "$name" || fail "docs/tuning.md does not name \`$name\`"
done
for doc in "$readme" "$tuning"; do
  for name in $(stale "$doc"); do fail "${doc#"$src"/} names $name, which core/settings.def lacks"; done
done
while read -r name audience; do
  hook=0 test_name=0
  [[ $audience == hook ]] && hook=1
  [[ $name == CUDROP_TEST_* ]] && test_name=1
  [[ $hook == "$test_name" ]] || fail "$name is a $audience row: test hooks, and only they, are named CUDROP_TEST_*"
done <<<"$rows"

echo "settings_docs: $(names_of user | wc -l) user settings (README.md), $(names_of tuning | wc -l) tuning knobs and $(names_of hook | wc -l) test hooks (docs/tuning.md)"
if [[ $failures != 0 ]]; then echo "settings_docs: $failures failure(s)"; exit 1; fi
echo "settings_docs: PASS"
