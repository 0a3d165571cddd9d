#!/bin/bash
# cudrop_info: the installed tool's report on a machine without a GPU: version, the reason no
# GPU is usable, each setting with its source (default, environment, an invalid value's
# fallback and warning), valid JSON, and --check comparing the GPU-mode and CPU-mode runs.
# usage: cudrop_info.sh CUDROP-INFO
set -u
tool=$1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# The caller's own settings would change what is reported.
for v in $(env | sed -n 's/^\(CUDROP_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done

out=$("$tool" 2>&1) || fail "plain run exited $?"
echo "$out"
version=$(sed -n 's/^project(cudrop VERSION \([0-9.]*\).*/\1/p' "$(dirname "$0")/../CMakeLists.txt")
grep -q "^cudrop $version\$" <<<"$out" || fail "no version line 'cudrop $version'"
grep -q "CUDA architectures" <<<"$out" || fail "no build line"
if ! command -v nvidia-smi >/dev/null 2>&1; then
  grep -q "no usable GPU: ." <<<"$out" || fail "no GPU reason"
fi
grep -Eq "^  CUDROP_MODE +auto +default\$" <<<"$out" || fail "CUDROP_MODE not shown as auto, default"
grep -Eq "^  CUDROP_GEMM_MIN_FLOPS " <<<"$out" || fail "no auto-mode threshold"

out=$(CUDROP_MODE=cpu CUDROP_GPU_MEM_LIMIT=2G "$tool" 2>&1) || fail "run with settings exited $?"
grep -Eq "^  CUDROP_MODE +cpu +environment\$" <<<"$out" || fail "CUDROP_MODE=cpu not shown from the environment"
grep -Eq "^  CUDROP_GPU_MEM_LIMIT +2G -> 2147483648 bytes +environment\$" <<<"$out" ||
  fail "CUDROP_GPU_MEM_LIMIT=2G not shown from the environment"

out=$(CUDROP_MODE=fast "$tool" 2>&1) || fail "run with an invalid value exited $?"
grep -Eq "^  CUDROP_MODE +auto +default \(invalid value\)\$" <<<"$out" || fail "CUDROP_MODE=fast: no fallback shown"
grep -q "warning: CUDROP_MODE=fast is not auto, gpu or cpu; using auto" <<<"$out" || fail "CUDROP_MODE=fast: no warning shown"

out=$(CUDROP_DEVICES=" 0, 1" "$tool" 2>&1) || fail "run with CUDROP_DEVICES exited $?"
grep -Eq "^  CUDROP_DEVICES +( 0, 1 -> )?0,1 +environment\$" <<<"$out" || fail "CUDROP_DEVICES=' 0, 1' not shown as 0,1"
out=$(CUDROP_DEVICES=0,0 "$tool" 2>&1) || fail "run with CUDROP_DEVICES=0,0 exited $?"
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
' <<<"$json" || fail "--json content"

out=$("$tool" --check 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "--check exited $rc"
[ "$(grep -c ' PASS$' <<<"$out")" -eq 4 ] || fail "--check: not 4 PASS lines"

[ $failures -eq 0 ] && echo "cudrop_info: all passed"
exit $((failures > 0))
