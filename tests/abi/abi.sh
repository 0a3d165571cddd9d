#!/bin/bash
# abi: libcudrop_full.so exports every function of the reference BLAS, CBLAS and LAPACK: all
# of abi/*.names (Debian 12's lists, committed) and every symbol (functions and data, nm -D)
# of the Debian libraries on this machine, if installed; nothing else than those and
# exports.map's names; the handlers xerbla_ and cblas_xerbla (forwarders), and the reference
# CBLAS's variables RowMajorStrg and CBLAS_CallFromC (abi/data.names) as data; unversioned, not
# -Bsymbolic, and no CUDA/BLAS/LAPACK library NEEDED (the CPU one is
# found at run time). The preload library's own list is tests/abi/exports.sh's.
# libcudrop_full also exports every function name with OpenBLAS's ILP64 suffix (dgemm_64_,
# cblas_dgemm64_). With `64` (the abi64 test), the library is libcudrop64: the same unsuffixed
# names (Debian's blas64/libblas64.so.3 and lapack64/liblapack64.so.3 are compared), no suffixed
# ones, and of exports.map only its C functions (cudrop_version...): the rest take 32-bit integers
# (the accelerated routines' unsuffixed names there are cudrop's ILP64 entries, listed already).
# usage: abi.sh LIBCUDROP_FULL.so ABI_DIR EXPORTS_MAP [64]
# Exit 0 pass, 1 fail, 77 (skipped) when nothing failed but a Debian library to compare with is
# not installed (libblas-dev/liblapack-dev and their 64 variants: scripts/test-deps).
set -u
lib=$1 abi=$2 map=$3 w=${4:-}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[ -f "$lib" ] || { echo "FAIL: no $lib"; exit 1; }
case "$(uname -m)" in
  x86_64) ;;
  *) echo "SKIP: no forwarders on $(uname -m) (abi/forwarders.S is x86-64)"; exit 77 ;;
esac

# Every defined symbol, functions and data.
functions() { nm -D --defined-only "$1" | awk 'NF >= 3 && $2 != "A" {print $3}' | sed 's/@.*//' | LC_ALL=C sort -u; }
actual=$(nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}' | LC_ALL=C sort -u)
own=$(sed -e 's@/\*.*\*/@@g' -e 's@//.*$@@' "$map" | tr '\n' ' ' |
  sed -n 's/.*global:\(.*\)local:.*/\1/p' | tr ';' '\n' | tr -d ' \t' | grep -v '^$' | LC_ALL=C sort -u)
listed=$(cat "$abi"/blas.names "$abi"/cblas.names "$abi"/lapack.names "$abi"/data.names | LC_ALL=C sort -u)
if [ -z "$w" ]; then
  # The ILP64 spelling of every function (not the two variables).
  listed=$( (echo "$listed"; cat "$abi"/blas.names "$abi"/cblas.names "$abi"/lapack.names | sed 's/$/64_/') | LC_ALL=C sort -u)
else
  own=$(echo "$own" | grep -E '^cudrop_[a-z_]*[a-z]$')
fi
echo "exported: $(echo "$actual" | wc -l) names; abi/*.names: $(echo "$listed" | wc -l); cudrop's own: $(echo "$own" | wc -l)"

missing=$(LC_ALL=C comm -23 <(echo "$listed") <(echo "$actual"))
[ -z "$missing" ] || fail "in abi/*.names but not exported: $(echo $missing | cut -c1-400)"
extra=$(LC_ALL=C comm -13 <(printf '%s\n%s\n' "$listed" "$own" | LC_ALL=C sort -u) <(echo "$actual"))
[ -z "$extra" ] || fail "exported but neither in abi/*.names nor exports.map: $(echo $extra | cut -c1-400)"

compared=0
for debian in /usr/lib/x86_64-linux-gnu/blas$w/libblas$w.so.3 /usr/lib/x86_64-linux-gnu/lapack$w/liblapack$w.so.3; do
  if [ ! -e "$debian" ]; then
    echo "note: $debian is not installed (Debian's libblas${w}-3 / liblapack${w}-3): compared with abi/*.names only"
    continue
  fi
  compared=$((compared + 1))
  missing=$(LC_ALL=C comm -23 <(functions "$debian") <(echo "$actual"))
  if [ -n "$missing" ]; then
    fail "$(basename "$debian") ($(readlink -f "$debian")) symbols not exported (abi/regenerate.sh updates the lists): $(echo $missing | cut -c1-400)"
  else
    echo "ok: every symbol of $debian ($(functions "$debian" | wc -l)) is exported"
  fi
done

for handler in xerbla_ cblas_xerbla; do
  echo "$actual" | grep -qx "$handler" || fail "does not export $handler"
done
for data in RowMajorStrg CBLAS_CallFromC; do
  nm -D --defined-only "$lib" | awk -v n="$data" '$3 == n && ($2 == "B" || $2 == "D") {ok = 1} END {exit !ok}' ||
    fail "does not export the variable $data"
done
if nm -D --defined-only "$lib" | awk '{print $3}' | grep -q '@'; then fail "versioned symbols exported"; fi
if readelf -d "$lib" | grep -q 'SYMBOLIC'; then fail "linked with -Bsymbolic: a program's own xerbla_ could not override"; fi
soname=libcudrop_full.so.0; [ -n "$w" ] && soname=libcudrop64.so.0
readelf -d "$lib" | grep -qF "SONAME) Library soname: [$soname]" || readelf -d "$lib" | grep -q "SONAME.*\[$soname\]" ||
  fail "SONAME is not $soname"
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
for bad in libcudart libcublas libcusolver libcuda.so libnvidia libblas liblapack libopenblas libmkl libblis; do
  if echo "$needed" | grep -q "^$bad"; then fail "NEEDED $bad"; fi
done

if [ "$failures" -ne 0 ]; then echo "abi$w: $failures failure(s)"; exit 1; fi
if [ "$compared" -lt 2 ]; then
  echo "abi$w: SKIP: the rest passed, but only $compared of Debian's 2 libraries (libblas${w}-3, liblapack${w}-3) here to compare with"
  exit 77
fi
echo "abi$w: PASS (compared with $compared Debian librar$([ $compared = 1 ] && echo y || echo ies) on this machine)"
