#!/bin/bash
# settings: what cudrop says about its CUDROP_* settings, on a machine without a usable GPU.
#   - CUDROP_MODE is case-insensitive (CPU, Gpu);
#   - CUDROP_MODE=gpu without a usable GPU prints one notice on stderr, whatever the verbosity,
#     with the reason (no driver installed / no device, as this machine is);
#   - each variable with a value cudrop does not understand prints exactly one warning naming
#     the variable, the value and what is used instead; good values print nothing; an unknown
#     CUDROP_* name (a typo) is warned about, names cudrop's own tools set are not; a CPU
#     library named by a relative path is refused, and one that cannot be loaded is said;
#   - CUDROP_VERBOSE=1 prints the exit summary only from a process that made a call;
#   - CUDROP_VERBOSE=2 names the entry point the program called, with its own arguments.
# usage: settings.sh LIBCUDROP SETTINGS_PROBE
# Exit 0 pass, 1 fail, 77 (skipped) when nothing failed but a usable GPU here left the gpu-mode
# notice unchecked.
set -u
lib=$1 probe=$2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
not_checked=""  # what this machine did not let the test check

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Only the settings each case names.
for name in $(compgen -e | grep '^CUDROP_'); do unset "$name"; done

# run NAME [VAR=VALUE...] -- COMMAND...: stderr in $work/NAME.err, status in $rc.
. "$(dirname "$0")/../harness/run_case.sh"
show() { sed "s/^/    [$1] /" "$work/$1.err"; }
lines() { grep -c '' "$work/$1.err"; }

if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' || /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  have_driver=1
else
  have_driver=0
fi
echo "NVIDIA driver library (libcuda.so.1) installed: $have_driver"

# --- CUDROP_MODE, any case -----------------------------------------------------------------------
# CPU: calls on the CPU, and the GPU is never asked for (with both thresholds 0 auto mode would
# ask for it and say it has none).
run cpu_upper CUDROP_MODE=CPU CUDROP_VERBOSE=2 CUDROP_GEMM_MIN_FLOPS=0 CUDROP_GEMM_MIN_INTENSITY=0 -- "$probe" 2
show cpu_upper
[[ $rc == 0 ]] || fail "CUDROP_MODE=CPU: probe exit $rc"
[[ $(grep -c 'sgemm_.* on CPU' "$work/cpu_upper.err") == 2 ]] && pass "CUDROP_MODE=CPU: both calls on CPU" ||
  fail "CUDROP_MODE=CPU: expected two 'on CPU' lines"
grep -q 'no usable GPU\|is not' "$work/cpu_upper.err" && fail "CUDROP_MODE=CPU was not taken as cpu mode" ||
  pass "CUDROP_MODE=CPU is cpu mode (the GPU never asked for)"

# Gpu: one notice, whatever the verbosity, with the reason this machine has.
for verbose in 0 1; do
  name=gpu_mixed_v$verbose
  run $name CUDROP_MODE=Gpu CUDROP_VERBOSE=$verbose -- "$probe" 3
  show $name
  [[ $rc == 0 ]] || fail "$name: probe exit $rc"
  notices=$(grep -c 'no usable GPU' "$work/$name.err")
  notice=$(grep 'no usable GPU' "$work/$name.err")
  if [[ $have_driver == 0 ]]; then
    expected='cudrop: CUDROP_MODE=gpu but no usable GPU (no NVIDIA driver installed: libcuda.so.1 not found); running on the CPU'
    [[ $notices == 1 && $notice == "$expected" ]] && pass "$name: one notice, 'no NVIDIA driver installed'" ||
      fail "$name: expected exactly one line '$expected'"
  elif grep -q 'gpu_calls=[1-9]' "$work/$name.err"; then
    echo "$name: a usable GPU here: the notice without one not checked"
    not_checked="the gpu-mode notice without a usable GPU (this machine has one)"
  else
    re='^cudrop: CUDROP_MODE=gpu but no usable GPU \((no CUDA device|the NVIDIA driver|GPU [0-9]+ cannot be used).*\); running on the CPU$'
    [[ $notices == 1 && $notice =~ $re ]] && pass "$name: one notice with a reason" ||
      fail "$name: expected exactly one notice matching $re"
  fi
  grep -q 'insufficient' "$work/$name.err" && fail "$name: cudart's 'driver version is insufficient' shown"
done
[[ $(lines gpu_mixed_v0) == 1 ]] && pass "gpu mode, verbose 0: nothing but the notice" ||
  fail "gpu mode, verbose 0: expected one line on stderr"

# auto mode keeps its verbose-1 notice (and says nothing at verbose 0).
run auto_v1 CUDROP_VERBOSE=1 CUDROP_GEMM_MIN_FLOPS=0 CUDROP_GEMM_MIN_INTENSITY=0 -- "$probe" 2
show auto_v1
[[ $(grep -c '^cudrop: no usable GPU (.*): sgemm_ and every later call run on the CPU (mode auto)$' "$work/auto_v1.err") == 1 ]] &&
  pass "auto mode, verbose 1: the usual notice, once" || fail "auto mode, verbose 1: expected the usual notice once"
run auto_v0 CUDROP_GEMM_MIN_FLOPS=0 CUDROP_GEMM_MIN_INTENSITY=0 -- "$probe" 2
[[ $rc == 0 && $(lines auto_v0) == 0 ]] && pass "auto mode, verbose 0: silent" || { show auto_v0; fail "auto mode, verbose 0: not silent"; }

# --- values cudrop does not understand: exactly one warning each -----------------------------------
while IFS='|' read -r variable value instead; do
  [[ -z $variable ]] && continue
  name=bad_$variable${value//[^a-z0-9]/_}
  run "$name" "$variable=$value" -- "$probe" 2
  expected_start="cudrop: $variable=$value is not "
  expected_end="; using $instead"
  line=$(cat "$work/$name.err")
  if [[ $rc == 0 && $(lines "$name") == 1 && $line == "$expected_start"* && $line == *"$expected_end" ]]; then
    pass "$line"
  else
    show "$name"
    fail "$variable=$value: expected one line '$expected_start...$expected_end' (exit $rc)"
  fi
done <<'TABLE'
CUDROP_MODE|fast|auto
CUDROP_VERBOSE|loud|0
CUDROP_VERBOSE|3|0
CUDROP_GEMM_MIN_FLOPS|-5|268435456
CUDROP_GEMM_MIN_INTENSITY|high|16
CUDROP_GETRF_MIN_N|2k|2048
CUDROP_POTRF_MIN_N|1.5|512
CUDROP_POTRF_LEFT_COLS|-3|columns by size
CUDROP_POTRF_OUTER|100|512
CUDROP_POTRF_STRIP|0|2048
CUDROP_POTRF_TRACE|9|0
CUDROP_POTRF_LOOKAHEAD|no|1
CUDROP_GEMM_TRACE|yes|0
CUDROP_GETRF_TRACE|yes|0
CUDROP_GETRF_WRITEBACK|lots|64 MiB
CUDROP_DMMA_TILE|256x128|the tile chosen per shape
CUDROP_POWER_MIN_BYTES|big|4 MiB
CUDROP_TEST_POWER_CSR_ELEMENTWISE|2|0
CUDROP_TEST_POWER_PDL|off|1
CUDROP_TEST_POWER_L2|off|1
CUDROP_TEST_POWER_CSR_FORMAT|sell|the format chosen per matrix
CUDROP_NO_CPU_SEARCH|yes|0
CUDROP_DEVICE|first|the MPI launcher's local rank, else 0
CUDROP_STAGING_MB|0|32
CUDROP_GPU_MEM_LIMIT|lots|the device's free memory less a margin
CUDROP_TEST_FAULT_INJECT|crash|none
CUDROP_TEST_DEVICE_TWINS|8|none
CUDROP_TEST_DEVICE_TWINS|0|none
CUDROP_COPY_THREADS|many|one per core, at most 16 per device
CUDROP_DEVICES|first|one device (CUDROP_DEVICE, else the MPI launcher's local rank, else 0)
CUDROP_DEVICES|0,0|one device (CUDROP_DEVICE, else the MPI launcher's local rank, else 0)
CUDROP_DEVICES|0,-1|one device (CUDROP_DEVICE, else the MPI launcher's local rank, else 0)
CUDROP_DEVICES|1,,2|one device (CUDROP_DEVICE, else the MPI launcher's local rank, else 0)
CUDROP_GEMM_DEVICE_MIN_FLOPS|-1|137438953472
CUDROP_TEST_FAULT_INJECT|launch@x|none
CUDROP_CPU_BLAS|./libblas.so.3|the library loaded in the process, else the search list
CUDROP_CPU_BLAS|blas/libblas.so.3|the library loaded in the process, else the search list
CUDROP_CPU_LAPACK|../liblapack.so.3|the library loaded in the process, else the search list
CUDROP_CPU_BLAS|/nonexistent/libblas.so.3|the library loaded in the process, else the search list
TABLE
# The exact text of one of them.
expected='cudrop: CUDROP_MODE=fast is not auto, gpu or cpu; using auto'
[[ $(cat "$work/bad_CUDROP_MODEfast.err") == "$expected" ]] && pass "exact text: $expected" || fail "expected '$expected'"
# Only from a process that uses cudrop (warned at the first call).
run bad_no_call CUDROP_MODE=fast -- "$probe" 0
[[ $(lines bad_no_call) == 0 ]] && pass "no call: no warning" || { show bad_no_call; fail "no call: a warning"; }

# --- good values: silence -----------------------------------------------------------------------------
run good CUDROP_MODE=Cpu CUDROP_VERBOSE=0 CUDROP_GEMM_MIN_FLOPS=1e9 CUDROP_GEMM_MIN_INTENSITY=8.5 \
  CUDROP_GETRF_MIN_N=4096 CUDROP_POTRF_MIN_N=1024 CUDROP_POTRF_LEFT_COLS=0 CUDROP_POTRF_OUTER=256 \
  CUDROP_POTRF_STRIP=1024 CUDROP_POTRF_TRACE=2 CUDROP_POTRF_LOOKAHEAD=0 CUDROP_GEMM_TRACE=1 CUDROP_GETRF_TRACE=1 CUDROP_GETRF_WRITEBACK=32M \
  CUDROP_DMMA_TILE=128X64 CUDROP_POWER_MIN_BYTES=8M CUDROP_TEST_POWER_CSR_ELEMENTWISE=1 CUDROP_TEST_POWER_PDL=0 \
  CUDROP_TEST_POWER_L2=0 CUDROP_TEST_POWER_CSR_FORMAT=Wide CUDROP_NO_CPU_SEARCH=0 CUDROP_DEVICE=0 \
  CUDROP_STAGING_MB=64 CUDROP_GPU_MEM_LIMIT=1.5GiB CUDROP_TEST_FAULT_INJECT=launch:3@1 CUDROP_TEST_DEVICE_TWINS=1 CUDROP_COPY_THREADS=4 \
  CUDROP_DEVICES=0,1 CUDROP_GEMM_DEVICE_MIN_FLOPS=1e12 \
  CUDROP_CPU_LAPACK=liblapack.so.3 \
  CUDROP_NETLIB_DIR=/nowhere CUDROP_NETLIB_TIMEOUT=5 CUDROP_TEST_MAX_SIZE=3 CUDROP_TEST_REF_LAPACK=x \
  CUDROP_GIT_COMMIT=abc CUDROP_BENCH_CPU_BLAS=x -- "$probe" 2
[[ $rc == 0 && $(lines good) == 0 ]] && pass "good values (and the tools' own names): no message" ||
  { show good; fail "good values: messages (exit $rc)"; }
for value in all ALL '0,1' ' 2, 0 ,1' 7; do
  run "devices_$value" CUDROP_MODE=cpu CUDROP_DEVICES="$value" -- "$probe" 1
  grep -q 'is not' "$work/devices_$value.err" && { show "devices_$value"; fail "CUDROP_DEVICES='$value' warned"; }
done
pass "CUDROP_DEVICES: all, ALL, 0,1, ' 2, 0 ,1' and 7 understood (an index beyond the GPUs is judged once CUDA starts)"
for value in auto AUTO gpu cpu; do
  run "mode_$value" CUDROP_MODE=$value -- "$probe" 1
  grep -q 'is not' "$work/mode_$value.err" && { show "mode_$value"; fail "CUDROP_MODE=$value warned"; }
done

# Devices named on a machine without them: judged when CUDA starts (gpu mode), with a warning.
if ! command -v nvidia-smi >/dev/null 2>&1; then
  run devices_none CUDROP_MODE=gpu CUDROP_DEVICES=7 -- "$probe" 1
  show devices_none
  [[ $rc == 0 ]] && grep -q "^cudrop: CUDROP_DEVICES=7 is not a list of this machine's devices (.*); using the CPU$" "$work/devices_none.err" &&
    pass "CUDROP_DEVICES=7 without a GPU: one warning" || fail "CUDROP_DEVICES=7 without a GPU: no warning"
fi

# --- CUDROP_* names cudrop does not know ---------------------------------------------------------------
run typo CUDROP_MOD=gpu CUDROP_FROBNICATE=1 -- "$probe" 1
show typo
grep -qxF 'cudrop: CUDROP_MOD is not a cudrop setting (did you mean CUDROP_MODE?); ignored' "$work/typo.err" &&
  grep -qxF 'cudrop: CUDROP_FROBNICATE is not a cudrop setting; ignored' "$work/typo.err" && [[ $(lines typo) == 2 ]] &&
  pass "unknown names: one warning each" || fail "unknown names: expected one warning each"

# --- the verbose-1 summary only after a call -------------------------------------------------------------
run summary_none CUDROP_VERBOSE=1 -- "$probe" 0
[[ $rc == 0 && $(lines summary_none) == 0 ]] && pass "verbose 1, no call: no summary" ||
  { show summary_none; fail "verbose 1, no call: printed something"; }
run summary_shell CUDROP_VERBOSE=1 LD_PRELOAD="$lib" -- bash -c 'exit 0'
[[ $rc == 0 && $(lines summary_shell) == 0 ]] && pass "verbose 1, preloaded shell: no summary" ||
  { show summary_shell; fail "verbose 1, preloaded shell: printed something"; }
run summary_call CUDROP_VERBOSE=1 -- "$probe" 1
show summary_call
[[ $(grep -c '^cudrop: summary: ' "$work/summary_call.err") == 1 ]] &&
  grep -qx 'cudrop: summary: gpu_calls=0 cpu_calls=1 gpu_fallbacks=0' "$work/summary_call.err" &&
  pass "verbose 1, one call: one summary" || fail "verbose 1, one call: expected one summary line with cpu_calls=1"

# --- verbose lines name the call the program made ---------------------------------------------------
run label_cblas CUDROP_MODE=cpu CUDROP_VERBOSE=2 -- "$probe" cblas
show label_cblas
[[ $rc == 0 ]] && grep -qE '^cudrop: cblas_sgemm\(RowMajor,NoTrans,Trans,M=3,N=2,K=5\) on CPU, ' "$work/label_cblas.err" &&
  pass "verbose 2: the CBLAS call with the caller's layout, transposes and M, N, K" ||
  fail "verbose 2: no line 'cudrop: cblas_sgemm(RowMajor,NoTrans,Trans,M=3,N=2,K=5) on CPU, ...' (or a wrong result)"
run label_fortran CUDROP_MODE=cpu CUDROP_VERBOSE=2 -- "$probe" 1
grep -qE '^cudrop: sgemm_\(N,N,m=2,n=2,k=2\) on CPU, ' "$work/label_fortran.err" &&
  pass "verbose 2: the Fortran call" || { show label_fortran; fail "verbose 2: no line 'cudrop: sgemm_(N,N,m=2,n=2,k=2) on CPU, ...'"; }

if [[ $failures != 0 ]]; then echo "settings: $failures failure(s)"; exit 1; fi
if [[ -n $not_checked ]]; then echo "settings: SKIP: the rest passed; not checked here: $not_checked"; exit 77; fi
echo "settings: all passed"
