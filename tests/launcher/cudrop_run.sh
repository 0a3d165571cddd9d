#!/usr/bin/env bash
# cudrop_run: the launcher (tools/cudrop-run.in) without a GPU, running run_probe.c linked with
# the system BLAS:
#  - preload and settings: --verbose=1 --mode cpu shows cudrop's exit summary beside the right
#    product; every option reaches the program as its variable, both --opt v and --opt=v, --;
#  - silence: without --verbose, stdout, stderr and status equal the program's without cudrop;
#  - pass-through: exit status, death by a signal, stdin, and the program in the launcher's
#    process (exec);
#  - failures as a shell's: a program missing (127), not executable or a directory (126), the
#    library missing (127, a copy of the script where nothing is installed), a usage error (2),
#    each one line on stderr;
#  - the library found in an install prefix's layout and through a link to the script;
#  - the user's LD_PRELOAD kept after cudrop, cudrop not twice;
#  - interpreters (python3) and, where mpirun works, two MPI ranks each with its summary.
# usage: cudrop_run.sh LAUNCHER LIBRARY C_COMPILER
# Exit 0 pass, 1 fail, 77 skipped (no program links with -lblas; or, nothing else failing, the
# python3 or MPI part could not run: no python3, no mpirun (openmpi-bin), or mpirun fails here).
# shellcheck disable=SC2015,SC2016  # `A && B || fail`: A and B are tests; $$ and $PPID are the child's
set -u
run=$1 cc=$3
lib=$(cd -P "$(dirname "$2")" && pwd -P)/$(basename "$2")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
not_run=()  # the parts that could not run here, each with why
skip_part() { echo "cudrop_run: $1 part skipped: $2"; not_run+=("$1 ($2)"); }
# The caller's own settings and preloads would change what the programs print.
for v in $(env | sed -n 's/^\(CUDROP_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset LD_PRELOAD

prog=$work/run_probe
"$cc" -Wall -Wextra "$here/run_probe.c" -o "$prog" -lblas -ldl >"$work/cc.log" 2>&1 ||
  { cat "$work/cc.log"; echo "cudrop_run: skipped: no C program links with -lblas (install libblas-dev)"; exit 77; }

# capture CMD...: its stdout in $out, stderr in $err, exit status in $rc.
capture() {
  "$@" >"$work/out" 2>"$work/err"
  rc=$?
  out=$(cat "$work/out") err=$(cat "$work/err")
}
# expect_failure LABEL STATUS TEXT: the last capture exited STATUS with one line on stderr that
# contains TEXT, and nothing on stdout.
expect_failure() {
  [ "$rc" -eq "$2" ] || fail "$1: exit status $rc, not $2"
  [ -z "$out" ] || fail "$1: printed on stdout: $out"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ -n "$err" ] || fail "$1: not one line on stderr: $err"
  [[ $err == "cudrop-run: "*"$3"* ]] || fail "$1: stderr '$err' does not say '$3'"
}
# has LABEL TEXT: the last capture's stdout has the line TEXT.
has() { grep -qxF -- "$2" <<<"$out" || fail "$1: no line '$2' in: $out"; }

# --- Options of the launcher itself ---------------------------------------------------------------
capture "$run" --print-library
[ "$rc" -eq 0 ] && [ "$out" = "$lib" ] || fail "--print-library: '$out' (status $rc), not $lib"
capture "$run" --version
[ "$rc" -eq 0 ] && [[ $out =~ ^cudrop-run\ \(cudrop\)\ [0-9]+\.[0-9]+ ]] || fail "--version: '$out' (status $rc)"
capture "$run" --help
[ "$rc" -eq 0 ] && [[ $out == "usage: cudrop-run "* ]] && [ -z "$err" ] || fail "--help: status $rc, '$out'"
capture "$run" --frobnicate "$prog" env
expect_failure "an unknown option" 2 "unknown option '--frobnicate'"
capture "$run" --mode
expect_failure "--mode without a value" 2 "needs a value"
capture "$run"
expect_failure "no program" 2 "no PROGRAM"
capture "$run" --mode cpu --
expect_failure "no program after --" 2 "no PROGRAM"

# --- Preload and settings -------------------------------------------------------------------------
capture "$run" --verbose=1 --mode cpu "$prog" gemm
[ "$rc" -eq 0 ] || fail "--verbose=1 --mode cpu: exit status $rc: $err"
has "--verbose=1 --mode cpu" "C = 19 22 43 50"
grep -q "^cudrop: summary: gpu_calls=0 cpu_calls=1 " <<<"$err" ||
  fail "--verbose=1 --mode cpu: no 'cudrop: summary: gpu_calls=0 cpu_calls=1' on stderr: $err"

# A setting that cannot work warns under the launcher too, though the program's own BLAS (loaded
# after cudrop) is taken first and the named library is never needed.
capture "$run" --mode cpu --cpu-blas /nonexistent/libblas.so.3 "$prog" gemm
[ "$rc" -eq 0 ] || fail "--cpu-blas /nonexistent: exit status $rc: $err"
has "--cpu-blas /nonexistent" "C = 19 22 43 50"
[ "$(grep -c '^cudrop: ' <<<"$err")" -eq 1 ] &&
  grep -qxF "cudrop: CUDROP_CPU_BLAS=/nonexistent/libblas.so.3 is not a library that can be loaded (no such file); using the library loaded in the process, else the search list" <<<"$err" ||
  fail "--cpu-blas /nonexistent: not the one warning on stderr: $err"

capture "$run" --mode gpu --verbose --devices 0,1 --device 1 --cpu-blas /opt/blas/libblas.so.3 \
  --cpu-lapack liblapack.so.3 "$prog" env
[ "$rc" -eq 0 ] || fail "options with separate values: exit status $rc: $err"
for line in CUDROP_MODE=gpu CUDROP_VERBOSE=1 CUDROP_DEVICES=0,1 CUDROP_DEVICE=1 \
            CUDROP_CPU_BLAS=/opt/blas/libblas.so.3 CUDROP_CPU_LAPACK=liblapack.so.3 \
            "LD_PRELOAD=$lib" "cudrop loaded: yes"; do
  has "options with separate values" "$line"
done
capture "$run" --mode=cpu --verbose=2 --devices=all --device=0 --cpu-blas=libopenblas.so.0 \
  --cpu-lapack=/l.so -- "$prog" env
for line in CUDROP_MODE=cpu CUDROP_VERBOSE=2 CUDROP_DEVICES=all CUDROP_DEVICE=0 \
            CUDROP_CPU_BLAS=libopenblas.so.0 CUDROP_CPU_LAPACK=/l.so; do
  has "--option=value and --" "$line"
done
capture "$run" -v "$prog" env
has "-v" CUDROP_VERBOSE=1
# An option wins over the environment; what no option sets passes through.
CUDROP_MODE=gpu CUDROP_DEVICE=3 capture "$run" --mode cpu "$prog" env
has "an option over the environment" CUDROP_MODE=cpu
has "the environment passed through" CUDROP_DEVICE=3
# After PROGRAM, every argument is the program's.
capture "$run" echo --mode gpu -v
[ "$rc" -eq 0 ] && [ "$out" = "--mode gpu -v" ] || fail "arguments after PROGRAM: '$out' (status $rc)"
capture "$run" -- -v
expect_failure "-- then a program named -v" 127 "-v: command not found"

# --- Nothing of its own: the same output as the program without cudrop ---------------------------
capture "$prog" gemm
plain_out=$out plain_err=$err plain_rc=$rc
for options in "" "--mode cpu" "--mode auto --devices all --device 0"; do
  # shellcheck disable=SC2086  # the options are meant to split
  capture "$run" $options "$prog" gemm
  [ "$rc" = "$plain_rc" ] && [ "$out" = "$plain_out" ] && [ "$err" = "$plain_err" ] ||
    fail "cudrop-run $options: status $rc, stdout '$out', stderr '$err'; without cudrop: $plain_rc, '$plain_out', '$plain_err'"
done

# --- Status, signals, stdin, one process ----------------------------------------------------------
capture "$run" sh -c 'exit 3'
[ "$rc" -eq 3 ] || fail "a program exiting 3: status $rc"
{ capture "$run" sh -c 'kill -TERM $$'; } 2>/dev/null  # without this shell's "Terminated"
[ "$rc" -eq 143 ] || fail "a program killed by SIGTERM: status $rc, not 143"
# The wait status itself: death by the signal, not an exit with 143 from a shell in between.
if command -v python3 >/dev/null; then
  status=$(python3 -c 'import subprocess, sys; print(subprocess.run(sys.argv[1:]).returncode)' \
           "$run" sh -c 'kill -TERM $$')
  [ "$status" = -15 ] || fail "a program killed by SIGTERM: the launcher's wait status is $status, not signal 15"
fi
out=$(printf 'line one\nline two\n' | "$run" cat)
[ "$out" = $'line one\nline two' ] || fail "stdin: cat printed '$out'"
capture "$run" sh -c 'echo $PPID'
[ "$out" = "$BASHPID" ] || fail "the program's parent is $out, not this shell ($BASHPID): the launcher did not exec it"

# --- Failures, as a shell's -----------------------------------------------------------------------
capture "$run" "$work/no-such-program" a b
expect_failure "a missing path" 127 "$work/no-such-program: No such file or directory"
capture "$run" "no-such-command-$$"
expect_failure "a missing command" 127 "no-such-command-$$: command not found"
printf '#!/bin/sh\necho ran\n' >"$work/not-executable" && chmod 644 "$work/not-executable"
capture "$run" "$work/not-executable"
expect_failure "a file without execute permission" 126 "$work/not-executable: Permission denied"
capture "$run" "$work"
expect_failure "a directory" 126 "$work: Is a directory"
mkdir "$work/path" && cp "$work/not-executable" "$work/path/cmd-not-executable" && cp "$prog" "$work/path/probe-in-path"
PATH=$work/path:$PATH capture "$run" cmd-not-executable
expect_failure "a command in PATH without execute permission" 126 "cmd-not-executable: Permission denied"
PATH=$work/path:$PATH capture "$run" --mode cpu probe-in-path env
[ "$rc" -eq 0 ] && grep -qx "cudrop loaded: yes" <<<"$out" || fail "a program found in PATH: status $rc, $out $err"

# A copy of the script with no library beside it, none in its prefix's layout, and the
# configured prefix's replaced by a path that does not exist where cudrop is installed there.
mkdir "$work/elsewhere" && cp "$run" "$work/elsewhere/cudrop-run"
installed=$(sed -n "s/^installed_lib='\(.*\)'\$/\1/p" "$run")
[ -n "$installed" ] || fail "no installed_lib line in $run"
if [ -e "$installed" ]; then
  echo "cudrop_run: $installed exists here; the copy looks for $work/none/libcudrop.so.0 instead"
  sed -i "s|^installed_lib=.*|installed_lib='$work/none/libcudrop.so.0'|" "$work/elsewhere/cudrop-run"
fi
capture "$work/elsewhere/cudrop-run" "$prog" gemm
expect_failure "no library" 127 "cannot find libcudrop.so (looked in $(cd -P "$work" && pwd -P)/elsewhere/libcudrop.so"
capture "$work/elsewhere/cudrop-run" --print-library
expect_failure "--print-library without a library" 127 "cannot find libcudrop.so"

# An install prefix's layout (bin/ and the configured path from it to the library), and a link
# to its script elsewhere: the library of the prefix, by an absolute path.
bin_to_lib=$(sed -n "s/^bin_to_lib='\(.*\)'\$/\1/p" "$run")
mkdir -p "$work/prefix/bin" "$work/links" && cp "$work/elsewhere/cudrop-run" "$work/prefix/bin/"
mkdir -p "$work/prefix/bin/$bin_to_lib" && ln -s "$lib" "$work/prefix/bin/$bin_to_lib/libcudrop.so.0"
prefix_lib=$(cd -P "$work/prefix/bin/$bin_to_lib" && pwd -P)/libcudrop.so.0
ln -s "$work/prefix/bin/cudrop-run" "$work/links/cudrop-run"
for launcher in "$work/prefix/bin/cudrop-run" "$work/links/cudrop-run"; do
  capture "$launcher" --print-library
  [ "$rc" -eq 0 ] && [ "$out" = "$prefix_lib" ] || fail "$launcher --print-library: '$out' (status $rc), not $prefix_lib"
done
# Run by a relative name, the launcher still preloads an absolute path: the program may change
# directory.
cd "$work/links" || exit 1
capture ./cudrop-run --mode cpu "$prog" env
has "./cudrop-run, a link" "LD_PRELOAD=$prefix_lib"
has "./cudrop-run, a link" "cudrop loaded: yes"
cd "$(dirname "$run")" || exit 1
capture ./"$(basename "$run")" "$prog" env
has "./cudrop-run in the build tree" "LD_PRELOAD=$lib"
cd "$work" || exit 1

# --- The user's LD_PRELOAD ------------------------------------------------------------------------
printf 'void cudrop_run_other(void) {}\n' >"$work/other.c"
"$cc" -shared -fPIC "$work/other.c" -o "$work/libother.so" || fail "cannot build libother.so"
LD_PRELOAD=$work/libother.so capture "$run" "$prog" env
has "another preload" "LD_PRELOAD=$lib:$work/libother.so"
LD_PRELOAD="$lib $work/libother.so" capture "$run" "$prog" env
has "cudrop already preloaded" "LD_PRELOAD=$lib:$work/libother.so"
LD_PRELOAD="$work/libother.so:$(dirname "$lib")/libcudrop.so.0" capture "$run" "$prog" env
has "cudrop preloaded under its soname" "LD_PRELOAD=$lib:$work/libother.so"

# --- Interpreters ---------------------------------------------------------------------------------
if command -v python3 >/dev/null; then
  capture "$run" python3 -c 'import sys'
  [ "$rc" -eq 0 ] && [ -z "$out$err" ] || fail "python3 -c 'import sys': status $rc, '$out' '$err'"
  capture "$run" --mode cpu python3 -c 'import ctypes, os; print(os.environ["LD_PRELOAD"].split(":")[0])'
  [ "$rc" -eq 0 ] && [ "$out" = "$lib" ] || fail "python3 under cudrop-run: status $rc, '$out' '$err'"
else
  skip_part python3 "no python3"
fi

# --- Two MPI ranks --------------------------------------------------------------------------------
mpi=(timeout 60 mpirun --allow-run-as-root --oversubscribe -np 2)
if ! command -v mpirun >/dev/null; then
  skip_part MPI "no mpirun (openmpi-bin)"
elif ! "${mpi[@]}" true >"$work/mpi.log" 2>&1; then
  skip_part MPI "'mpirun -np 2 true' fails here: $(head -3 "$work/mpi.log")"
else
  capture "${mpi[@]}" "$run" --verbose=1 --mode cpu "$prog" gemm
  [ "$rc" -eq 0 ] || fail "mpirun -np 2 cudrop-run: status $rc: $err"
  [ "$(grep -cx 'C = 19 22 43 50' <<<"$out")" -eq 2 ] || fail "mpirun -np 2 cudrop-run: not two products: $out"
  [ "$(grep -c '^cudrop: summary: gpu_calls=0 cpu_calls=1 ' <<<"$err")" -eq 2 ] ||
    fail "mpirun -np 2 cudrop-run: not two summaries: $err"
  echo "cudrop_run: MPI: two ranks, two summaries"
fi

if [ "$failures" -ne 0 ]; then echo "cudrop_run: $failures failure(s)"; exit 1; fi
if [ "${#not_run[@]}" -ne 0 ]; then
  echo "cudrop_run: SKIP: the rest passed, but not run here: ${not_run[*]}"
  exit 77
fi
echo "cudrop_run: PASS"
