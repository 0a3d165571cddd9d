#!/usr/bin/env bash
# R and Octave (Debian's, which load the system libblas.so.3/liblapack.so.3) with cudrop, both
# ways a user of each switches:
#   r_octave.sh r|octave CUDROP_RUN STANDIN_DIR
#   - under cudrop-run (cudrop preloaded);
#   - with the stand-in (STANDIN_DIR's libblas.so.3/liblapack.so.3, which are cudrop) found first:
#     for R through R_LD_LIBRARY_PATH (R's launcher puts the system's library directories ahead of
#     a plain LD_LIBRARY_PATH, so that way never reaches R: checked too, so that the README never
#     names a way that fails silently), for Octave through LD_LIBRARY_PATH.
# The same seeded products, solves, Cholesky, symmetric eigenproblems and SVDs each time: every
# number, printed to 17 digits, must equal the run without cudrop (bit for bit on the CPU path:
# run with CUDROP_MODE=cpu), and cudrop's exit summary (CUDROP_VERBOSE=1) must show the calls
# reached it.
# Exit 0 pass, 1 fail, 77 skipped (no Rscript / octave-cli).
set -uo pipefail
which=$1 run=$2 standin=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
say() { echo "r_octave($which): $*"; }

case $which in
  r)
    command -v Rscript >/dev/null || { say "skipped: no Rscript (r-base-core)"; exit 77; }
    cat >"$work/job.R" <<'EOF'
set.seed(20261202)
n <- 300
a <- matrix(rnorm(n * n), n)
s <- crossprod(a) + diag(n)
b <- matrix(rnorm(n * 4), n)
e <- eigen(s, symmetric = TRUE)
out <- c(crossprod(a), a %*% b, solve(s, b), chol(s), e$values, abs(e$vectors), svd(a)$d, det(s))
writeLines(sprintf("%.17g", out), commandArgs(TRUE)[1])
EOF
    job=(Rscript --vanilla "$work/job.R")
    ;;
  octave)
    command -v octave-cli >/dev/null || { say "skipped: no octave-cli (octave)"; exit 77; }
    cat >"$work/job.m" <<'EOF'
rand("seed", 20261202); randn("seed", 20261202);
n = 300;
a = randn(n);
s = a' * a + eye(n);
b = randn(n, 4);
[v, d] = eig(s);
out = [reshape(a' * a, [], 1); reshape(a * b, [], 1); reshape(s \ b, [], 1); reshape(chol(s), [], 1);
       diag(d); abs(v(:)); svd(a); reshape(inv(s), [], 1)];
args = argv();
f = fopen(args{1}, "w"); fprintf(f, "%.17g\n", out); fclose(f);
EOF
    job=(octave-cli --norc --no-history --quiet "$work/job.m")
    ;;
  *) echo "usage: r_octave.sh r|octave CUDROP_RUN STANDIN_DIR"; exit 2 ;;
esac

# run_job NAME [ENV=VALUE...] [LAUNCHER]: the job with cudrop's exit summary on (printed by a
# process that made calls through cudrop), its numbers into $work/NAME.txt, its stderr into
# $work/NAME.err.
run_job() {
  local name=$1
  shift
  env CUDROP_VERBOSE=1 "$@" "${job[@]}" "$work/$name.txt" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  [ $rc = 0 ] || { say "FAIL: the $name run exited $rc"; sed 's/^/    /' "$work/$name.err" | tail -5; fail=1; }
}
# reached NAME: a process of that run made calls through cudrop (its exit summary).
reached() { grep -aq 'cudrop: summary:' "$work/$1.err"; }

run_job plain
reached plain && { say "FAIL: calls went through cudrop in the run without it"; fail=1; }
run_job preload "$run"
if [ "$which" = r ]; then
  run_job standin R_LD_LIBRARY_PATH="$standin"
  # The way that does not reach R: it must stay the plain run (the README says so).
  run_job plain_ld_path LD_LIBRARY_PATH="$standin"
  if reached plain_ld_path; then say "note: LD_LIBRARY_PATH reached R here (its launcher changed?)"; fi
else
  run_job standin LD_LIBRARY_PATH="$standin"
fi
for name in preload standin; do
  [ -s "$work/$name.txt" ] || continue
  if ! reached "$name"; then
    say "FAIL: the $name run made no call through cudrop ($(grep -a 'cudrop: summary:' "$work/$name.err" || echo 'no summary line'))"
    fail=1
  fi
  if ! cmp -s "$work/plain.txt" "$work/$name.txt"; then
    say "FAIL: the $name run's numbers differ from the run without cudrop ($(diff "$work/plain.txt" "$work/$name.txt" | grep -c '^<') of $(wc -l <"$work/plain.txt"))"
    fail=1
  else
    say "$name: $(wc -l <"$work/plain.txt") numbers as without cudrop; $(grep -a 'cudrop: summary:' "$work/$name.err" | tail -1)"
  fi
done
[ $fail = 0 ] && say PASS
exit $fail
