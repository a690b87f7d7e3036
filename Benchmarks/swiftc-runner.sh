#!/bin/sh
# A release runner built with swiftc alone, for when a SwiftPM release build is out of
# reach (its first build compiles swift-syntax for the macro plugin with the optimiser:
# an hour on a loaded 2-core machine). Same optimisation as `swift build -c release`
# (-O, whole module, Swift 6 mode; the library a separate module, its @inlinable code
# specialised in the runner), but no macro plugin: the one workload file that uses a
# macro (Workloads/EntityStore.swift) is left out, so the EntityStore rows are missing.
#
#   Benchmarks/swiftc-runner.sh ROOT OUT
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
swiftc -swift-version 6 -O -wmo -parse-as-library -module-name StateGraph -package-name StateGraph \
  -emit-module -emit-module-path "$out/library/StateGraph.swiftmodule" \
  -I "$out/core" -I "$root/CSources/CGLib" $glib \
  -emit-library -static -o "$out/library/libStateGraph.a" \
  $(find "$root/Sources/StateGraph" -name '*.swift')
cp "$root/Benchmarks/Sources/MallocCounter/include/MallocCounter.h" "$out/malloc/"
printf 'module MallocCounter {\n  header "MallocCounter.h"\n  export *\n}\n' > "$out/malloc/module.modulemap"
cc -O2 -c -I"$out/malloc" "$root/Benchmarks/Sources/MallocCounter/MallocCounter.c" -o "$out/malloc/MallocCounter.o"
rm -rf "$out/runner" && cp -r "$root/Benchmarks/Sources/StateGraphBenchmarks" "$out/runner"
printf 'func entityStoreWorkloads(_ config: RunConfig) -> [SpeedWorkload] { [] }\n' \
  > "$out/runner/Workloads/EntityStore.swift"
swiftc -swift-version 6 -O -wmo -module-name StateGraphBenchmarks \
  -I "$out/library" -I "$out/core" -I "$out/malloc" -I "$root/CSources/CGLib" $glib \
  $(find "$out/runner" -name '*.swift') "$out/library/libStateGraph.a" "$root/build/libstategraph.a" \
  "$out/malloc/MallocCounter.o" -lglib-2.0 -lpthread -o "$out/StateGraphBenchmarks"
echo "$out/StateGraphBenchmarks"
