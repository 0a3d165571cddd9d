#!/bin/bash
# include_rule: no file includes a floor above its own (docs/architecture.md). Each folder may
# include its own files and those of the folders listed for it; tests/, bench/, tools/ and
# examples/ may include anything.
# usage: include_rule.sh SOURCE_DIR
set -u
cd "$1" || exit 1
declare -A allowed=(
  [capi]="capi route cpu impl core"
  [route]="route cpu impl core"
  [cpu]="cpu core"
  [abi]="abi cpu core"
  [impl]="impl kernels core"
  [kernels]="kernels core"
  [core]="core"
)
failures=0
for folder in "${!allowed[@]}"; do
  while IFS= read -r line; do
    file=${line%%:*}
    target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$line")
    [[ -d $target ]] || continue  # a generated or system header
    if [[ " ${allowed[$folder]} " != *" $target "* ]]; then
      echo "FAIL: $file includes $target/ (a $folder/ file may include: ${allowed[$folder]})"
      failures=$((failures + 1))
    fi
  done < <(grep -HnE '^[[:space:]]*#[[:space:]]*include "[a-z_]+/' -r "$folder" --include='*.h' --include='*.cpp' \
             --include='*.cu' --include='*.cuh' --include='*.c' --include='*.S' 2>/dev/null)
done
# Every folder of code is one of the floors above.
for folder in */; do
  folder=${folder%/}
  case $folder in tests|bench|tools|examples|docs|cmake|include|lapack_tests|pkgconfig|scripts|build*) continue ;; esac
  if compgen -G "$folder/*.[ch]*" >/dev/null || compgen -G "$folder/*.cu*" >/dev/null; then
    [[ -n ${allowed[$folder]:-} ]] || { echo "FAIL: $folder/ holds code but is no floor of docs/architecture.md"; failures=$((failures + 1)); }
  fi
done
if [[ $failures -ne 0 ]]; then echo "include_rule: $failures failure(s)"; exit 1; fi
echo "include_rule: every include goes down or sideways as docs/architecture.md says"
