#!/bin/bash
# exports: libcudrop.so exports exactly the names of the global list of exports.map, written
# from routines.def at build time (nothing of the static CUDA runtime or of C++ leaks out), none
# of the process's own handlers and CBLAS globals, unversioned, and needs no CUDA library at
# run time: the CUDA runtime is linked statically, the driver is loaded on demand, so the
# library loads (and runs everything on the CPU) on a machine without CUDA. It also needs no
# BLAS/LAPACK library: the CPU one underneath is found at run time, never fixed at link time.
# usage: exports.sh LIBCUDROP.so EXPORTS_MAP
set -u
lib=$1 map=$2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -f "$lib" ] || { echo "FAIL: no $lib"; exit 1; }
[ -f "$map" ] || { echo "FAIL: no $map"; exit 1; }

# The global list: everything between "global:" and "local:", comments removed, split at ';'.
expected=$(sed -e 's@/\*.*\*/@@g' -e 's@//.*$@@' "$map" | tr '\n' ' ' |
  sed -n 's/.*global:\(.*\)local:.*/\1/p' | tr ';' '\n' | tr -d ' \t' | grep -v '^$' | sort -u)
[ -n "$expected" ] || { echo "FAIL: could not parse the global list of $map"; exit 1; }

actual=$(nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}' | sort -u)
echo "exports.map global list: $(echo $expected)"
echo "nm -D --defined-only:    $(echo $actual)"
missing=$(comm -23 <(echo "$expected") <(echo "$actual"))
extra=$(comm -13 <(echo "$expected") <(echo "$actual"))
[ -z "$missing" ] || fail "listed in exports.map but not exported: $(echo $missing)"
[ -z "$extra" ] || fail "exported but not in exports.map: $(echo $extra)"
# Exported, these would replace the program's own (capi/report.h), whatever the list says.
for own in xerbla_ cblas_xerbla RowMajorStrg CBLAS_CallFromC; do
  if echo "$actual" | grep -qx "$own"; then fail "exports $own"; fi
done
if nm -D --defined-only "$lib" | awk '{print $3}' | grep -q '@'; then
  fail "versioned symbols exported (the names must interpose like any BLAS's): $(nm -D --defined-only "$lib" | grep '@')"
fi

needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
for bad in libcudart libcublas libcublasLt libcusolver libcusparse libcuda.so libnvidia \
           libblas liblapack libopenblas libmkl libblis; do
  if echo "$needed" | grep -q "^$bad"; then fail "NEEDED $bad: $(echo "$needed" | grep "^$bad")"; fi
done
if readelf -d "$lib" | grep -q 'SYMBOLIC'; then
  fail "linked with -Bsymbolic: a program's own xerbla_ could not override the library's"
fi

if [ "$failures" -ne 0 ]; then echo "exports: $failures failure(s)"; exit 1; fi
echo "exports: PASS"
