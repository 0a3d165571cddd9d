#!/bin/bash
# cudrop_info: the installed tool's report on a machine without a GPU: version, the reason no
# GPU is usable, each setting with its source (default, environment, an invalid value's
# fallback and warning), valid JSON, and --check comparing the GPU-mode and CPU-mode runs. The
# default view is short: the CPU libraries one line each, the users' settings and any other
# that is set; --all adds each CPU routine, the tuning knobs and test hooks, the thresholds.
# usage: cudrop_info.sh CUDROP-INFO
set -u
tool=$1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# The caller's own settings would change what is reported.
for v in $(env | sed -n 's/^\(CUDROP_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done

out=$("$tool" 2>&1) || fail "plain run exited $?"
echo "$out"
version=$(sed -n 's/^project(cudrop VERSION \([0-9.]*\).*/\1/p' "$(dirname "$0")/../../CMakeLists.txt")
grep -q "^cudrop $version\$" <<<"$out" || fail "no version line 'cudrop $version'"
grep -q "CUDA architectures" <<<"$out" || fail "no build line"
if ! command -v nvidia-smi >/dev/null 2>&1; then
  grep -q "no usable GPU: ." <<<"$out" || fail "no GPU reason"
fi
grep -Eq "^  CUDROP_MODE +auto +default\$" <<<"$out" || fail "CUDROP_MODE not shown as auto, default"
grep -Eq "^  CUDROP_GEMM_MIN_FLOPS " <<<"$out" || fail "no auto-mode threshold"
# Short: the libraries, not a line per routine; no tuning knob or test hook left at its default.
[ "$(grep -c '' <<<"$out")" -le 40 ] || fail "the default view has $(grep -c '' <<<"$out") lines, want at most 40"
grep -Eq "^  BLAS +(/|not found)" <<<"$out" && grep -Eq "^  LAPACK +(/|not found)" <<<"$out" ||
  fail "the default view has no 'BLAS' and 'LAPACK' library lines"
grep -Eq "^  [sd]gemm_|not found \(an ILP64 library\)" <<<"$out" && fail "the default view lists CPU routines"
grep -Eq "^  CUDROP_(STAGING_MB|TEST_FAULT_INJECT) " <<<"$out" && fail "the default view lists tuning knobs or test hooks"
grep -q "^cudrop-info --all: " <<<"$out" || fail "the default view does not say what --all adds"

out=$("$tool" --all 2>&1) || fail "--all exited $?"
grep -Eq "^  sgemm_ +[^ ]" <<<"$out" || fail "--all: no line for the CPU routine sgemm_"
grep -Eq "^  CUDROP_STAGING_MB +32 +default\$" <<<"$out" || fail "--all: no tuning knob CUDROP_STAGING_MB"
grep -Eq "^  CUDROP_TEST_FAULT_INJECT +none +default\$" <<<"$out" || fail "--all: no test hook CUDROP_TEST_FAULT_INJECT"
grep -q "^auto mode (CUDROP_MODE=auto) runs a call on the GPU when:" <<<"$out" || fail "--all: no auto-mode thresholds"

out=$(CUDROP_MODE=cpu CUDROP_GPU_MEM_LIMIT=2G CUDROP_STAGING_MB=64 "$tool" 2>&1) || fail "run with settings exited $?"
grep -Eq "^  CUDROP_MODE +cpu +environment\$" <<<"$out" || fail "CUDROP_MODE=cpu not shown from the environment"
grep -Eq "^  CUDROP_GPU_MEM_LIMIT +2G -> 2147483648 bytes +environment\$" <<<"$out" ||
  fail "CUDROP_GPU_MEM_LIMIT=2G not shown from the environment"
grep -Eq "^  CUDROP_STAGING_MB +64 +environment\$" <<<"$out" || fail "a tuning knob that is set not in the default view"

out=$(CUDROP_MODE=fast "$tool" 2>&1) || fail "run with an invalid value exited $?"
grep -Eq "^  CUDROP_MODE +auto +default \(invalid value\)\$" <<<"$out" || fail "CUDROP_MODE=fast: no fallback shown"
grep -q "warning: CUDROP_MODE=fast is not auto, gpu or cpu; using auto" <<<"$out" || fail "CUDROP_MODE=fast: no warning shown"

out=$(CUDROP_DEVICES=" 0, 1" "$tool" 2>&1) || fail "run with CUDROP_DEVICES exited $?"
if command -v nvidia-smi >/dev/null 2>&1; then
  grep -Eq "^  CUDROP_DEVICES +( 0, 1 -> )?0,1 +environment\$" <<<"$out" || fail "CUDROP_DEVICES=' 0, 1' not shown as 0,1"
else  # read as 0,1, and judged with the devices there are: none
  grep -q "warning: CUDROP_DEVICES=0,1 is not a list of this machine's devices (.*); using the CPU" <<<"$out" ||
    fail "CUDROP_DEVICES=' 0, 1' without a GPU: no warning naming 0,1"
fi
out=$(CUDROP_DEVICES=0,0 "$tool" --all 2>&1) || fail "run with CUDROP_DEVICES=0,0 exited $?"
grep -q "warning: CUDROP_DEVICES=0,0 is not all or a list of distinct device indices such as 0,1; using one device" \
  <<<"$out" || fail "CUDROP_DEVICES=0,0: no warning shown"
grep -Eq "^  CUDROP_GEMM_DEVICE_MIN_FLOPS " <<<"$out" || fail "no multi-device GEMM threshold"

json=$(CUDROP_MODE=fast "$tool" --json 2>/dev/null) || fail "--json exited $?"
python3 -m json.tool <<<"$json" >/dev/null || fail "--json is not JSON: $json"
python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
mode = [s for s in d["settings"] if s["name"] == "CUDROP_MODE"][0]
assert mode["value"] == "fast" and mode["effective"] == "auto" and "warning" in mode, mode
assert d["version"] and d["cpu"] and "CUDROP_GETRF_MIN_N" in d["auto_thresholds"]
audience = {s["name"]: s["audience"] for s in d["settings"]}
assert audience["CUDROP_MODE"] == "user" and audience["CUDROP_STAGING_MB"] == "tuning", audience
assert audience["CUDROP_TEST_FAULT_INJECT"] == "hook" and all(s["doc"] for s in d["settings"]), audience
assert any(c["symbol"] == "sgemm_" for c in d["cpu"]), d["cpu"]
' <<<"$json" || fail "--json content"

# Every auto-mode threshold of core/settings.def (CUDROP_*_MIN_*) among --all's thresholds and
# --json's auto_thresholds: a new row must not be left out of cudrop-info.
settings_def="$(dirname "$0")/../../core/settings.def"
all=$("$tool" --all 2>&1)
thresholds_text=$(sed -n '/^auto mode (CUDROP_MODE=auto) runs a call on the GPU when:$/,$p' <<<"$all")
for name in $(sed -n 's/^CUDROP_SETTING(\(CUDROP_[A-Z0-9_]*_MIN_[A-Z0-9_]*\),.*/\1/p' "$settings_def"); do
  grep -Eq "^  $name +[0-9]" <<<"$thresholds_text" || fail "--all lists no threshold $name"
  grep -q "\"$name\": [0-9]" <<<"$json" || fail "--json's auto_thresholds lack $name"
done
[ -n "$(sed -n 's/^CUDROP_SETTING(\(CUDROP_[A-Z0-9_]*_MIN_[A-Z0-9_]*\),.*/\1/p' "$settings_def")" ] ||
  fail "no CUDROP_*_MIN_* row read from $settings_def"

out=$("$tool" --check 2>&1)
rc=$?
echo "$out"
[ "$(grep -c ' PASS$' <<<"$out")" -eq 4 ] || fail "--check: not 4 PASS lines"
# Exit 0 only when the GPU ran them; two CPU runs agreeing is "not checked" (3), said last.
if grep -q 'ran on GPU, CUDROP_MODE=cpu' <<<"$out"; then
  [ $rc -eq 0 ] || fail "--check exited $rc with the GPU path run"
else
  [ $rc -eq 3 ] || fail "--check exited $rc, not 3, without the GPU path run"
  [[ "$(tail -n 1 <<<"$out")" == "GPU path not checked:"* ]] || fail "--check: last line is not 'GPU path not checked'"
fi

out=$("$tool" --bogus 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "--bogus exited $rc, not 2"
grep -q "unknown option '--bogus'" <<<"$out" || fail "--bogus: the option is not named: $out"

[ $failures -eq 0 ] && echo "cudrop_info: all passed"
exit $((failures > 0))
