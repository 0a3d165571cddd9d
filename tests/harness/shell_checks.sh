# Sourced by the shell tests of several devices (tests/gemm/gemm_multi_gpu.sh,
# tests/harness/factor_several.sh): the caller's CUDROP_* settings cleared, fail/pass with a count of
# failures, a work folder ($work) removed at exit. CUDROP_TEST_REF_LAPACK (the test programs'
# reference, not a setting of the library) is kept.
for v in $(env | sed -n 's/^\(CUDROP_[A-Z0-9_]*\)=.*/\1/p'); do [[ $v == CUDROP_TEST_REF_LAPACK ]] || unset "$v"; done
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
