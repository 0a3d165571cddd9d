#!/bin/bash
# Writes blas.names, cblas.names and lapack.names: the function symbols (nm -D --defined-only,
# types T and W) of the reference BLAS (levels 1-3 plus the helpers it exports), its CBLAS, and
# LAPACK, as Debian 12 ships them (LAPACK 3.11: packages libblas3, liblapack3). A name in both
# libraries (lsame_, xerbla_, xerbla_array_) appears in both lists; the build takes it from the
# library the process would have reached first (abi/forward.cpp). And data.names: their data
# symbols (the reference CBLAS's RowMajorStrg and CBLAS_CallFromC), which cannot be forwarded;
# abi/cblas_globals.cpp defines each (a new one needs a definition there too).
# usage: abi/regenerate.sh [BLAS_FILE [LAPACK_FILE]]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
blas=${1:-/usr/lib/x86_64-linux-gnu/blas/libblas.so.3}
lapack=${2:-/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3}
functions() { nm -D --defined-only "$1" | awk '$2 == "T" || $2 == "W" {print $3}' | sed 's/@.*//' | LC_ALL=C sort -u; }
functions "$blas" | grep -v '^cblas_' >"$here/blas.names"
functions "$blas" | grep '^cblas_' >"$here/cblas.names"
functions "$lapack" >"$here/lapack.names"
{ nm -D --defined-only "$blas"; nm -D --defined-only "$lapack"; } |
  awk '$2 == "B" || $2 == "D" || $2 == "V" {print $3}' | sed 's/@.*//' | LC_ALL=C sort -u >"$here/data.names"
wc -l "$here"/*.names
