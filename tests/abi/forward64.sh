#!/bin/bash
# forward64: cudrop's ILP64 forwarders, CPU only. tests/abi/forward64_probe.c with 64-bit integers
#   (a) linked against libcudrop_full under the suffixed names (dgemm_64_, cblas_ddot64_, dgesv_64_);
#   (b) linked against libcudrop64 under the unsuffixed ones (Debian's libblas64.so.3 ABI);
# each with Debian's LP64 reference libblas.so.3/liblapack.so.3 loaded into the global scope
# first: the results check, and every CPU routine cudrop resolved (CUDROP_VERBOSE=2) came from
# an ILP64 file (blas64/, lapack64/), none from the LP64 ones, and no LP64 routine was resolved
# at all (the ILP64 library's own inner calls, dgesv_ -> dgetrf_, stay inside it).
# The accelerated routines' ILP64 names are cudrop's own entries (capi/exports64.cpp), the rest
# forwarders.
#   (d) an illegal argument (dgemm's M, dgetrs's LDB with no IPIV, cblas_dsyrk's Uplo) prints and
#       exits as without cudrop.
#   (c) no ILP64 library (CUDROP_NO_CPU_SEARCH=1): the call aborts naming the routine and the
#       ILP64 package, never an LP64 library.
# Skipped (77) without Debian's libblas64-3/liblapack64-3 (or libblas3/liblapack3).
# usage: forward64.sh BUILD_DIR TESTS_SOURCE_DIR C_COMPILER
set -u
build=$(cd "$1" && pwd) src=$2 cc=$3
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: no forwarders on $(uname -m)"; exit 77; }
[ -e "$build/libcudrop64.so.0" ] || { echo "FAIL: no $build/libcudrop64.so.0"; exit 1; }
multi=/usr/lib/x86_64-linux-gnu
for f in $multi/blas64/libblas64.so.3 $multi/lapack64/liblapack64.so.3 $multi/blas/libblas.so.3 $multi/lapack/liblapack.so.3; do
  [ -e "$f" ] || { echo "SKIP: $f not installed (libblas64-3, liblapack64-3, libblas3, liblapack3)"; exit 77; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/forward64.XXXXXX")
trap 'rm -rf "$work"' EXIT

run_case() {  # name, library (-l), SFX
  local name=$1 lib=$2 sfx=$3
  "$cc" -O1 -DSFX="$sfx" -o "$work/$name" "$src/forward64_probe.c" -L"$build" -l"$lib" \
    -Wl,-rpath,"$build" -ldl -lm || { fail "$name: does not build"; return; }
  CUDROP_VERBOSE=2 CUDROP_MODE=cpu "$work/$name" $multi/blas/libblas.so.3 $multi/lapack/liblapack.so.3 \
    >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  sed "s/^/$name: /" "$work/$name.out"
  [ $rc = 0 ] || fail "$name: exit status $rc: $(head -c 600 "$work/$name.err")"
  local from
  local lp64
  lp64=$(grep '^cudrop: CPU .* from ' "$work/$name.err" | grep -v '(64-bit integers)')
  [ -z "$lp64" ] || fail "$name: LP64 routines called: $(echo $lp64 | head -c 400)"
  from=$(sed -n 's/^cudrop: CPU \(.*\) (64-bit integers) from \(.*\)$/\1 \2/p' "$work/$name.err")
  [ -n "$from" ] || fail "$name: no 'CPU ... (64-bit integers) from' line"
  while read -r sym file; do
    [ -z "$sym" ] && continue
    case "$(readlink -f "$file")" in
      $multi/blas64/*|$multi/lapack64/*) echo "$name: ok: $sym from $file" ;;
      *) fail "$name: $sym resolved in $file, not an ILP64 library" ;;
    esac
  done <<<"$from"
}
run_case full cudrop_full 64_
run_case lib64 cudrop64 ""

# (d) An illegal argument (M = -1) through libcudrop_full's dgemm_64_ (cudrop's accelerated
# entry) and libcudrop64's dgemm_: the same text and exit status as linked against Debian's
# ILP64 libraries directly. dgemm_64_'s library is deep-bound, so its own handler (BLAS's) is
# called, as linked -lblas64 -llapack64; libcudrop64's xerbla_ forwarder takes LAPACK's when
# relinked (abi/forward.cpp), as linked -llapack64 -lblas64.
"$cc" -O1 -o "$work/direct-full" "$src/forward64_probe.c" $multi/blas64/libblas64.so.3 $multi/lapack64/liblapack64.so.3 -ldl -lm &&
"$cc" -O1 -o "$work/direct-lib64" "$src/forward64_probe.c" $multi/lapack64/liblapack64.so.3 $multi/blas64/libblas64.so.3 -ldl -lm ||
  fail "the probe does not link against Debian's ILP64 libraries"
for name in full lib64; do
  for what in gemm getrs cblas_dsyrk; do
    # libcudrop_full's deep-bound liblapack64 calls its own handler (LAPACK's), as linked
    # -llapack64 -lblas64.
    direct=$name
    [ $name = full ] && [ $what = getrs ] && direct=lib64
    "$work/direct-$direct" --illegal $what >"$work/direct-$direct.illegal" 2>&1; want_rc=$?
    "$work/$name" --illegal $what >"$work/$name.illegal" 2>&1; rc=$?
    if [ $rc = $want_rc ] && cmp -s "$work/direct-$direct.illegal" "$work/$name.illegal"; then
      echo "ok: $name: illegal $what: exit $rc, $(head -1 "$work/$name.illegal")"
    else
      fail "$name: illegal $what: exit $rc, '$(head -c 300 "$work/$name.illegal")'; without cudrop: exit $want_rc, '$(head -c 300 "$work/direct-$direct.illegal")'"
    fi
  done
done

# (e) Every routine cudrop accelerates (tests/abi/ilp64_calls.h: s and d, the LAPACK ones in c and z
# too), through cudrop's ILP64 entries in cpu mode with the LP64 libraries loaded first: the same
# bits as Debian's ILP64 libraries give linked directly, each routine resolved in an ILP64
# library, no LP64 one.
for name in full lib64; do
  CUDROP_VERBOSE=2 CUDROP_MODE=cpu "$work/$name" --dump $multi/blas/libblas.so.3 $multi/lapack/liblapack.so.3 \
    >"$work/$name.dump" 2>"$work/$name.dump.err" || fail "$name: --dump: exit $?: $(head -c 300 "$work/$name.dump.err")"
  "$work/direct-$name" --dump >"$work/direct-$name.dump" 2>&1 || fail "direct-$name: --dump: exit $?"
  lp64=$(grep '^cudrop: CPU .* from ' "$work/$name.dump.err" | grep -v '(64-bit integers)')
  [ -z "$lp64" ] || fail "$name: --dump: LP64 routines called: $(echo $lp64 | head -c 400)"
  for stem in gemm symm syrk syr2k trmm trsm getrf potrf getrs potrs gesv posv; do
    precisions="s d"
    case $stem in getrf|potrf|getrs|potrs|gesv|posv) precisions="s d c z" ;; esac
    for p in $precisions; do
      grep -q "^cudrop: CPU $p${stem}_64_ (64-bit integers) from .*\(blas64\|lapack64\)" "$work/$name.dump.err" ||
        fail "$name: --dump: $p${stem}_64_ not resolved in an ILP64 library"
    done
  done
  for stem in gemm symm syrk syr2k trmm trsm; do
    for p in s d; do
      grep -q "^cudrop: CPU cblas_$p${stem}64_ (64-bit integers) from .*blas64" "$work/$name.dump.err" ||
        fail "$name: --dump: cblas_$p${stem}64_ not resolved in an ILP64 library"
    done
  done
  if [ -s "$work/$name.dump" ] && cmp -s "$work/$name.dump" "$work/direct-$name.dump"; then
    echo "ok: $name: $(wc -l <"$work/$name.dump") calls of the accelerated routines, bit for bit Debian's ILP64 libraries'"
  else
    fail "$name: --dump differs from Debian's ILP64 libraries: $(diff "$work/$name.dump" "$work/direct-$name.dump" | head -c 600)"
  fi
done

# (c) No ILP64 library reachable: an abort naming the routine and the package.
CUDROP_NO_CPU_SEARCH=1 "$work/lib64" >"$work/none.out" 2>"$work/none.err"
rc=$?
if [ $rc = 0 ] || ! grep -q 'dgemm_ with 64-bit integers' "$work/none.err" || ! grep -q 'libblas64-3' "$work/none.err"; then
  fail "no ILP64 library: exit $rc, stderr: $(head -c 400 "$work/none.err")"
else
  echo "ok: no ILP64 library: exit $rc, $(head -1 "$work/none.err")"
fi

if [ "$failures" -ne 0 ]; then echo "forward64: $failures failure(s)"; exit 1; fi
echo "forward64: PASS"
