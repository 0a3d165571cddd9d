#!/bin/bash
# A factorization over several devices (impl/potrf/potrf_several.h, impl/getrf/getrf_several.h):
# every GPU of the machine, or on a machine with one the GPU as two devices
# (CUDROP_TEST_DEVICE_TWINS=1), every call of more than one block column split
# (CUDROP_GEMM_DEVICE_MIN_FLOPS=0):
#   - the routine's own test program right (its sizes across block columns, LDA padding, singular
#     or not positive definite matrices), every call on the GPU, the split seen in the verbose log;
#   - the second device failing part way (its launches from the 20th on): every call still right,
#     and the verbose log shows how the failures ended: Cholesky finished on the CPU from the
#     columns written back; LU computed on the CPU from the caller's matrix, untouched.
# usage: factor_several.sh potrf|getrf CUDROP-INFO TEST [TEST ARGUMENTS...]
#   e.g. factor_several.sh potrf cudrop-info potrf_test --max-size 2100
# (exit 77 without a GPU; a test program's own 77, "no reference LAPACK", passes when none of
# its checks failed).
set -u
routine=$1 info=$2
shift 2
case $routine in
  potrf) fault_pattern='columns were written back' ;;
  getrf) fault_pattern='GPU attempt failed' ;;
  *) echo "factor_several.sh: potrf or getrf, not '$routine'"; exit 2 ;;
esac
. "$(dirname "$0")/shell_checks.sh"
read -r usable count < <(CUDROP_DEVICES=all "$info" --json 2>/dev/null | python3 -c '
import json, sys
g = json.loads(sys.stdin.read())["gpu"]
print(int(g["usable"]), g.get("device_count", 0))')
if [[ ${usable:-0} != 1 ]]; then echo "${routine}_several: SKIP: no usable GPU"; exit 77; fi
if [[ ${count:-0} -ge 2 ]]; then several=(CUDROP_DEVICES=all); else
  several=(CUDROP_TEST_DEVICE_TWINS=1)
  echo "${routine}_several: one GPU: run as two devices (twins); not made here: two real GPUs, peer copies"
fi
split=(CUDROP_MODE=gpu CUDROP_POTRF_MIN_N=0 CUDROP_GETRF_MIN_N=0 CUDROP_GEMM_DEVICE_MIN_FLOPS=0 "${several[@]}")
. "$(dirname "$0")/run_case.sh"
run_timeout=900
checked() {  # NAME: exit 0, or 77 with no failure among the checks made
  [[ $rc == 0 ]] || { [[ $rc == 77 ]] && grep -Eq ' 0 failures|failures=0|: 0 failed' "$work/$1.out"; }
}

run right "${split[@]}" CUDROP_VERBOSE=2 -- "$@" --require-gpu --expect-gpu
tail -3 "$work/right.out" | sed 's/^/    /'
checked right && pass "split over the devices: right, all on the GPU" ||
  { grep -a -m 12 -E 'FAIL|NOTE' "$work/right.out" | cut -c1-300; fail "split (exit $rc)"; }
splits=$(grep -c "${routine}_ over [0-9]* devices" "$work/right.err")
[[ $splits -gt 0 ]] && pass "$splits calls split over the devices" || fail "no call split over the devices"

run fault "${split[@]}" CUDROP_VERBOSE=1 CUDROP_TEST_FAULT_INJECT=launch:20@1 -- "$@" --require-gpu
tail -3 "$work/fault.out" | sed 's/^/    /'
checked fault && pass "the second device failing part way: right" ||
  { grep -a -m 12 -E 'FAIL|NOTE' "$work/fault.out" | cut -c1-300; fail "fault (exit $rc)"; }
grep -q "$fault_pattern" "$work/fault.err" && pass "failures ended as expected: '$fault_pattern'" ||
  fail "no '$fault_pattern' in the log"

if [[ $failures != 0 ]]; then echo "${routine}_several: $failures failure(s)"; exit 1; fi
echo "${routine}_several: all passed"
