#!/bin/bash
# relink_c / relink_f77: build examples/relink.c or examples/relink.f the way a user would,
# with flags only from `pkg-config --cflags --libs cudrop` (PKG_CONFIG_PATH=BUILD/pkgconfig,
# which holds cudrop-uninstalled.pc for the build tree) and no BLAS on the link line; check
# that the program needs libcudrop_full (the complete library) and no libblas; run it with LD_LIBRARY_PATH=BUILD; the
# program checks its own results (exit 1 on a mismatch) and must print its PASS line.
# usage: relink.sh c|f77 EXAMPLES_DIR BUILD_DIR COMPILER
set -u
lang=$1 examples=$2 build=$(cd "$3" && pwd) compiler=$4

if ! command -v pkg-config >/dev/null; then echo "SKIP: no pkg-config"; exit 77; fi
if [ -z "$compiler" ] || ! command -v "$compiler" >/dev/null; then
  echo "SKIP: no compiler for $lang ('$compiler')"; exit 77
fi
case $lang in
  c) source=$examples/relink.c; pass_line='relink.c: PASS' ;;
  f77) source=$examples/relink.f; pass_line='relink.f: PASS' ;;
  *) echo "usage: relink.sh c|f77 EXAMPLES_DIR BUILD_DIR COMPILER"; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export PKG_CONFIG_PATH=$build/pkgconfig
flags=$(pkg-config --cflags --libs cudrop) || { echo "FAIL: pkg-config cannot find cudrop in $PKG_CONFIG_PATH"; exit 1; }
echo "pkg-config --cflags --libs cudrop: $flags"
libdir=$(pkg-config --variable=libdir cudrop)
if [ "$(readlink -f "$libdir")" != "$(readlink -f "$build")" ]; then
  echo "FAIL: pkg-config's libdir ($libdir) is not this build tree ($build)"; exit 1
fi

# shellcheck disable=SC2086  # the flags are meant to split
echo "+ $compiler $source $flags -o $work/relink"
if ! "$compiler" "$source" $flags -o "$work/relink"; then
  echo "FAIL: does not build with the pkg-config flags alone"; exit 1
fi

needed=$(readelf -d "$work/relink" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
# pkg-config links the complete library (the whole BLAS/LAPACK ABI), not the preload one.
echo "$needed" | grep -q '^libcudrop_full\.so' || { echo "FAIL: the program does not need libcudrop_full"; exit 1; }
if echo "$needed" | grep -Eq '^lib(blas|openblas|cblas|mkl|blis|lapack)'; then
  echo "FAIL: the program needs another BLAS/LAPACK library"; exit 1
fi

# As a user runs it: no LD_LIBRARY_PATH (cudrop-uninstalled.pc's run path finds the build tree).
env -u LD_LIBRARY_PATH CUDROP_VERBOSE=1 timeout 120 "$work/relink" >"$work/out.log" 2>&1
rc=$?
cat "$work/out.log"
if [ "$rc" -ne 0 ]; then echo "FAIL: exit status $rc"; exit 1; fi
grep -qx "$pass_line" "$work/out.log" || { echo "FAIL: no '$pass_line' line"; exit 1; }
grep -q 'WRONG' "$work/out.log" && { echo "FAIL: a check printed WRONG"; exit 1; }
# The library that actually ran is this build's (not an installed cudrop).
env -u LD_LIBRARY_PATH ldd "$work/relink" | grep -q "libcudrop_full.so.* => $(readlink -f "$build")/\|libcudrop_full.so.* => $build/" ||
  { echo "FAIL: the loader does not take libcudrop_full from $build"; exit 1; }
echo "relink_$lang: PASS"
