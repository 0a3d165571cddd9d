#!/usr/bin/env bash
# The Debian package, without touching the system: `cpack -G DEB` from the build tree's
# CPackConfig.cmake into a scratch directory, then
#  - its name, control fields (Depends: a real CPU BLAS/LAPACK) and file list (both libraries,
#    header, pkg-config, CMake package, cudrop-info, cudrop-run (which finds the package's
#    preload library from bin/), man pages, the stand-in directory whose
#    libblas.so.3/liblapack.so.3 lead to libcudrop_full.so.0 inside the package, and on x86-64
#    its libblas64.so.3/liblapack64.so.3 to libcudrop64.so.0);
#  - its maintainer scripts, run against a fake root (update-alternatives --root) that already
#    has the reference BLAS (10) and OpenBLAS (100): after postinst, cudrop is what
#    libblas.so.3/liblapack.so.3 point to; after prerm, OpenBLAS is again, and nothing of
#    cudrop is left in the alternatives. The same for libblas64.so.3/liblapack64.so.3 (Debian's
#    ILP64 alternatives, OpenBLAS's in openblas64-pthread/) with libcudrop64.
#
#   deb_package.sh BUILD_DIR VERSION WORK_DIR
# Exit 0 pass, 1 fail, 77 skipped (no dpkg-deb/update-alternatives: not a Debian system).
set -euo pipefail
build=$1 version=$2 work=$3

skip() { echo "deb_package: skipped: $*"; exit 77; }
fail() { echo "deb_package: FAIL: $*"; exit 1; }
for tool in dpkg-deb dpkg update-alternatives cpack; do
  command -v $tool >/dev/null || skip "$tool not installed (a Debian/Ubuntu system with dpkg and CMake's cpack)"
done

rm -rf "$work" && mkdir -p "$work"
arch=$(dpkg --print-architecture)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work" >"$work/cpack.log" 2>&1 \
  || { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
deb=$work/cudrop_${version}_${arch}.deb
[[ -f $deb ]] || fail "no $(basename "$deb") (cpack wrote: $(ls "$work"))"
echo "deb_package: $(basename "$deb"), $(stat -c %s "$deb") bytes"

# --- Control fields ------------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == cudrop ]] || fail "Package is '$(field Package)'"
[[ $(field Version) == "$version" ]] || fail "Version is '$(field Version)', not $version"
[[ $(field Architecture) == "$arch" ]] || fail "Architecture is '$(field Architecture)'"
# Installed-Size (KiB): what the files take, within 10% (not each link counted as its target).
installed=$(field Installed-Size)
files_kib=$(dpkg-deb -c "$deb" | awk '$1 ~ /^-/ {s += $3} END {printf "%d", s / 1024}')
echo "deb_package: Installed-Size $installed KiB, regular files $files_kib KiB"
[[ -n $installed && $files_kib -gt 0 ]] && (( installed * 10 <= files_kib * 11 && installed * 10 >= files_kib * 9 )) ||
  fail "Installed-Size $installed KiB is not within 10% of the files' $files_kib KiB"
depends=$(field Depends)
echo "deb_package: Depends: $depends"
[[ $depends == *"libblas3 | libopenblas0"* ]] || fail "Depends lacks a CPU BLAS (libblas3 | libopenblas0)"
[[ $depends == *"liblapack3 | libopenblas0"* ]] || fail "Depends lacks a CPU LAPACK (liblapack3 | libopenblas0)"

# --- Files ----------------------------------------------------------------------------------------
root=$work/root
dpkg-deb -x "$deb" "$root"
has() { compgen -G "$root/$1" >/dev/null || fail "the package has no $1"; }
has "usr/lib/*libcudrop.so.0"
has "usr/lib/*libcudrop_full.so.0"
# libcudrop64 (64-bit integers) where the build has it (x86-64: forwarders).
w64=""; compgen -G "$root/usr/lib/*libcudrop64.so.0" >/dev/null && w64=64
[[ -n $w64 || $(uname -m) != x86_64 ]] || fail "the package has no libcudrop64.so.0"
has "usr/include/cudrop.h"
has "usr/lib/*pkgconfig/cudrop.pc"
has "usr/lib/*cmake/cudrop/cudropConfig.cmake"
has "usr/bin/cudrop-info"
has "usr/bin/cudrop-run"
has "usr/share/man/man7/cudrop.7*"
has "usr/share/man/man1/cudrop-info.1*"
has "usr/share/man/man1/cudrop-run.1*"
[[ -x $root/usr/bin/cudrop-run ]] || fail "usr/bin/cudrop-run is not executable"
preload=$("$root/usr/bin/cudrop-run" --print-library) || fail "cudrop-run --print-library fails in the package"
[[ $preload == "$(cd -P "$root" && pwd -P)"/usr/lib/*libcudrop.so.0 ]] ||
  fail "cudrop-run would preload $preload, not the package's libcudrop.so.0"
standin=usr/lib/$triplet/cudrop
for so in libblas.so.3 liblapack.so.3 ${w64:+libblas64.so.3 liblapack64.so.3}; do
  [[ -L $root/$standin/$so ]] || fail "/$standin/$so is not a link"
  target=$(readlink "$root/$standin/$so")
  [[ $target != /* ]] || fail "/$standin/$so -> $target is absolute"
  real=$(cd "$root/$standin" && readlink -f "$target")
  want=libcudrop_full; [[ $so == *64.so.3 ]] && want=libcudrop64
  [[ $real == "$root"/usr/lib/* && $(basename "$real") == $want.so.* && -f $real ]] \
    || fail "/$standin/$so -> $target does not lead to $want in the package"
done
pcprefix=$(PKG_CONFIG_PATH=$(dirname "$(compgen -G "$root/usr/lib/*pkgconfig/cudrop.pc" | head -1)") \
           pkg-config --variable=prefix cudrop 2>/dev/null || true)
[[ -z $pcprefix || $(cd "$pcprefix" && pwd) == "$root/usr" ]] || fail "cudrop.pc's prefix is $pcprefix"

# --- Maintainer scripts against a fake root -------------------------------------------------------
ctl=$work/control
dpkg-deb -e "$deb" "$ctl"
for f in postinst prerm triggers; do [[ -f $ctl/$f ]] || fail "no $f in the package"; done
grep -qx 'activate-noawait ldconfig' "$ctl/triggers" || fail "triggers does not run ldconfig"
prio=$(awk '/--install/ {getline; getline; print $NF}' "$ctl/postinst" | sort -u)
[[ $prio =~ ^[0-9]+$ && $prio -gt 100 ]] || fail "alternatives priority '$prio' is not above OpenBLAS's 100"

bin=$work/bin && mkdir -p "$bin"
printf '#!/bin/sh\nexec %s --root %s "$@"\n' "$(command -v update-alternatives)" "$root" >"$bin/update-alternatives"
chmod +x "$bin/update-alternatives"
ua() { "$bin/update-alternatives" "$@"; }
mkdir -p "$root/etc/alternatives" "$root/var/lib/dpkg/alternatives"
# What a system with the reference libraries and OpenBLAS has registered (both ABIs).
libs="blas lapack${w64:+ blas64 lapack64}"
openblas() { [[ $1 == *64 ]] && echo openblas64-pthread || echo openblas-pthread; }
for lib in $libs; do
  for provider in "$lib:10" "$(openblas $lib):100"; do
    dir=${provider%%:*} p=${provider##*:}
    mkdir -p "$root/usr/lib/$triplet/$dir" && : >"$root/usr/lib/$triplet/$dir/lib$lib.so.3"
    ua --install /usr/lib/$triplet/lib$lib.so.3 lib$lib.so.3-$triplet /usr/lib/$triplet/$dir/lib$lib.so.3 $p >/dev/null
  done
done
value() { ua --query "lib$1.so.3-$triplet" | awk '$1 == "Value:" {print $2}'; }
PATH=$bin:$PATH sh -e "$ctl/postinst" configure >/dev/null
for lib in $libs; do
  got=$(value $lib)
  [[ $got == /$standin/lib$lib.so.3 ]] || fail "after postinst, lib$lib.so.3 is $got, not cudrop's"
  [[ $(readlink "$root/usr/lib/$triplet/lib$lib.so.3") == /etc/alternatives/lib$lib.so.3-$triplet ]] \
    || fail "/usr/lib/$triplet/lib$lib.so.3 is not the alternatives link"
done
echo "deb_package: after postinst: libblas.so.3 -> $(value blas), liblapack.so.3 -> $(value lapack)${w64:+, libblas64.so.3 -> $(value blas64), liblapack64.so.3 -> $(value lapack64)}"
PATH=$bin:$PATH sh -e "$ctl/prerm" remove >/dev/null
for lib in $libs; do
  got=$(value $lib)
  [[ $got == /usr/lib/$triplet/$(openblas $lib)/lib$lib.so.3 ]] || fail "after prerm, lib$lib.so.3 is $got, not OpenBLAS"
  ! ua --query "lib$lib.so.3-$triplet" | grep -q cudrop || fail "after prerm, cudrop is still an alternative for lib$lib.so.3"
done
echo "deb_package: after prerm: libblas.so.3 -> $(value blas), liblapack.so.3 -> $(value lapack)"
echo "deb_package: PASS"
