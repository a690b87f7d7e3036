#!/bin/sh
# A release runner built with swiftc alone, for when a SwiftPM release build is out of
# reach (its first build compiles swift-syntax for the macro plugin with the optimiser:
# an hour on a loaded 2-core machine). Same optimisation as `swift build -c release`
# (-O, whole module, Swift 6 mode; the library a separate module, its @inlinable code
# specialised in the runner). The one workload file that uses a macro
# (Workloads/EntityStore.swift) needs the macro plugin: given a built one in
# SG_MACRO_PLUGIN (a debug build's is enough: it only expands the source), the runner
# has the EntityStore rows; without, they are left out.
#
#   Benchmarks/swiftc-runner.sh ROOT OUT
#   SG_MACRO_PLUGIN=.build/debug/StateGraphMacros-tool Benchmarks/swiftc-runner.sh ROOT OUT
#
# ROOT: a checkout (this one, or a worktree of an earlier commit: its own library and
# its own runner sources are used). Builds ROOT's C core with `make core` (in ROOT/build),
# then OUT/StateGraphBenchmarks. Use with compare.py --ref-binary / --now-binary.
set -eu
root=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
glib=$(pkg-config --cflags glib-2.0 | sed 's/-I/-Xcc -I/g')
make -s -C "$root" core >/dev/null
mkdir -p "$out/core" "$out/malloc" "$out/library"
printf 'module StateGraphCore {\n  header "%s"\n  export *\n}\n' \
  "$root/CSources/StateGraphCore/include/stategraph.h" > "$out/core/module.modulemap"
# module NAME SOURCES...: a static library and its module in $out/library.
module() {
  name=$1
  shift
  swiftc -swift-version 6 -O -wmo -parse-as-library -module-name "$name" -package-name StateGraph \
    $plugin -I "$out/library" -I "$out/core" -I "$root/CSources/CGLib" $glib \
    -emit-module -emit-module-path "$out/library/$name.swiftmodule" \
    -emit-library -static -o "$out/library/lib$name.a" "$@"
}
plugin=
libraries="$out/library/libStateGraph.a"
if [ -n "${SG_MACRO_PLUGIN:-}" ]; then
  plugin="-load-plugin-executable $(cd "$(dirname "$SG_MACRO_PLUGIN")" && pwd)/$(basename "$SG_MACRO_PLUGIN")#StateGraphMacros"
  libraries="$out/library/libStateGraphNormalization.a $libraries $out/library/libTypedIdentifier.a"
fi
module StateGraph $(find "$root/Sources/StateGraph" -name '*.swift')
cp "$root/Benchmarks/Sources/MallocCounter/include/MallocCounter.h" "$out/malloc/"
printf 'module MallocCounter {\n  header "MallocCounter.h"\n  export *\n}\n' > "$out/malloc/module.modulemap"
cc -O2 -c -I"$out/malloc" "$root/Benchmarks/Sources/MallocCounter/MallocCounter.c" -o "$out/malloc/MallocCounter.o"
rm -rf "$out/runner" && cp -r "$root/Benchmarks/Sources/StateGraphBenchmarks" "$out/runner"
if [ -n "$plugin" ]; then
  module TypedIdentifier $(find "$root/Sources/TypedIdentifier" -name '*.swift')
  module StateGraphNormalization $(find "$root/Sources/StateGraphNormalization" -name '*.swift')
else
  printf 'func entityStoreWorkloads(_ config: RunConfig) -> [SpeedWorkload] { [] }\n' \
    > "$out/runner/Workloads/EntityStore.swift"
fi
swiftc -swift-version 6 -O -wmo -module-name StateGraphBenchmarks $plugin \
  -I "$out/library" -I "$out/core" -I "$out/malloc" -I "$root/CSources/CGLib" $glib \
  $(find "$out/runner" -name '*.swift') $libraries "$root/build/libstategraph.a" \
  "$out/malloc/MallocCounter.o" -lglib-2.0 -lpthread -o "$out/StateGraphBenchmarks"
echo "$out/StateGraphBenchmarks"
