#!/bin/bash
# handlers: with cudrop loaded, an illegal argument reaches the same error handler as without
# it, with the same text on the same stream, the same exit status, and the program goes on
# (or stops) the same way. Each program runs without cudrop (the baseline) and with it, and the
# two runs' stdout, stderr and exit status must be identical.
#   handler: defined in the executable / in a library the program dlopens RTLD_LOCAL, which
#            makes the calls (numpy's lapack_lite) / none (the BLAS library's own)
#   link:    -lblas / -llapack -lblas (both run again under LD_PRELOAD=libcudrop.so) / libcudrop
#            alone (run without preload; its baseline is the -lblas build)
#   case:    sgemm_ bad LDA, bad TRANSA; cblas_sgemm column-major bad lda, row-major bad ldb,
#            bad layout; dgesv_ bad LDA (-llapack -lblas only: it does not link against -lblas
#            alone, nor against libcudrop alone, which has no dgesv_)
#   the complete library: libcudrop_full alone (relinked; baseline the -llapack -lblas build),
#   and standing in as libblas.so.3 + liblapack.so.3 (LD_LIBRARY_PATH) under the -llapack -lblas
#   build, dgesv_ included (forwarded to the CPU LAPACK, whose XERBLA is reached). Not for a
#   handler in a library loaded RTLD_LOCAL: a forwarded routine runs in the CPU library, which
#   binds its XERBLA in its own scope, not the module's (docs: the preload library is the one
#   for numpy's lapack_lite).
#   and a call wrapper preloaded before cudrop (wrapper.c: its sgemm_/cblas_sgemm hand each
#   call to the next definition, cudrop's), over the -lblas programs.
# usage: handlers.sh C_COMPILER SOURCE_DIR BUILD_DIR (BUILD_DIR holds libcudrop.so)
set -u
cc=$1 src=$2 build=$(cd "$3" && pwd)
lib=$build/libcudrop.so
[ -f "$lib" ] || { echo "FAIL: no $lib"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Skip only when the reference libraries to compare against are not installed.
echo 'void sgemm_(void); void dgesv_(void); int main(void) { sgemm_(); dgesv_(); return 0; }' >"$work/probe.c"
if ! "$cc" "$work/probe.c" -o "$work/probe" -llapack -lblas 2>/dev/null; then
  echo "SKIP: cannot link -llapack -lblas (install libblas-dev liblapack-dev)"; exit 77
fi

# A clean environment: no cudrop settings from the caller.
for v in $(env | sed -n 's/^\(CUDROP_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

failures=0 compared=0
build_one() {  # handler link -> $work/<handler>-<link>/main (and lib.so)
  local handler=$1 link=$2 dir=$work/$1-$2 libs
  mkdir -p "$dir"
  case $link in
    blas) libs="-lblas" ;;
    lapack) libs="-DWITH_LAPACK -llapack -lblas" ;;
    cudrop) libs="-L$build -lcudrop -Wl,-rpath,$build" ;;
    full) libs="-DWITH_LAPACK -L$build -lcudrop_full -Wl,-rpath,$build" ;;
  esac
  # shellcheck disable=SC2086  # libs is meant to split
  case $handler in
    exe) "$cc" -O1 -DHANDLER_TAG=executable "$src/main.c" "$src/calls.c" -o "$dir/main" $libs ;;
    none) "$cc" -O1 "$src/main.c" "$src/calls.c" -o "$dir/main" $libs ;;
    lib) "$cc" -O1 -fPIC -shared -DHANDLER_TAG=library "$src/calls.c" -o "$dir/lib.so" $libs &&
         "$cc" -O1 -DCALLS_IN_LIBRARY "$src/main.c" -o "$dir/main" -ldl ;;
  esac
}

run_one() {  # dir case out [env...]
  local dir=$1 case=$2 out=$3
  shift 3
  env "$@" timeout 60 "$dir/main" "$case" "$dir/lib.so" >"$out.stdout" 2>"$out.stderr"
  echo "exit status $?" >"$out.status"
}

compare() {  # label baseline run
  local label=$1 base=$2 run=$3 what differs=""
  compared=$((compared + 1))
  for what in stdout stderr status; do
    cmp -s "$base.$what" "$run.$what" || differs="$differs $what"
  done
  if [ -n "$differs" ]; then
    failures=$((failures + 1))
    echo "FAIL $label: differs in$differs"
    for what in stdout stderr status; do
      echo "  without cudrop, $what:"; sed 's/^/    | /' "$base.$what"
      echo "  with cudrop, $what:"; sed 's/^/    | /' "$run.$what"
    done
  else
    echo "ok   $label: $(tr '\n' ' ' <"$base.stderr" | cut -c1-80)| $(tail -n 1 "$base.stdout") | $(cat "$base.status")"
  fi
}

gemm_cases="sgemm_lda sgemm_transa cblas_col_lda cblas_row_ldb cblas_layout"
for handler in exe lib none; do
  for link in blas lapack cudrop; do
    build_one $handler $link || { echo "FAIL: cannot build handler=$handler link=$link"; failures=$((failures + 1)); }
  done
  for link in blas lapack; do
    cases=$gemm_cases
    [ $link = lapack ] && cases="$cases dgesv_lda"
    for case in $cases; do
      dir=$work/$handler-$link out=$work/$handler-$link-$case
      run_one "$dir" "$case" "$out.base"
      run_one "$dir" "$case" "$out.cudrop" LD_PRELOAD="$lib"
      compare "handler=$handler link=$link preload $case" "$out.base" "$out.cudrop"
    done
  done
  # dgesv_ is left out: libcudrop has no dgesv_, so that program cannot link against it alone.
  for case in $gemm_cases; do
    out=$work/$handler-cudrop-$case
    run_one "$work/$handler-cudrop" "$case" "$out"
    compare "handler=$handler relinked-with-cudrop-alone $case" "$work/$handler-blas-$case.base" "$out"
  done
done

# The complete library, relinked and standing in for the system's libraries.
standin=$work/standin
mkdir -p "$standin"
ln -s "$build/libcudrop_full.so.0" "$standin/libblas.so.3"
ln -s "$build/libcudrop_full.so.0" "$standin/liblapack.so.3"
for handler in exe none; do
  build_one $handler full || { echo "FAIL: cannot build handler=$handler link=full"; failures=$((failures + 1)); }
  for case in $gemm_cases dgesv_lda; do
    out=$work/$handler-full-$case
    run_one "$work/$handler-full" "$case" "$out"
    compare "handler=$handler relinked-with-cudrop_full $case" "$work/$handler-lapack-$case.base" "$out"
    out=$work/$handler-standin-$case
    run_one "$work/$handler-lapack" "$case" "$out" LD_LIBRARY_PATH="$standin"
    compare "handler=$handler link=lapack cudrop_full-as-libblas+liblapack $case" "$work/$handler-lapack-$case.base" "$out"
  done
done

"$cc" -O1 -fPIC -shared "$src/wrapper.c" -o "$work/libwrapper.so" -ldl ||
  { echo "FAIL: cannot build the wrapper"; failures=$((failures + 1)); }
for handler in exe none; do
  for case in $gemm_cases; do
    dir=$work/$handler-blas out=$work/$handler-wrapper-$case
    run_one "$dir" "$case" "$out.base" LD_PRELOAD="$work/libwrapper.so"
    run_one "$dir" "$case" "$out.cudrop" LD_PRELOAD="$work/libwrapper.so $lib"
    compare "handler=$handler link=blas wrapper-then-cudrop $case" "$out.base" "$out.cudrop"
  done
done

if [ "$failures" -ne 0 ]; then echo "handlers: $failures of $compared comparisons differ"; exit 1; fi
echo "handlers: PASS ($compared comparisons)"
