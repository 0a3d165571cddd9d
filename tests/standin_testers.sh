#!/bin/bash
# standin_testers: Debian's reference testers (libblas-test, liblapack-test), linked against
# libblas.so.3 and liblapack.so.3, run with cudrop's complete library standing in for both (a
# directory holding the two names -> libcudrop_full.so.0, first in LD_LIBRARY_PATH), cpu mode:
# every BLAS level and precision, CBLAS levels 2 and 3 (which use RowMajorStrg and their own
# cblas_xerbla), and the whole double and complex*16 LAPACK linear-equation testers (their own
# XERBLA checks each routine's error exits through the forwarders). Each must finish, report
# nothing failed, and have run through cudrop (its verbose lines naming the real CPU libraries).
# usage: standin_testers.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd)
blasdir=/usr/lib/x86_64-linux-gnu/blas lapackdir=/usr/lib/x86_64-linux-gnu/lapack
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: no forwarders on $(uname -m)"; exit 77; }
[ -x "$blasdir/xdcblat3" ] && [ -x "$lapackdir/xlintstd" ] ||
  { echo "SKIP: the reference testers are not installed (apt-get install libblas-test liblapack-test)"; exit 77; }
for v in $(env | sed -n 's/^\(CUDROP_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset LD_PRELOAD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/standin"
ln -s "$build/libcudrop_full.so.0" "$work/standin/libblas.so.3"
ln -s "$build/libcudrop_full.so.0" "$work/standin/liblapack.so.3"
failures=0 runs=0

tester() {  # tester PROGRAM INPUT (or -): runs in its own directory, judged by everything it wrote
  local program=$1 input=$2 name dir rc
  name=$(basename "$program")-$(basename "$input")
  dir=$work/$name
  mkdir -p "$dir"
  runs=$((runs + 1))
  [ "$input" = - ] && input=/dev/null
  (cd "$dir" && LD_LIBRARY_PATH=$work/standin CUDROP_MODE=cpu CUDROP_VERBOSE=1 timeout 600 "$program" <"$input" >stdout 2>stderr)
  rc=$?
  local bad passed
  bad=$(cat "$dir"/* | grep -E 'FAIL|SUSPECT|\*\*\*\*\*|error while loading|symbol lookup error' | grep -v 'passed the tests of the error exits' | head -5)
  passed=$(cat "$dir"/* | grep -ci 'pass')
  if [ "$rc" -ne 0 ] || [ -n "$bad" ] || [ "$passed" -eq 0 ]; then
    failures=$((failures + 1))
    echo "FAIL $name: exit status $rc, $passed lines that pass; $bad"
    tail -n 5 "$dir/stderr" | sed 's/^/    | /'
  elif ! grep -q '^cudrop: CPU [a-z0-9_]* from /' "$dir/stderr"; then
    failures=$((failures + 1)); echo "FAIL $name: no 'cudrop: CPU ... from' line (cudrop not loaded?)"
  elif grep '^cudrop: CPU [a-z0-9_]* from ' "$dir/stderr" | grep -q "from $work/"; then
    failures=$((failures + 1)); echo "FAIL $name: a routine resolved inside the stand-in directory"
  else
    echo "ok   $name: $passed lines that pass"
  fi
}

for p in s d c z; do
  tester "$blasdir/xblat1$p" -
  tester "$blasdir/xblat2$p" "$blasdir/${p}blat2.in"
  tester "$blasdir/xblat3$p" "$blasdir/${p}blat3.in"
  tester "$blasdir/x${p}cblat2" "$blasdir/${p}in2"
  tester "$blasdir/x${p}cblat3" "$blasdir/${p}in3"
done
tester "$lapackdir/xlintstd" "$lapackdir/dtest.in"
tester "$lapackdir/xlintstz" "$lapackdir/ztest.in"

if [ "$failures" -ne 0 ]; then echo "standin_testers: $failures of $runs runs failed"; exit 1; fi
echo "standin_testers: PASS ($runs runs)"
