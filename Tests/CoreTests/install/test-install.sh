#!/bin/sh
# test-install.sh — `make install` into a temporary prefix; build minimal.c
# against it through pkg-config, once shared and once fully static; run
# both and compare their output with minimal.expected; `make uninstall`
# and check that nothing is left. Then the same install staged with
# DESTDIR, whose stategraph.pc must still name the real PREFIX.
# Run from the repository root (make test-install does).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
MAKE=${MAKE:-make}
CC=${CC:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

fail() {
  echo "test-install: FAIL: $*" >&2
  exit 1
}

step() { echo "test-install: $*"; }

step "make install PREFIX=$prefix"
$MAKE --no-print-directory install PREFIX="$prefix" > "$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "make install"; }
version=$(sed -n 's/^#define SG_VERSION_STRING "\(.*\)"$/\1/p' "$prefix/include/stategraph.h")
for file in lib/libstategraph.a "lib/libstategraph.so.$version" lib/libstategraph.so.0 \
            lib/libstategraph.so include/stategraph.h lib/pkgconfig/stategraph.pc; do
  [ -e "$prefix/$file" ] || fail "make install did not install $file"
done
soname=$(readelf -d "$prefix/lib/libstategraph.so.$version" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libstategraph.so.0 ] || fail "soname is '$soname', not libstategraph.so.0"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[ "$(pkg-config --modversion stategraph)" = "$version" ] ||
  fail "stategraph.pc says version $(pkg-config --modversion stategraph), the header $version"

step "cc minimal.c \$(pkg-config --cflags --libs stategraph)"
# shellcheck disable=SC2046 # pkg-config output is meant to be split
$CC -o "$work/minimal" "$here/minimal.c" $(pkg-config --cflags --libs stategraph)
LD_LIBRARY_PATH="$prefix/lib" ldd "$work/minimal" | grep -q "$prefix/lib/libstategraph.so.0" ||
  fail "the program does not load the installed libstategraph.so.0"
LD_LIBRARY_PATH="$prefix/lib" "$work/minimal" > "$work/shared.out" || fail "the shared build exited with $?"
diff -u "$here/minimal.expected" "$work/shared.out" || fail "the shared build printed something else"

step "cc -static minimal.c \$(pkg-config --static --cflags --libs stategraph)"
# GLib warns that a static glibc program may still need NSS at run time: not this one.
# shellcheck disable=SC2046
$CC -static -o "$work/minimal-static" "$here/minimal.c" \
  $(pkg-config --static --cflags --libs stategraph) > "$work/static.log" 2>&1 ||
  { cat "$work/static.log"; fail "static link"; }
if readelf -d "$work/minimal-static" 2>/dev/null | grep -q NEEDED; then
  fail "the static build still needs shared libraries"
fi
"$work/minimal-static" > "$work/static.out" || fail "the static build exited with $?"
diff -u "$here/minimal.expected" "$work/static.out" || fail "the static build printed something else"

step "make uninstall PREFIX=$prefix"
$MAKE --no-print-directory uninstall PREFIX="$prefix" > /dev/null
left=$(find "$prefix" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"

step "make install/uninstall PREFIX=/opt/stategraph DESTDIR=$work/stage"
$MAKE --no-print-directory install PREFIX=/opt/stategraph DESTDIR="$work/stage" > /dev/null 2>&1
[ -f "$work/stage/opt/stategraph/lib/libstategraph.a" ] || fail "DESTDIR install misplaced the files"
grep -qx 'prefix=/opt/stategraph' "$work/stage/opt/stategraph/lib/pkgconfig/stategraph.pc" ||
  fail "stategraph.pc under DESTDIR does not name the real prefix"
$MAKE --no-print-directory uninstall PREFIX=/opt/stategraph DESTDIR="$work/stage" > /dev/null
left=$(find "$work/stage" ! -type d)
[ -z "$left" ] || fail "make uninstall with DESTDIR left: $left"

step "ok: installed, built shared and static through pkg-config, ran, uninstalled"
