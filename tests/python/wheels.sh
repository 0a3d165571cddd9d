#!/bin/bash
# wheels: numpy and scipy as pip installs them from PyPI, whose BLAS/LAPACK is the OpenBLAS
# bundled in the wheels under renamed symbols (numpy 2.x: scipy_dgemm_64_, scipy_cblas_dgemm64_,
# 64-bit integers; scipy: scipy_dgemm_, scipy_cblas_dgemm; numpy 1.26: dgemm_64_,
# cblas_dgemm64_), with libcudrop.so preloaded. Two virtual environments (pinned versions, made
# once in CACHE_DIR): numpy 2 with scipy and threadpoolctl, and numpy 1.26. In each,
# tests/python/wheel_calls.py runs its operations without cudrop, then preloaded in cpu and in
# auto mode (CUDROP_VERBOSE=2): every result must be bit-identical to the run without cudrop,
# each routine family must have reached cudrop (its per-call lines and the exit summary), and
# threadpoolctl must still see and limit the wheel's OpenBLAS. An OpenBLAS of other names is
# left alone, with a notice at CUDROP_VERBOSE=1. With --gpu (label gpu), with the
# python3 on PATH and its own pip-installed numpy/scipy (the GPU machines reach no registry):
# CUDROP_MODE=gpu and every threshold 0, results within rounding of the run without cudrop, and
# the calls counted on the GPU. Skipped (77) when PyPI cannot be reached or python3 cannot make
# a virtual environment; --gpu also without a usable GPU.
# usage: wheels.sh LIBCUDROP TESTS_PYTHON_DIR CACHE_DIR [--gpu]
set -u
lib=$(readlink -f "$1") src=$2 cache=$3 gpu=${4:-}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
skip() { echo "SKIP: $*"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for name in $(compgen -e | grep '^CUDROP_'); do unset "$name"; done
unset LD_PRELOAD

# venv NAME PACKAGES...: $cache/NAME with exactly these pinned wheels (binary only), made once.
venv() {
  local name=$1; shift
  local dir=$cache/$name
  if [[ -f $dir/.complete && $(cat "$dir/.complete") == "$*" ]]; then return 0; fi
  rm -rf "$dir"
  local python
  for python in python3 /usr/bin/python3; do
    "$python" -m venv "$dir" >"$work/venv.log" 2>&1 && break
    rm -rf "$dir"
  done
  [[ -x $dir/bin/python ]] || { cat "$work/venv.log"; skip "python3 cannot make a virtual environment (apt install python3-venv)"; }
  if ! timeout 600 "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
       "$@" >"$work/pip.log" 2>&1; then
    tail -n 5 "$work/pip.log"
    rm -rf "$dir"
    if grep -qiE 'connection|resolve|network|timed out|temporary failure|No matching distribution' "$work/pip.log"; then
      skip "PyPI cannot be reached or has no wheel of $* for $("$python" --version 2>&1)"
    fi
    echo "FAIL: pip install $* failed"; exit 1
  fi
  echo "$*" >"$dir/.complete"
}

# The labels of cudrop's per-call lines each environment's operations must produce: the routine
# families numpy and scipy reach (a routine cudrop does not accelerate in some precision is
# not expected there). numpy.linalg computes single precision in double (d and z only).
accelerated() { nm -D --defined-only "$lib" | awk '{print $3}' | grep -qx "$1"; }
expected_numpy="cblas_sgemm cblas_dgemm cblas_cgemm cblas_zgemm cblas_ssyrk cblas_dsyrk"
for p in d z; do
  for r in gesv getrf potrf; do accelerated "scipy_${p}${r}_64_" && expected_numpy+=" ${p}${r}_"; done
done
expected_scipy=""
for p in s d c z; do
  for r in getrf getrs potrf potrs; do accelerated "scipy_${p}${r}_" && expected_scipy+=" ${p}${r}_"; done
done

# check_env NAME PYTHON EXPECTED_LABELS: the runs and checks with that python.
check_env() {
  local name=$1 py=$2 expected=$3
  echo "== $name: $("$py" -c 'import numpy; print("numpy", numpy.__version__)') $("$py" -c 'import scipy; print("scipy", scipy.__version__)' 2>/dev/null)"
  "$py" "$src/wheel_calls.py" run "$work/$name-base.npz" || { fail "$name: the run without cudrop failed"; return; }
  local modes=(cpu auto) extra=() rtol=()
  if [[ $gpu == --gpu ]]; then
    modes=(gpu)
    extra=(CUDROP_GEMM_MIN_FLOPS=0 CUDROP_GEMM_MIN_INTENSITY=0 CUDROP_SYRK_MIN_FLOPS=0 CUDROP_GETRF_MIN_N=0
           CUDROP_POTRF_MIN_N=0 CUDROP_SOLVE_MIN_FLOPS=0)
    rtol=(--rtol 1e-4)
  fi
  for mode in "${modes[@]}"; do
    local run=$name-$mode
    env LD_PRELOAD="$lib" CUDROP_MODE=$mode CUDROP_VERBOSE=2 "${extra[@]}" \
      "$py" "$src/wheel_calls.py" run "$work/$run.npz" 2>"$work/$run.err"
    local rc=$?
    [[ $rc == 0 ]] || { sed "s/^/    [$run] /" "$work/$run.err" | tail -n 20; fail "$run: exit status $rc"; continue; }
    if "$py" "$src/wheel_calls.py" compare "$work/$name-base.npz" "$work/$run.npz" "${rtol[@]}" | sed "s/^/    /"; then
      pass "$run: every result as without cudrop${rtol:+ within rounding}"
    else
      fail "$run: results differ from the run without cudrop"
    fi
    local missing=""
    for label in $expected; do
      grep -q "^cudrop: $label(" "$work/$run.err" || missing+=" $label"
    done
    [[ -z $missing ]] && pass "$run: calls reached cudrop:$expected" || fail "$run: no call of$missing reached cudrop"
    local summary; summary=$(grep '^cudrop: summary:' "$work/$run.err")
    echo "    $summary"
    if [[ $mode == gpu ]]; then
      [[ $summary =~ gpu_calls=[1-9] && $summary =~ gpu_fallbacks=0 ]] && pass "$run: counted on the GPU, no fallback" ||
        fail "$run: not counted on the GPU"
      # ?copy_ never goes to the GPU (numpy's copies into Fortran order: on the host's threads).
      local on_cpu; on_cpu=$(grep 'on CPU' "$work/$run.err" | grep -vE '^cudrop: (cblas_)?[sdcz]copy_?[(: ]')
      [[ -n $on_cpu ]] && { head -n 5 <<<"$on_cpu"; fail "$run: calls on the CPU"; }
    else
      [[ $summary =~ cpu_calls=[1-9] ]] && pass "$run: the exit summary counts them" || fail "$run: no summary with cpu_calls"
    fi
    grep -v '^cudrop: ' "$work/$run.err" | grep -q . && { sed "s/^/    [$run] /" "$work/$run.err" | grep -v 'cudrop: '; fail "$run: other output on stderr"; }
  done
}

if [[ $gpu == --gpu ]]; then
  # The GPU machines reach no package registry: their python3's own pip-installed numpy/scipy.
  env LD_PRELOAD="$lib" python3 -c 'import ctypes, sys; sys.exit(0 if ctypes.CDLL(None).cudrop_gpu_available() else 77)' ||
    skip "no usable GPU"
  python3 -c 'import numpy, os, sys; sys.exit(0 if os.path.isdir(os.path.dirname(numpy.__file__) + ".libs") else 1)' ||
    skip "python3's numpy is not a PyPI wheel"
  expected=$expected_numpy
  python3 -c 'import scipy.linalg' 2>/dev/null && expected+=" $expected_scipy"
  check_env python3 "$(command -v python3)" "$expected"
  if [[ $failures -ne 0 ]]; then echo "wheels: $failures failure(s)"; exit 1; fi
  echo "wheels: PASS"
  exit 0
fi

mkdir -p "$cache"
venv numpy2 numpy==2.4.6 scipy==1.17.1 threadpoolctl==3.6.0
check_env numpy2 "$cache/numpy2/bin/python" "$expected_numpy $expected_scipy"
# threadpoolctl: the wheels' OpenBLAS, as without cudrop, and still limited by it.
"$cache/numpy2/bin/python" "$src/wheel_calls.py" threads >"$work/threads-base.txt" 2>&1
LD_PRELOAD="$lib" CUDROP_MODE=cpu "$cache/numpy2/bin/python" "$src/wheel_calls.py" threads >"$work/threads-cudrop.txt" 2>&1
rc=$?
sed 's/^/    [threadpoolctl] /' "$work/threads-cudrop.txt"
[[ $rc == 0 ]] && cmp -s "$work/threads-base.txt" "$work/threads-cudrop.txt" &&
  pass "threadpoolctl sees and limits the wheels' OpenBLAS as without cudrop" || fail "threadpoolctl: not as without cudrop"

# A wheel of a naming convention cudrop does not know is left alone, and verbose says so.
echo 'void renamed_dgemm_(void) {}' >"$work/renamed.c"
if cc -shared -fPIC -o "$work/libopenblas_renamed.so" "$work/renamed.c" 2>/dev/null; then
  LD_PRELOAD="$lib" CUDROP_VERBOSE=1 python3 -c "import ctypes; ctypes.CDLL('$work/libopenblas_renamed.so')" \
    2>"$work/renamed.err"
  grep -qx "cudrop: $work/libopenblas_renamed.so: an OpenBLAS whose names cudrop does not serve .*" "$work/renamed.err" &&
    [[ $(grep -c '' "$work/renamed.err") == 1 ]] && pass "an OpenBLAS of unknown names: one verbose notice" ||
    { cat "$work/renamed.err"; fail "an OpenBLAS of unknown names: no notice"; }
  LD_PRELOAD="$lib" python3 -c "import ctypes; ctypes.CDLL('$work/libopenblas_renamed.so')" 2>"$work/renamed0.err"
  [[ ! -s $work/renamed0.err ]] && pass "  and nothing without CUDROP_VERBOSE" || fail "an OpenBLAS of unknown names: output at verbose 0"
fi

# numpy 1.26's wheel: OpenBLAS's own 64_ suffix, cudrop's ILP64 entries (dgemm_64_). Only where
# PyPI has that wheel for this python.
if (venv numpy1 numpy==1.26.4); then
  expected1="cblas_sgemm cblas_dgemm cblas_cgemm cblas_zgemm cblas_dsyrk"
  for p in d z; do for r in gesv getrf potrf; do accelerated "${p}${r}_64_" && expected1+=" ${p}${r}_"; done; done
  check_env numpy1 "$cache/numpy1/bin/python" "$expected1"
else
  echo "note: no numpy 1.26 environment here; that convention is not checked"
fi

if [[ $failures -ne 0 ]]; then echo "wheels: $failures failure(s)"; exit 1; fi
echo "wheels: PASS"
