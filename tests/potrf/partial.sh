#!/bin/sh
# Runs potrf_test (its arguments) and also requires that the GPU-failure-after-write-back path
# was taken at least once: the library says so on stderr with CUDROP_VERBOSE=1.
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 4
[ "$rc" -eq 0 ] || exit "$rc"
if ! printf '%s\n' "$out" | grep -q "columns were written back"; then
  echo "partial.sh: no call finished on the CPU after part of the factor was written back"
  exit 1
fi
printf '%s\n' "$out" | grep "columns were written back" | head -n 3
