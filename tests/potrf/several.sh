#!/bin/bash
# potrf_several: ?potrf_ 'L' over several devices (impl/potrf/potrf_several.h): every GPU of the
# machine, or on a machine with one the GPU as two devices (CUDROP_TEST_DEVICE_TWINS=1), every
# Cholesky of more than one block column split (CUDROP_GEMM_DEVICE_MIN_FLOPS=0):
#   - potrf_test's matrices right (sizes across block columns, LDA padding, matrices not positive
#     definite: INFO and the state the CPU routine leaves), the split seen in the verbose log;
#   - the second device failing part way (its launches from the 20th on): every call still right,
#     finished on the CPU from the factor's columns already written back.
# usage: several.sh POTRF_TEST CUDROP-INFO   (exit 77 without a GPU)
set -u
test=$1 info=$2
. "$(dirname "$0")/../harness/shell_checks.sh"
read -r usable count < <(CUDROP_DEVICES=all "$info" --json 2>/dev/null | python3 -c '
import json, sys
g = json.loads(sys.stdin.read())["gpu"]
print(int(g["usable"]), g.get("device_count", 0))')
if [[ ${usable:-0} != 1 ]]; then echo "potrf_several: SKIP: no usable GPU"; exit 77; fi
if [[ ${count:-0} -ge 2 ]]; then several=(CUDROP_DEVICES=all); else
  several=(CUDROP_TEST_DEVICE_TWINS=1)
  echo "potrf_several: one GPU: run as two devices (twins); not made here: two real GPUs, peer copies"
fi
split=(CUDROP_MODE=gpu CUDROP_POTRF_MIN_N=0 CUDROP_GEMM_DEVICE_MIN_FLOPS=0 "${several[@]}")
. "$(dirname "$0")/../harness/run_case.sh"
run_timeout=900
# potrf_test exits 77 when it had no reference LAPACK to compare INFO with: its own checks count.
checked() {  # NAME: exit 0, or 77 with no failure among the checks made
  [[ $rc == 0 ]] || { [[ $rc == 77 ]] && grep -q 'checks, 0 failures' "$work/$1.out"; }
}

run right "${split[@]}" CUDROP_VERBOSE=2 -- "$test" --require-gpu --expect-gpu --max-size 2100 --model-n 1100
tail -3 "$work/right.out" | sed 's/^/    /'
checked right && pass "split over the devices: right, all on the GPU" || { tail -20 "$work/right.out" "$work/right.err"; fail "split (exit $rc)"; }
splits=$(grep -c 'potrf_ over [0-9]* devices' "$work/right.err")
[[ $splits -gt 0 ]] && pass "$splits calls split over the devices" || fail "no call split over the devices"

run fault "${split[@]}" CUDROP_VERBOSE=1 CUDROP_TEST_FAULT_INJECT=launch:20@1 -- "$test" --require-gpu --max-size 2100 \
  --model-n 1100
tail -3 "$work/fault.out" | sed 's/^/    /'
checked fault && pass "the second device failing part way: right" || { tail -20 "$work/fault.out" "$work/fault.err"; fail "fault (exit $rc)"; }
grep -q 'columns were written back' "$work/fault.err" && pass "calls finished on the CPU from the columns written back" ||
  fail "no call finished on the CPU after part of the factor was written back"

if [[ $failures != 0 ]]; then echo "potrf_several: $failures failure(s)"; exit 1; fi
echo "potrf_several: all passed"
