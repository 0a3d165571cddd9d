#!/bin/bash
# gemm_multi_gpu: GEMM over several GPUs (CUDROP_DEVICES). Skipped (exit 77, ctest's skip code),
# saying why, without a GPU. On a machine with one GPU the same paths run with that GPU as two
# devices (CUDROP_TEST_DEVICE_TWINS=1: a second context of its own, its own thread, streams,
# staging and buffers; the shared operand forwarded by a copy within the GPU instead of a peer
# copy), and the checks that need two real GPUs are said not made.
#   - CUDROP_DEVICES with an index beyond the GPUs there are: one warning naming what is used;
#   - cudrop-info lists the devices in use;
#   - each byte of the caller's operands read once: the operand every region reads whole (op(A)
#     with C split by columns, op(B) by rows) forwarded from the first device, the bytes read
#     from the caller's arrays equal to the operands' size (the verbose log's count);
#   - with every call split (CUDROP_GEMM_DEVICE_MIN_FLOPS=0): gemm_accuracy's shapes (odd sizes,
#     every transpose pair, LD padding, beta 0 over NaN, row- and column-major CBLAS) right, all
#     on the GPU, the split seen in the verbose log; the out-of-core set under a 64 MiB cap per
#     device; the results equal to one GPU's bit for bit where no pipeline cuts k (gemm_multi_dump);
#   - one device failing (CUDROP_TEST_FAULT_INJECT=...@1: every launch, a launch part way, every
#     allocation): its region is computed on the other device, no CPU fallback, right results;
#   - every device failing part way: the rest finished on the CPU, right results.
# usage: gemm_multi_gpu.sh CUDROP-INFO GEMM_ACCURACY GEMM_MULTI_DUMP SETTINGS_PROBE
set -u
info=$1 accuracy=$2 dump=$3 probe=$4
. "$(dirname "$0")/../harness/shell_checks.sh"

json=$(CUDROP_DEVICES=all "$info" --json 2>/dev/null)
read -r usable count devices < <(python3 -c '
import json, sys
g = json.loads(sys.stdin.read())["gpu"]
print(int(g["usable"]), g.get("device_count", 0), len(g.get("devices", [])))' <<<"$json")
if [[ -z ${usable:-} ]]; then
  # Not a machine without a GPU: cudrop-info --json (or python3) did not answer.
  echo "$json" | head -20
  echo "FAIL: cudrop-info --json gave no gpu.usable (is python3 there?)"
  exit 1
fi
if [[ $usable != 1 ]]; then
  echo "gemm_multi_gpu: SKIP: no usable GPU"
  exit 77
fi
echo "gemm_multi_gpu: $count GPU(s) visible, CUDROP_DEVICES=all uses $devices"
[[ $devices == "$count" ]] && pass "CUDROP_DEVICES=all: all $count devices" || fail "CUDROP_DEVICES=all: $devices of $count"

# An index beyond the devices there are: dropped, with one warning saying what is used (at the
# first call on the GPU, when the devices are counted).
CUDROP_MODE=gpu CUDROP_DEVICES=0,99 "$probe" 1 >"$work/range.out" 2>"$work/range.err"
expected="cudrop: CUDROP_DEVICES=0,99 is not a list of device indices from 0 to $((count - 1)); using 0"
if [[ $(cat "$work/range.err") == "$expected" ]]; then pass "$expected"; else
  sed 's/^/    /' "$work/range.err"; fail "CUDROP_DEVICES=0,99: expected '$expected'"; fi
out=$(CUDROP_DEVICES=99 "$info" 2>&1)
grep -q "warning: CUDROP_DEVICES=99 is not a list of device indices from 0 to $((count - 1)); using device 0" <<<"$out" &&
  pass "cudrop-info: CUDROP_DEVICES=99 falls back to device 0, with the warning" || { echo "$out"; fail "cudrop-info, CUDROP_DEVICES=99"; }

if [[ $count -lt 2 ]]; then
  echo "gemm_multi_gpu: one GPU: the multi-GPU paths run on it as two devices (CUDROP_TEST_DEVICE_TWINS=1);" \
    "not made here: two real GPUs, peer copies between them"
  several=(CUDROP_TEST_DEVICE_TWINS=1)
  out=$(CUDROP_TEST_DEVICE_TWINS=1 "$info" 2>&1)
  grep -q "devices in use: 0,0" <<<"$out" && pass "cudrop-info: devices in use: 0,0 (twins)" ||
    { echo "$out"; fail "cudrop-info: no 'devices in use: 0,0' with twins"; }
else
  several=(CUDROP_DEVICES=all)
  out=$(CUDROP_DEVICES=0,1 "$info" 2>&1)
  grep -q "devices in use: 0,1" <<<"$out" && pass "cudrop-info: devices in use: 0,1" || { echo "$out"; fail "cudrop-info: no 'devices in use: 0,1'"; }
fi

split=(CUDROP_MODE=gpu "${several[@]}" CUDROP_GEMM_DEVICE_MIN_FLOPS=0)
# run NAME [VAR=VALUE...] -- COMMAND...: output in $work/NAME.{out,err}, status in $rc.
. "$(dirname "$0")/../harness/run_case.sh"
run_timeout=1200
expect_ok() {  # NAME WHAT: the run's last lines, and whether it exited 0
  tail -3 "$work/$1.out" | sed "s/^/    [$1] /"
  if [[ $rc == 0 ]]; then pass "$2"; else
    tail -20 "$work/$1.out" "$work/$1.err" | sed "s/^/    /"; fail "$2 (exit $rc)"; fi
}

run accuracy "${split[@]}" CUDROP_VERBOSE=2 -- "$accuracy" --require-gpu --expect-gpu --max-size 1100
expect_ok accuracy "split over every device: gemm_accuracy's shapes right, all on the GPU"
splits=$(grep -c 'over [0-9]* devices, C split by' "$work/accuracy.err")
rows=$(grep -c 'C split by rows' "$work/accuracy.err")
[[ $splits -gt 0 && $rows -gt 0 && $rows -lt $splits ]] && pass "$splits calls split ($rows by rows)" ||
  fail "split calls: $splits, by rows: $rows (expected both kinds)"

run ooc "${split[@]}" CUDROP_GPU_MEM_LIMIT=64M -- "$accuracy" --require-gpu --expect-gpu --shapes ooc
expect_ok ooc "split, out of core on each device (64 MiB cap): right, all on the GPU"

run write CUDROP_MODE=gpu CUDROP_DEVICES=0 CUDROP_DMMA_TILE=64x64 -- "$dump" write "$work/one.bin"
expect_ok write "one GPU: the reference results written"
run compare "${split[@]}" CUDROP_DMMA_TILE=64x64 CUDROP_VERBOSE=2 -- "$dump" compare "$work/one.bin"
expect_ok compare "every GPU: equal to one GPU's results (bit for bit where no pipeline cuts k)"
cat "$work/compare.out"
# Each byte read once: every call over the devices whose operands fill more than the staging
# buffers' small-call range read exactly their size from the caller's arrays, the shared operand
# forwarded (lines "... MiB read from the caller's arrays (operands ... MiB), ... MiB forwarded").
read_once=$(python3 -c '
import re, sys
calls = once = forwarded = 0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"over (\d+) devices: ([0-9.]+) MiB read from the caller.s arrays \(operands ([0-9.]+) MiB\), ([0-9.]+) MiB forwarded", line)
    if not m or float(m.group(3)) < 16: continue
    calls += 1
    once += m.group(2) == m.group(3)
    forwarded += float(m.group(4)) > 0
print(calls, once, forwarded)' "$work/compare.err")
read -r calls once forwarded <<<"$read_once"
[[ ${calls:-0} -gt 0 && $once == "$calls" && $forwarded == "$calls" ]] &&
  pass "each byte read once: $calls calls over the devices read their operands' size, the shared one forwarded" ||
  { grep 'read from the caller' "$work/compare.err" | sed 's/^/    /'; fail "read once: $calls calls, $once read their size, $forwarded forwarded"; }
run compare_default_tile "${split[@]}" -- "$dump" compare "$work/one.bin" --bitwise-max 0
expect_ok compare_default_tile "every GPU, tiles by shape: within the bound of one GPU's results"

# One device failing: its region goes to the other; nothing to the CPU.
for fault in launch@1 launch:2@1 alloc@1; do
  name=fault_${fault//[:@]/_}
  run "$name" "${split[@]}" CUDROP_VERBOSE=1 CUDROP_TEST_FAULT_INJECT=$fault -- "$accuracy" --require-gpu --expect-gpu \
    --max-size 700 --prec sd
  expect_ok "$name" "GPU 1 failing ($fault): right results, no CPU fallback"
  grep -q 'computing them on the' "$work/$name.err" && pass "$fault: regions redone on the device that succeeded" ||
    fail "$fault: no 'computing them on the ... that succeeded' line"
done
run fault_ooc "${split[@]}" CUDROP_VERBOSE=1 CUDROP_GPU_MEM_LIMIT=64M CUDROP_TEST_FAULT_INJECT=launch:3@1 -- \
  "$accuracy" --require-gpu --expect-gpu --shapes ooc --prec d
expect_ok fault_ooc "GPU 1 failing part way out of core (blocks of C already written): right, no CPU fallback"

# Every device failing part way: what they wrote stays, the rest is finished on the CPU (which
# calls had blocks of C written back before the failure depends on how the devices' threads
# interleave their launches: counted, not required).
run fault_all "${split[@]}" CUDROP_VERBOSE=1 CUDROP_GPU_MEM_LIMIT=64M CUDROP_TEST_FAULT_INJECT=launch:5 -- \
  "$accuracy" --require-gpu --expect-fallback --shapes ooc --prec s
expect_ok fault_all "every device failing part way: finished on the CPU, right"
echo "    calls finished on the CPU after part of C was written back: $(grep -c 'written back' "$work/fault_all.err")"

if [[ $failures != 0 ]]; then echo "gemm_multi_gpu: $failures failure(s)"; exit 1; fi
echo "gemm_multi_gpu: all passed"
