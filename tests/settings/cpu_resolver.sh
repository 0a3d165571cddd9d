#!/bin/bash
# cpu_resolver: where cudrop finds the CPU BLAS underneath, in every way a user deploys it.
#   (a) LD_PRELOAD over a program linked with -lblas: the CPU routine is the program's own
#       libblas.so.3 (next in the lookup order), never libcudrop.
#   (b) cudrop installed as the system libblas.so.3 (a libblas.so.3 -> libcudrop.so link first
#       in LD_LIBRARY_PATH): no infinite recursion, the CPU routine comes from a real BLAS file.
#   (c) a program relinked against cudrop only, CUDROP_CPU_BLAS=<reference libblas>: uses it
#       (also with a copy under another name, so the usual search cannot be what found it).
#   (d) relinked, CUDROP_CPU_BLAS=/nonexistent and CUDROP_NO_CPU_SEARCH=1: SIGABRT with a
#       message that names CUDROP_CPU_BLAS, and CUDROP_NO_CPU_SEARCH with the BLAS it kept
#       cudrop from (never a wrong answer).
#   (e) relinked, no BLAS preloaded or linked, nothing set: finds one by itself.
#   (f) another file copy of libcudrop where a CPU BLAS is expected (named by CUDROP_CPU_BLAS, or
#       installed as libblas.so.3 under a preloaded cudrop): skipped with a notice, the search
#       goes on to a real BLAS (the two copies must never call each other).
# Every run is CUDROP_MODE=cpu, CUDROP_VERBOSE=2 (a line per CPU routine found), under
# `timeout`, and checks the result; at CUDROP_VERBOSE=1 the library is named once instead.
# usage: cpu_resolver.sh BUILD_DIR TESTS_SOURCE_DIR C_COMPILER INCLUDE_DIR
set -u
build=$(cd "$1" && pwd) src=$2 cc=$3 include=$4
lib=$build/libcudrop.so
cudrop_real=$(readlink -f "$lib")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ulimit -c 0  # case (d) aborts on purpose: no core file

# The reference BLAS file: what the system's libblas.so.3 is, or the Debian path.
refblas=""
for candidate in /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 /usr/lib/x86_64-linux-gnu/libblas.so.3 \
                 /usr/lib64/libblas.so.3 /usr/lib/libblas.so.3; do
  if [ -e "$candidate" ]; then refblas=$candidate; break; fi
done
if [ -z "$refblas" ]; then echo "SKIP: no libblas.so.3 on this machine"; exit 77; fi
echo "reference BLAS: $refblas -> $(readlink -f "$refblas")"

# Build the probe twice: linked with -lblas (no cudrop), and relinked against cudrop only.
# (-lblas needs the development link libblas.so; without it, name the runtime file itself:
# the program then needs libblas.so.3 by its SONAME just the same.)
if ! "$cc" -O1 "$src/resolver_probe.c" -o "$work/probe_blas" -lblas 2>"$work/cc.log" &&
   ! "$cc" -O1 "$src/resolver_probe.c" -o "$work/probe_blas" "$refblas" 2>>"$work/cc.log"; then
  cat "$work/cc.log"; echo "SKIP: cannot link a program against the system BLAS"; exit 77
fi
readelf -d "$work/probe_blas" | grep -q 'NEEDED.*\[libblas\.so\.3\]' ||
  { echo "SKIP: the system BLAS is not libblas.so.3: $(readelf -d "$work/probe_blas" | grep NEEDED)"; exit 77; }
"$cc" -O1 "$src/resolver_probe.c" -o "$work/probe_cudrop" -L"$build" -lcudrop \
  -Wl,-rpath,"$build" || { echo "FAIL: cannot link the probe against cudrop"; exit 1; }
readelf -d "$work/probe_cudrop" | grep -q 'NEEDED.*libcudrop' || fail "probe_cudrop does not need libcudrop"
if readelf -d "$work/probe_cudrop" | grep -E 'NEEDED.*(blas|lapack)'; then
  fail "probe_cudrop needs a BLAS library itself"
fi

# run NAME COMMAND...: runs with a 30 s timeout, stdout+stderr in $work/NAME.log, status in $rc.
run() {
  local name=$1; shift
  # (In a subshell whose stderr is dropped: only the shell's own "Aborted" notice goes there.)
  (timeout 30 env CUDROP_MODE=cpu CUDROP_VERBOSE=2 "$@" >"$work/$name.log" 2>&1; exit $?) 2>/dev/null
  rc=$?
  sed "s/^/    [$name] /" "$work/$name.log"
}

# The file the verbose line names for a routine ("cudrop: CPU sgemm_ from FILE").
cpu_file() { sed -n "s/^cudrop: CPU $2 from //p" "$work/$1.log" | head -n 1; }

# check_real_blas NAME ROUTINE [EXPECTED_FILE]: the named file exists, is a BLAS, is not cudrop.
check_real_blas() {
  local name=$1 routine=$2 expected=${3:-}
  local file; file=$(cpu_file "$name" "$routine")
  if [ -z "$file" ]; then fail "$name: no 'cudrop: CPU $routine from ...' line"; return; fi
  if [ ! -e "$file" ]; then fail "$name: $routine resolved from '$file', which does not exist"; return; fi
  if [ "$(readlink -f "$file")" = "$cudrop_real" ]; then
    fail "$name: $routine resolved from libcudrop itself ($file)"; return
  fi
  if ! nm -D --defined-only "$file" 2>/dev/null | grep -qw "$routine"; then
    fail "$name: $file does not define $routine"; return
  fi
  if [ -n "$expected" ] && [ "$file" != "$expected" ]; then
    fail "$name: $routine resolved from $file, expected $expected"; return
  fi
  pass "$name: CPU $routine from $file"
}

check_result() {
  local name=$1
  if [ "$rc" -ne 0 ]; then fail "$name: exit status $rc (124 = timed out, e.g. infinite recursion)"; return; fi
  grep -q '^probe: .*: OK$' "$work/$name.log" || { fail "$name: wrong result"; return; }
  grep -Eq '^cudrop: summary: gpu_calls=0 cpu_calls=2 gpu_fallbacks=0( inner_calls=[0-9]+)?$' "$work/$name.log" ||
    { fail "$name: summary line is not 'gpu_calls=0 cpu_calls=2 gpu_fallbacks=0' (cudrop not loaded?)"; return; }
  pass "$name: correct result, both calls counted on the CPU"
}

echo "== (a) LD_PRELOAD over a program linked with -lblas"
run a env LD_PRELOAD="$lib" "$work/probe_blas"
check_result a
check_real_blas a sgemm_
check_real_blas a dgemm_
case "$(readlink -f "$(cpu_file a sgemm_)")" in
  */libblas.so*|*/libopenblas*|*/libblis*|*/libmkl*) pass "a: the program's own BLAS" ;;
  *) fail "a: sgemm_ from $(cpu_file a sgemm_), not the program's libblas" ;;
esac

echo "== (b) cudrop installed as the system libblas.so.3"
mkdir -p "$work/fake"
ln -s "$lib" "$work/fake/libblas.so.3"
LD_LIBRARY_PATH="$work/fake" ldd "$work/probe_blas" | sed 's/^/    [ldd] /'
if ! LD_LIBRARY_PATH="$work/fake" ldd "$work/probe_blas" | grep -q "libblas.so.3 => $work/fake/libblas.so.3"; then
  fail "b: the loader does not pick the libblas.so.3 -> libcudrop link (test setup)"
fi
run b env LD_LIBRARY_PATH="$work/fake" "$work/probe_blas"
check_result b
check_real_blas b sgemm_
check_real_blas b dgemm_
case "$(cpu_file b sgemm_)" in
  "$work"/*) fail "b: sgemm_ resolved inside the fake directory" ;;
esac

echo "== (c) relinked program, CUDROP_CPU_BLAS=$refblas"
run c1 env CUDROP_CPU_BLAS="$refblas" "$work/probe_cudrop"
check_result c1
check_real_blas c1 sgemm_ "$refblas"
check_real_blas c1 dgemm_ "$refblas"
# The same library under a name the usual search never tries: only the variable can find it.
cp "$(readlink -f "$refblas")" "$work/libmyblas-copy.so"
run c2 env CUDROP_CPU_BLAS="$work/libmyblas-copy.so" "$work/probe_cudrop"
check_result c2
check_real_blas c2 sgemm_ "$work/libmyblas-copy.so"
check_real_blas c2 dgemm_ "$work/libmyblas-copy.so"
# CUDROP_VERBOSE=1: the library once, with the rule that found it; no line per routine.
run c3 env CUDROP_VERBOSE=1 CUDROP_CPU_BLAS="$refblas" "$work/probe_cudrop"
check_result c3
[ "$(grep -c '^cudrop: CPU ' "$work/c3.log")" -eq 1 ] && grep -qx "cudrop: CPU BLAS: $refblas (CUDROP_CPU_BLAS)" "$work/c3.log" &&
  pass "c3: verbose 1 names the CPU BLAS once: $refblas (CUDROP_CPU_BLAS)" ||
  fail "c3: want exactly one line 'cudrop: CPU BLAS: $refblas (CUDROP_CPU_BLAS)' and no other 'cudrop: CPU' line"

echo "== (d) relinked program, CUDROP_CPU_BLAS=/nonexistent, CUDROP_NO_CPU_SEARCH=1: must abort"
# CUDROP_VERBOSE=0: the message must come from the fatal path, not from a verbose notice.
run d env CUDROP_VERBOSE=0 CUDROP_CPU_BLAS=/nonexistent CUDROP_NO_CPU_SEARCH=1 "$work/probe_cudrop"
if [ "$rc" -eq 134 ]; then pass "d: killed by SIGABRT (status 134)"
else fail "d: exit status $rc, want 134 (SIGABRT)"; fi
grep -q 'CUDROP_CPU_BLAS' "$work/d.log" && pass "d: the message names CUDROP_CPU_BLAS" ||
  fail "d: no message naming CUDROP_CPU_BLAS"
# This machine has a BLAS ($refblas): the setting that hid it is named, with the file it hid.
grep -q "^cudrop: /.* provides it, but CUDROP_NO_CPU_SEARCH=1 keeps cudrop from searching" "$work/d.log" &&
  pass "d: the message names CUDROP_NO_CPU_SEARCH and the library it hid" ||
  fail "d: no line 'cudrop: FILE provides it, but CUDROP_NO_CPU_SEARCH=1 keeps cudrop from searching ...'"
grep -q '^probe:' "$work/d.log" && fail "d: the program went on and printed a result"

echo "== (e) relinked program, nothing preloaded, linked or named: finds a CPU BLAS itself"
run e env -u CUDROP_CPU_BLAS -u CUDROP_NO_CPU_SEARCH -u LD_PRELOAD "$work/probe_cudrop"
check_result e
check_real_blas e sgemm_
check_real_blas e dgemm_

echo "== (f) another copy of cudrop offered as the CPU BLAS"
mkdir -p "$work/copy"
cp "$cudrop_real" "$work/copy/libcudrop-copy.so"
cp "$cudrop_real" "$work/copy/libblas.so.3"
run f1 env CUDROP_CPU_BLAS="$work/copy/libcudrop-copy.so" "$work/probe_cudrop"
run f2 env LD_LIBRARY_PATH="$work/copy" LD_PRELOAD="$lib" "$work/probe_blas"
for name in f1 f2; do
  check_result $name
  check_real_blas $name sgemm_
  case "$(cpu_file $name sgemm_)" in
    "$work"/copy/*) fail "$name: sgemm_ resolved from the copy of cudrop" ;;
  esac
  grep -q "^cudrop: $work/copy/.* is another copy of cudrop, not a CPU BLAS/LAPACK: skipped$" "$work/$name.log" &&
    pass "$name: the copy is named in a notice" || fail "$name: no notice naming the copy"
done
# The notice is not a verbose one: the user set something that cannot work.
run f3 env CUDROP_VERBOSE=0 CUDROP_CPU_BLAS="$work/copy/libcudrop-copy.so" "$work/probe_cudrop"
[ "$rc" -eq 0 ] && grep -q '^probe: .*: OK$' "$work/f3.log" && pass "f3: correct result without verbose" ||
  fail "f3: exit status $rc or wrong result"
[ "$(grep -c 'is another copy of cudrop' "$work/f3.log")" -eq 1 ] && pass "f3: one notice at verbose 0" ||
  fail "f3: want exactly one notice at CUDROP_VERBOSE=0"
# Met by the search (cudrop's complete library installed as the system libblas.so.3, the
# preload library loaded too): legitimate, so silent unless verbose.
run f4 env CUDROP_VERBOSE=0 LD_LIBRARY_PATH="$work/copy" LD_PRELOAD="$lib" "$work/probe_blas"
[ "$rc" -eq 0 ] && grep -q '^probe: .*: OK$' "$work/f4.log" && pass "f4: correct result" || fail "f4: exit status $rc or wrong result"
grep -q 'is another copy of cudrop' "$work/f4.log" && fail "f4: a notice at CUDROP_VERBOSE=0" ||
  pass "f4: no notice at verbose 0 for a copy the search met"

if [ "$failures" -ne 0 ]; then echo "cpu_resolver: $failures failure(s)"; exit 1; fi
echo "cpu_resolver: PASS"
