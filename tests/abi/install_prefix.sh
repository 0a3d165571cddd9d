#!/bin/bash
# install_prefix: `cmake --install BUILD --prefix P` gives a prefix that users' builds find both
# ways, as a user would use them: pkg-config (PKG_CONFIG_PATH=P/lib/pkgconfig) and CMake's
# find_package(cudrop) with the target cudrop::cudrop (CMAKE_PREFIX_PATH=P). Each builds
# examples/relink.c, which checks its own GEMM results; the pkg-config build runs with
# LD_LIBRARY_PATH=P/lib, the CMake one with the run path CMake gives it. The launcher
# bin/cudrop-run preloads the prefix's libcudrop.so.0. Then the prefix is moved elsewhere: the
# pkg-config file still names the moved prefix, and the launcher the moved library.
# usage: install_prefix.sh BUILD_DIR EXAMPLES_DIR C_COMPILER
set -u
build=$(cd "$1" && pwd) examples=$(cd "$2" && pwd) cc=$3
command -v pkg-config >/dev/null || { echo "SKIP: no pkg-config"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
libdir=$(dirname "$(find "$prefix" -name 'libcudrop.so*' -type f | head -1)")
echo "installed: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"
[ -f "$prefix/include/cudrop.h" ] || fail "no include/cudrop.h in the prefix"
# Both libraries: the preload one and the complete one (with its development link) that users link.
for name in libcudrop.so.0 libcudrop_full.so.0 libcudrop_full.so; do
  [ -e "$libdir/$name" ] || fail "no $name in $libdir"
done

# pkg-config, as a user's Makefile would use it; then the same after moving the prefix.
check_pkg_config() {  # check_pkg_config PREFIX LABEL
  local p=$1 label=$2 pcdir flags
  pcdir=$(dirname "$(find "$p" -name cudrop.pc | head -1)")
  flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs cudrop) || { fail "$label: pkg-config finds no cudrop in $pcdir"; return; }
  echo "$label: pkg-config --cflags --libs cudrop: $flags"
  local include_dir
  include_dir=$(echo " $flags " | grep -o ' -I[^ ]*' | head -1 | sed 's/^ -I//')
  [ "$(readlink -f "$include_dir")" = "$(readlink -f "$p/include")" ] || fail "$label: -I$include_dir is not $p/include"
  # shellcheck disable=SC2086  # the flags are meant to split
  "$cc" "$examples/relink.c" $flags -o "$work/relink-$label" || { fail "$label: does not build with pkg-config's flags"; return; }
  LD_LIBRARY_PATH=$(dirname "$(find "$p" -name 'libcudrop.so*' -type f | head -1)") "$work/relink-$label" >"$work/$label.log" 2>&1 ||
    { cat "$work/$label.log"; fail "$label: the program failed"; return; }
  grep -qx 'relink.c: PASS' "$work/$label.log" || fail "$label: no PASS line"
}
check_pkg_config "$prefix" pkg-config

# bin/cudrop-run: the prefix's own preload library, by its absolute path.
check_launcher() {  # check_launcher PREFIX LABEL
  local want got
  want=$(cd -P "$(dirname "$(find "$1" -name 'libcudrop.so.0' | head -1)")" && pwd -P)/libcudrop.so.0
  got=$("$1/bin/cudrop-run" --print-library) || { fail "$2: bin/cudrop-run --print-library fails"; return; }
  [ "$got" = "$want" ] || fail "$2: bin/cudrop-run would preload $got, not $want"
  echo "$2: bin/cudrop-run preloads $got"
}
check_launcher "$prefix" prefix

# find_package(cudrop), a CMake user's project.
if cmake -S "$(dirname "$0")/install_consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_C_COMPILER="$cc" -DRELINK_SOURCE="$examples/relink.c" >"$work/consumer.log" 2>&1 &&
   cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1; then
  if "$work/consumer/relink" >"$work/cmake-run.log" 2>&1 && grep -qx 'relink.c: PASS' "$work/cmake-run.log"; then
    echo "find_package: built and ran ($(readelf -d "$work/consumer/relink" | grep -o 'R[UN]*PATH.*' | head -1))"
    readelf -d "$work/consumer/relink" | grep -q 'NEEDED.*\[libcudrop_full\.so\.0\]' ||
      fail "find_package: cudrop::cudrop does not link libcudrop_full (the complete library)"
  else
    cat "$work/cmake-run.log"; fail "find_package: the program failed"
  fi
else
  tail -20 "$work/consumer.log"; fail "find_package(cudrop) project does not configure or build"
fi

mv "$prefix" "$work/moved"
check_pkg_config "$work/moved" moved-prefix
check_launcher "$work/moved" moved-prefix
[ -n "$libdir" ] || fail "no libcudrop.so in the prefix"

if [ "$failures" -ne 0 ]; then echo "install_prefix: $failures failure(s)"; exit 1; fi
echo "install_prefix: PASS"
