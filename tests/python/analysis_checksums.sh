#!/usr/bin/env bash
# bench/analysis.py (the whole-analysis benchmark) at a small scale, without cudrop and under
# cudrop-run in CPU mode: every step's checksum equal digit for digit, the calls through cudrop.
#   analysis_checksums.sh PYTHON CUDROP_RUN BENCH_ANALYSIS_PY
# Exit 0 pass, 1 fail, 77 skipped (no numpy/scipy for PYTHON).
set -uo pipefail
python=$1 run=$2 script=$3
"$python" -c 'import numpy, scipy.linalg' 2>/dev/null || { echo "analysis_checksums: skipped: no numpy/scipy"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" "$script" --scale 0.05 >"$work/plain" 2>&1 || { echo "FAIL: plain run"; cat "$work/plain"; exit 1; }
CUDROP_MODE=cpu CUDROP_VERBOSE=1 "$run" "$python" "$script" --scale 0.05 >"$work/cudrop" 2>&1 ||
  { echo "FAIL: cudrop-run run"; cat "$work/cudrop"; exit 1; }
sums() { awk '$1 == "step" { print $2, $NF }' "$1"; }
fail=0
if ! diff <(sums "$work/plain") <(sums "$work/cudrop"); then echo "FAIL: checksums differ"; fail=1; fi
[ "$(sums "$work/plain" | wc -l)" -ge 10 ] || { echo "FAIL: fewer steps than expected"; cat "$work/plain"; fail=1; }
grep -q 'cudrop: summary:' "$work/cudrop" || { echo "FAIL: no call went through cudrop"; fail=1; }
grep 'cudrop: summary:' "$work/cudrop"
[ $fail = 0 ] && echo "analysis_checksums: $(sums "$work/plain" | wc -l) steps, the same checksums; PASS"
exit $fail
