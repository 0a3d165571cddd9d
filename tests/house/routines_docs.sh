#!/bin/bash
# routines_docs: every routine cudrop accelerates (a routines.def row whose entry calls capi:
# kind blas, lapack or scalapack, entry thunk or asm) is named in README.md's list, as `?stem`
# (`?gemm`, `?getrf_`) or `p?stem_` for ScaLAPACK's, so that a new row is seen to be documented.
# cudrop's own extensions (kind ext: the power method) and its C functions are left out.
# usage: routines_docs.sh SOURCE_DIR
set -u
src=$1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
rows=$(sed -nE 's/^CUDROP_ROUTINE\((blas|lapack|scalapack), *([a-z0-9]+), *[a-z]+, *(thunk|asm),.*/\1 \2/p' "$src/routines.def")
[[ -n $rows ]] || fail "no accelerated row read from $src/routines.def"
while read -r kind stem; do
  [[ -z $kind ]] && continue
  if [[ $kind == scalapack ]]; then name="p?$stem"
  else name="?$stem"; fi
  grep -qF -- "\`$name" "$src/README.md" || fail "README.md does not name $kind routine \`$name\`"
done <<<"$rows"
echo "routines_docs: $(grep -c '' <<<"$rows") accelerated rows checked"
[ $failures -eq 0 ] && echo "routines_docs: all passed"
exit $((failures > 0))
