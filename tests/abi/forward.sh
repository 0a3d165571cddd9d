#!/bin/bash
# forward: the complete library's forwarders (libcudrop_full), CPU only.
#   (a) tests/abi/forward_probe.c relinked against libcudrop_full alone, CUDROP_CPU_BLAS/LAPACK naming
#       Debian's reference libraries, gives the same bits as the probe linked against those
#       libraries directly (forwarded ddot_ dnrm2_ drotg_ idamax_ cblas_ddot dgeqrf_ dgesv_,
#       accelerated dgemm_); the variadic cblas_xerbla (int, double, string) and an illegal
#       dtrsv_ (UPLO = 'X') print the same text and exit the same way.
#   (b) cudrop standing in as the system's libraries: a directory of its own holding
#       libblas.so.3 and liblapack.so.3 -> libcudrop_full.so.0 first in LD_LIBRARY_PATH, a
#       program linked with -llapack -lblas (and one with -lblas -llapack), nothing set: the
#       loader takes cudrop, the forwarders find the real CPU libraries (each CUDROP_VERBOSE=2
#       line names a file that defines the routine and is neither cudrop nor in the directory;
#       CUDROP_VERBOSE=1 names each library once), the results check, cudrop counted the
#       accelerated calls, and the illegal call is reported as without cudrop.
#   (c) no CPU library at all (CUDROP_CPU_BLAS=/nonexistent, CUDROP_NO_CPU_SEARCH=1): a forwarded
#       call aborts with a message naming the routine, CUDROP_CPU_BLAS, and CUDROP_NO_CPU_SEARCH
#       with the installed library it kept cudrop from.
# usage: forward.sh BUILD_DIR TESTS_SOURCE_DIR C_COMPILER
set -u
build=$(cd "$1" && pwd) src=$2 cc=$3
full=$build/libcudrop_full.so.0
full_real=$(readlink -f "$full")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
[ -e "$full" ] || { echo "FAIL: no $full"; exit 1; }
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: no forwarders on $(uname -m)"; exit 77; }
refdir_blas=/usr/lib/x86_64-linux-gnu/blas refdir_lapack=/usr/lib/x86_64-linux-gnu/lapack
refblas=$refdir_blas/libblas.so.3 reflapack=$refdir_lapack/liblapack.so.3
if [ ! -e "$refblas" ] || [ ! -e "$reflapack" ]; then
  echo "SKIP: Debian's reference $refblas / $reflapack not installed (libblas3, liblapack3)"; exit 77
fi
for v in $(env | sed -n 's/^\(CUDROP_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset LD_PRELOAD

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ulimit -c 0  # (c) aborts on purpose

probe=$src/forward_probe.c
"$cc" -O1 "$probe" -o "$work/ref" "$reflapack" "$refblas" -lm || { echo "FAIL: cannot build the reference probe"; exit 1; }
"$cc" -O1 "$probe" -o "$work/full" -L"$build" -lcudrop_full -Wl,-rpath,"$build" -lm ||
  { echo "FAIL: cannot link the probe against libcudrop_full alone"; exit 1; }
if readelf -d "$work/full" | grep -E 'NEEDED.*lib(blas|lapack|openblas)'; then fail "the relinked probe needs a BLAS itself"; fi

# run NAME MODE PROGRAM [VAR=value...]: stdout, stderr, status in $work/NAME.{out,err,status}.
run() {
  local name=$1 mode=$2 program=$3
  shift 3
  (env "$@" timeout 60 "$program" "$mode" >"$work/$name.out" 2>"$work/$name.err"; echo "exit status $?" >"$work/$name.status") 2>/dev/null
}
same() {  # same LABEL A B [streams]: the runs A and B agree on each stream
  local label=$1 a=$2 b=$3 streams=${4:-out err status} what differs=""
  for what in $streams; do cmp -s "$work/$a.$what" "$work/$b.$what" || differs="$differs $what"; done
  if [ -z "$differs" ]; then pass "$label: $(cat "$work/$a.out" "$work/$a.err" "$work/$a.status" | tr '\n' ' ' | cut -c1-110)"; return; fi
  fail "$label: differs in$differs"
  for what in $streams; do
    echo "  $a.$what:"; sed 's/^/    | /' "$work/$a.$what"; echo "  $b.$what:"; sed 's/^/    | /' "$work/$b.$what"
  done
}
reference_env=(LD_LIBRARY_PATH="$refdir_lapack:$refdir_blas")

echo "== (a) relinked against libcudrop_full, against the reference libraries"
for mode in values xerbla illegal; do
  run ref-$mode $mode "$work/ref" "${reference_env[@]}"
  run full-$mode $mode "$work/full" "${reference_env[@]}" CUDROP_MODE=cpu CUDROP_CPU_BLAS="$refblas" CUDROP_CPU_LAPACK="$reflapack"
done
grep -qx 'forward_probe: OK' "$work/ref-values.out" || fail "the reference run does not check: $(cat "$work/ref-values.out")"
same "values, bit for bit" ref-values full-values "out status"
same "cblas_xerbla (variadic)" ref-xerbla full-xerbla
grep -q '^value 42 2.50 end$' "$work/full-xerbla.err" || fail "cblas_xerbla's variadic arguments lost"
same "dtrsv_ UPLO='X'" ref-illegal full-illegal
run full-verbose values "$work/full" "${reference_env[@]}" CUDROP_MODE=cpu CUDROP_VERBOSE=2 CUDROP_CPU_BLAS="$refblas" CUDROP_CPU_LAPACK="$reflapack"
for pair in "ddot_ $refblas" "cblas_ddot $refblas" "dgeqrf_ $reflapack" "dgesv_ $reflapack"; do
  set -- $pair
  grep -qx "cudrop: CPU $1 from $2" "$work/full-verbose.err" && pass "$1 forwarded to $2" ||
    fail "no 'cudrop: CPU $1 from $2' line: $(grep "CPU $1 " "$work/full-verbose.err")"
done

# A directory of its own: the build tree's standin/ is the standin tests', which run meanwhile.
standin=$work/standin
echo "== (b) standing in as libblas.so.3 and liblapack.so.3 ($standin)"
mkdir -p "$standin"
ln -s "$build/libcudrop_full.so.0" "$standin/libblas.so.3"
ln -s "$build/libcudrop_full.so.0" "$standin/liblapack.so.3"
if ! "$cc" -O1 "$probe" -o "$work/sys" -llapack -lblas -lm 2>/dev/null; then
  "$cc" -O1 "$probe" -o "$work/sys" "$reflapack" "$refblas" -lm || { echo "FAIL: cannot link the probe with -llapack -lblas"; exit 1; }
fi
"$cc" -O1 "$probe" -o "$work/sys_bl" "$refblas" "$reflapack" -lm || fail "cannot link the probe with -lblas -llapack"
# The two names are one file, which the loader maps once (under the first name it needs).
ldd_out=$(LD_LIBRARY_PATH=$standin ldd "$work/sys")
echo "$ldd_out" | grep -q "liblapack.so.3 => $standin/liblapack.so.3" ||
  fail "the loader does not take liblapack.so.3 from $standin: $(echo "$ldd_out" | grep -E 'lib(blas|lapack)')"
if echo "$ldd_out" | grep -E 'lib(blas|lapack)\.so\.3 => ' | grep -v "=> $standin/"; then
  fail "a BLAS/LAPACK loaded from outside $standin"
fi
run standin values "$work/sys" LD_LIBRARY_PATH="$standin" CUDROP_MODE=cpu CUDROP_VERBOSE=2
sed 's/^/    [standin] /' "$work/standin.err" | grep -v 'CPU [a-z0-9_]* from\|) on CPU, ' | head -20
grep -qx 'forward_probe: OK' "$work/standin.out" && grep -qx 'exit status 0' "$work/standin.status" &&
  pass "standin: results check" || fail "standin: $(cat "$work/standin.status"): $(cat "$work/standin.out")"
grep -q '^cudrop: summary: gpu_calls=0 cpu_calls=[1-9]' "$work/standin.err" && pass "standin: cudrop counted its calls" ||
  fail "standin: no summary line with cpu_calls > 0 (cudrop not loaded?)"
for routine in ddot_ dgemm_ dgesv_ dgetrf_ cblas_ddot; do
  file=$(sed -n "s/^cudrop: CPU $routine from //p" "$work/standin.err" | head -n 1)
  if [ -z "$file" ]; then fail "standin: no 'cudrop: CPU $routine from' line"; continue; fi
  case "$file" in "$standin"/*) fail "standin: $routine from the stand-in directory ($file)"; continue ;; esac
  if [ "$(readlink -f "$file")" = "$full_real" ]; then fail "standin: $routine from cudrop itself ($file)"; continue; fi
  nm -D --defined-only "$file" 2>/dev/null | grep -qw "$routine" || { fail "standin: $file does not define $routine"; continue; }
  pass "standin: CPU $routine from $file"
done
# CUDROP_VERBOSE=1: each CPU library once, with the rule that found it; no line per routine.
run standin-v1 values "$work/sys" LD_LIBRARY_PATH="$standin" CUDROP_MODE=cpu CUDROP_VERBOSE=1
sed 's/^/    [standin-v1] /' "$work/standin-v1.err"
if grep -q '^cudrop: CPU [a-z0-9_]* from ' "$work/standin-v1.err"; then fail "standin-v1: a line per CPU routine at verbose 1"
elif [ "$(grep -c '^cudrop: CPU BLAS: /.* (the search list)$' "$work/standin-v1.err")" -ge 1 ] &&
     [ "$(grep -c '^cudrop: CPU LAPACK: /.* (the search list)$' "$work/standin-v1.err")" -ge 1 ] &&
     [ "$(grep -c '^cudrop: CPU ' "$work/standin-v1.err")" -le 4 ]; then
  pass "standin-v1: the CPU BLAS and LAPACK named once each (per file)"
else
  fail "standin-v1: want 'cudrop: CPU BLAS: FILE (the search list)' and 'cudrop: CPU LAPACK: ...', a few lines in all"
fi
for pair in "sys illegal" "sys_bl illegal" "sys xerbla"; do
  set -- $pair
  run base-$1-$2 $2 "$work/$1"
  run standin-$1-$2 $2 "$work/$1" LD_LIBRARY_PATH="$standin" CUDROP_MODE=cpu
  same "standin: $1 $2 as without cudrop" base-$1-$2 standin-$1-$2
done

echo "== (c) no CPU library: a forwarded call aborts with a message"
run none values "$work/full" CUDROP_CPU_BLAS=/nonexistent CUDROP_NO_CPU_SEARCH=1
grep -qx 'exit status 134' "$work/none.status" && pass "none: SIGABRT" || fail "none: $(cat "$work/none.status"), want 134"
grep -q 'ddot_' "$work/none.err" && grep -q 'CUDROP_CPU_BLAS' "$work/none.err" && pass "none: the message names ddot_ and CUDROP_CPU_BLAS" ||
  fail "none: message: $(cat "$work/none.err")"
# The reference BLAS is installed: the message says the setting kept cudrop from it.
grep -q '^cudrop: /.* provides it, but CUDROP_NO_CPU_SEARCH=1 keeps cudrop from searching' "$work/none.err" &&
  pass "none: the message names CUDROP_NO_CPU_SEARCH and the library it hid" || fail "none: CUDROP_NO_CPU_SEARCH not named: $(cat "$work/none.err")"
[ -s "$work/none.out" ] && fail "none: the program went on: $(cat "$work/none.out")"

if [ "$failures" -ne 0 ]; then echo "forward: $failures failure(s)"; exit 1; fi
echo "forward: PASS"
