#!/bin/bash
# bench_compare: scripts/bench-compare.py matches records of two gpu-check bench files by shape,
# flags cudrop's times that moved beyond the tolerance (both ways), leaves alone those within it
# and the reference's own times, and shows the reference's move beside each.
# usage: bench_compare_test.sh SCRIPTS_DIR
set -u
compare=$1/bench-compare.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/before.txt" <<'B'
device: NVIDIA H100 80GB HBM3, 132 SMs
device_gemm s NN m=4096 n=4096 k=4096 beta=0 cudrop_ms=3.000 cudrop_tflops=45.8 cublas_ms=2.800 ratio=0.93
device_gemm d NN m=4096 n=4096 k=4096 beta=0 cudrop_ms=2.400 cudrop_tflops=57.3 cublas_ms=2.200 ratio=0.92
potrf d n=16384 cudrop_e2e_ms=62.0 cusolver_ms=37.0 cudrop_dev_ms=45.0
cudrop_gpu s n=512 seconds=0.000400 gflops=671 checksum=1.0
cpu_blas s n=512 seconds=0.001200 gflops=223 checksum=1.0
B
cat >"$work/after.txt" <<'A'
device: NVIDIA H100 80GB HBM3, 132 SMs
device_gemm s NN m=4096 n=4096 k=4096 beta=0 cudrop_ms=3.060 cudrop_tflops=44.9 cublas_ms=2.800 ratio=0.91
device_gemm d NN m=4096 n=4096 k=4096 beta=0 cudrop_ms=2.200 cudrop_tflops=62.5 cublas_ms=2.200 ratio=1.00
potrf d n=16384 cudrop_e2e_ms=70.0 cusolver_ms=40.0 cudrop_dev_ms=45.5
cudrop_gpu s n=512 seconds=0.000404 gflops=664 checksum=1.0
cpu_blas s n=512 seconds=0.002400 gflops=111 checksum=1.0
A
out=$(python3 "$compare" "$work/before.txt" "$work/after.txt") || { echo "FAIL: bench-compare.py failed"; exit 1; }
echo "$out"
failures=0
expect() { echo "$out" | grep -qE "$1" || { echo "FAIL: no line matching: $1"; failures=$((failures + 1)); }; }
reject() { echo "$out" | grep -qE "$1" && { echo "FAIL: a line matches: $1"; failures=$((failures + 1)); }; }
expect '^bench-compare: 5 times, 3 within 3%, 2 outside:$'
expect '^  device_gemm d NN m=4096 n=4096 k=4096 beta=0 cudrop_ms: -8\.3% \(reference in the same record: \+0\.0%\)$'
expect '^  potrf d n=16384 cudrop_e2e_ms: \+12\.9% \(reference in the same record: \+8\.1%\)$'
reject 'device_gemm s NN .*outside'
reject 'cpu_blas'   # the CPU library's own time is not cudrop's
expect 'cudrop_gpu s n=512 seconds .* \+1\.0%'
[ "$failures" -eq 0 ] || { echo "bench_compare: $failures failure(s)"; exit 1; }
echo "bench_compare: PASS"
