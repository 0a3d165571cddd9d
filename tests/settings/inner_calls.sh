#!/usr/bin/env bash
# inner_calls: what cudrop counts and prints for a relinked program (tests/settings/inner_calls.c)
# whose CPU LAPACK underneath calls the BLAS back through cudrop's exports: the program's own 4
# calls counted and, at CUDROP_VERBOSE=2, printed one line each; the CPU library's inner calls
# apart (the summary's inner_calls, where the reference LAPACK makes them), never as the program's.
# usage: inner_calls.sh PROGRAM
set -u
prog=$1
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
for v in $(env | sed -n 's/^\(CUDROP_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for verbose in 1 2; do
  CUDROP_MODE=cpu CUDROP_VERBOSE=$verbose "$prog" >"$work/out$verbose" 2>"$work/err$verbose"
  rc=$?
  sed "s/^/    [verbose $verbose] /" "$work/out$verbose"
  grep -v ' on CPU, [0-9.]* ms$' "$work/err$verbose" | sed "s/^/    [verbose $verbose stderr] /"
  [ $rc -eq 0 ] && grep -qx 'inner_calls: PASS' "$work/out$verbose" && pass "verbose $verbose: results and counters" ||
    fail "verbose $verbose: exit $rc"
  summary=$(grep '^cudrop: summary: ' "$work/err$verbose")
  [[ $summary =~ ^cudrop:\ summary:\ gpu_calls=0\ cpu_calls=4\ gpu_fallbacks=0(\ inner_calls=([0-9]+))?$ ]] &&
    pass "verbose $verbose: summary counts the program's 4 calls: $summary" ||
    fail "verbose $verbose: summary '$summary', want gpu_calls=0 cpu_calls=4 gpu_fallbacks=0"
  # The reference LAPACK (Debian's liblapack3) calls dgemm_ and the rest through the global
  # scope, so its inner calls reach cudrop and must be told apart; OpenBLAS's LAPACK mostly not.
  inner=$(sed -n 's/.* inner_calls=\([0-9]*\)$/\1/p' <<<"$summary")
  lapack=$(sed -n 's/^cudrop: CPU LAPACK: \(.*\) (.*/\1/p' "$work/err$verbose" | head -n 1)
  if [[ -n $lapack && $(readlink -f "$lapack") == */lapack/liblapack.so* ]]; then
    [[ ${inner:-0} -gt 0 ]] && pass "verbose $verbose: the reference LAPACK's $inner inner calls counted apart" ||
      fail "verbose $verbose: the reference LAPACK underneath, but no inner_calls in the summary"
  fi
done
lines=$(grep -c ' on CPU, [0-9.]* ms$' "$work/err2")
[ "$lines" -eq 4 ] && pass "verbose 2: one line per call of the program's (4)" ||
  { grep ' on CPU, ' "$work/err2" | head -n 8; fail "verbose 2: $lines call lines, want 4"; }
[ $failures -eq 0 ] && echo "inner_calls: all passed"
exit $((failures > 0))
