#!/bin/bash
# secure_exec: a setuid-root program that links the system BLAS/LAPACK, which cudrop's stand-in
# directory provides (as on a machine where the .deb made cudrop the libblas.so.3 alternative),
# run by an unprivileged user (nobody) with hostile settings: CUDROP_CPU_BLAS and
# CUDROP_CPU_LAPACK naming a library whose constructor leaves a trace, CUDROP_MODE=gpu,
# CUDROP_TEST_FAULT_INJECT=alloc, CUDROP_VERBOSE=2. In that secure-execution process cudrop must
# read none of them: the library is never loaded, the results are right, nothing is printed.
# The same program without the setuid bit, run by the same user, still honours every setting.
# Needs root (to install the setuid program) and setpriv; skipped (77) without them, or where
# the filesystem ignores the setuid bit.
# usage: secure_exec.sh LIBCUDROP_FULL C_COMPILER TESTS_SOURCE_DIR
set -u
full=$1 cc=$2 src=$3
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
skip() { echo "SKIP: $*"; exit 77; }

[[ $(id -u) == 0 ]] || skip "not root: cannot install a setuid-root program"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
nobody=$(id -u nobody 2>/dev/null) || skip "no user nobody"
nogroup=$(id -g nobody)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"  # nobody must reach the programs and libraries

# The stand-in directory: libblas.so.3 and liblapack.so.3 as links to a copy of the complete
# library (the build tree may lie where nobody cannot read).
mkdir "$work/standin" "$work/hostile" "$work/trace"
cp "$(readlink -f "$full")" "$work/standin/libcudrop_full.so.0"
ln -s libcudrop_full.so.0 "$work/standin/libblas.so.3"
ln -s libcudrop_full.so.0 "$work/standin/liblapack.so.3"
chmod 755 "$work/standin" "$work/hostile"
chmod 1777 "$work/trace"  # the hostile library, run as anyone, writes its trace here
marker=$work/trace/loaded

# The program, linked with the system's libblas.so.3 and liblapack.so.3 and run with the
# stand-in directory first in its run path.
if ! "$cc" -O1 -o "$work/victim" "$src/victim.c" -Wl,-rpath,"$work/standin" -lblas -llapack -ldl -lm 2>"$work/cc.log"; then
  cat "$work/cc.log"; skip "cannot link a program with -lblas -llapack"
fi
readelf -d "$work/victim" | grep -q 'NEEDED.*\[libblas\.so\.3\]' ||
  skip "the system BLAS is not libblas.so.3: $(readelf -d "$work/victim" | grep NEEDED)"
"$cc" -shared -fPIC -O1 -DMARKER="\"$marker\"" -o "$work/hostile/libhostile.so" "$src/hostile.c" ||
  { echo "FAIL: cannot build the hostile library"; exit 1; }
cp "$work/victim" "$work/victim-setuid"
chown root:root "$work/victim-setuid"
chmod 4755 "$work/victim-setuid"
chmod 755 "$work/victim"

hostile=(CUDROP_CPU_BLAS="$work/hostile/libhostile.so" CUDROP_CPU_LAPACK="$work/hostile/libhostile.so"
         CUDROP_MODE=gpu CUDROP_TEST_FAULT_INJECT=alloc CUDROP_VERBOSE=2)
# as_nobody NAME PROGRAM: runs it as nobody with the hostile settings; output in $work/NAME.*.
as_nobody() {
  (cd "$work/trace" && timeout 60 setpriv --reuid="$nobody" --regid="$nogroup" --clear-groups \
    env "${hostile[@]}" "$2" >"$work/$1.out" 2>"$work/$1.err")
  rc=$?
  sed "s/^/    [$1 stdout] /" "$work/$1.out"
  sed "s/^/    [$1 stderr] /" "$work/$1.err"
}

echo "== the setuid-root program, run by nobody with hostile settings"
as_nobody secure "$work/victim-setuid"
grep -qx "victim: euid=0 uid=$nobody at_secure=1" "$work/secure.out" ||
  skip "the setuid bit took no effect here (a nosuid filesystem?): $(head -n 1 "$work/secure.out")"
[[ $rc == 0 ]] && grep -q '^victim: .*: OK$' "$work/secure.out" && pass "secure: right results" ||
  fail "secure: exit status $rc or wrong results"
grep -qx "victim: dgemm_ from $work/standin/libblas.so.3" "$work/secure.out" &&
  pass "secure: dgemm_ is cudrop's (the stand-in's libblas.so.3)" || fail "secure: dgemm_ is not the stand-in's"
[[ -e $marker ]] && fail "secure: the library named by CUDROP_CPU_BLAS/LAPACK was loaded: $(cat "$marker")" ||
  pass "secure: the library named by CUDROP_CPU_BLAS/LAPACK was not loaded"
[[ -s $work/secure.err ]] && fail "secure: printed on stderr" || pass "secure: nothing on stderr"
[[ $(grep -c '' "$work/secure.out") == 4 ]] && pass "secure: nothing on stdout but the program's lines" ||
  fail "secure: other lines on stdout"
grep -qx 'victim: gpu_calls=0 cpu_calls=[1-9][0-9]* libcuda=not loaded' "$work/secure.out" &&
  pass "secure: every call on the CPU, the CUDA driver never loaded (CUDROP_MODE=gpu not read)" ||
  fail "secure: a call on the GPU, or the CUDA driver loaded"

echo "== the same program without the setuid bit: the settings are honoured"
as_nobody plain "$work/victim"
grep -qx "victim: euid=$nobody uid=$nobody at_secure=0" "$work/plain.out" && pass "plain: an ordinary process" ||
  fail "plain: not an ordinary process"
[[ $rc == 0 ]] && grep -q '^victim: .*: OK$' "$work/plain.out" && pass "plain: right results" ||
  fail "plain: exit status $rc or wrong results"
grep -qx "loaded with euid=$nobody uid=$nobody" "$marker" 2>/dev/null &&
  pass "plain: CUDROP_CPU_BLAS's library was loaded (the setting is read)" || fail "plain: CUDROP_CPU_BLAS not honoured"
grep -q '^cudrop: dgemm_(.*) on ' "$work/plain.err" && pass "plain: CUDROP_VERBOSE=2's per-call lines" ||
  fail "plain: no per-call line: CUDROP_VERBOSE not honoured"
# With a GPU, CUDROP_MODE=gpu (and the fault injected into its allocations) is honoured too.
if grep -q 'libcuda=loaded' "$work/plain.out" && ! grep -q 'no usable GPU' "$work/plain.err"; then
  grep -q 'gpu_fallbacks=[1-9]' "$work/plain.err" && pass "plain: CUDROP_MODE=gpu and CUDROP_TEST_FAULT_INJECT honoured" ||
    fail "plain: no GPU attempt (or no injected fault) with CUDROP_MODE=gpu"
fi

if [[ $failures -ne 0 ]]; then echo "secure_exec: $failures failure(s)"; exit 1; fi
echo "secure_exec: PASS"
