# Sourced by the shell tests (tests/settings/settings.sh, tests/gemm/gemm_multi_gpu.sh).
# run NAME [VAR=VALUE...] -- COMMAND...: COMMAND under those settings, at most $run_timeout
# seconds (default 60); stdout in $work/NAME.out, stderr in $work/NAME.err, status in $rc.
run() {
  local name=$1; shift
  local assignments=()
  while [[ $1 != -- ]]; do assignments+=("$1"); shift; done
  shift
  timeout "${run_timeout:-60}" env "${assignments[@]}" "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
}
