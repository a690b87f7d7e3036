#!/bin/sh
# Callgrind instructions per node of one update of a C chain of 1000 computeds
# (unchecked calls), counted inside run_updates() only; then per stored +
# computed pair created and read once (create_pairs()) and destroyed
# (destroy_pairs()), the core's share of the creation workload; and per effect
# run when a write reaches 1000 C effects (run_effect_writes()).
#
#   Benchmarks/CoreChain/chain-instructions.sh [ROOT] [UPDATES]
#
# ROOT: a checkout whose core to measure (default: this one), so that an older
# commit's core can be measured with today's driver. Builds the core with the
# Makefile's flags (-O2 -g) into a temporary directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(cd "$here/../.." && pwd)}
updates=${2:-200}
core="$root/CSources/StateGraphCore"
out=$(mktemp -d "${TMPDIR:-/tmp}/sg-chain.XXXXXX")
trap 'rm -rf "$out"' EXIT
${CC:-cc} -std=c11 -O2 -g -I"$core/include" -I"$core" $(pkg-config --cflags glib-2.0) \
  "$here/chain.c" "$core"/*.c $(pkg-config --libs glib-2.0) -lpthread -o "$out/chain"
"$out/chain" "$updates"
valgrind --tool=callgrind --callgrind-out-file="$out/cg" --collect-atstart=no \
  --toggle-collect=run_updates "$out/chain" "$updates" >/dev/null 2>"$out/log"
total=$(callgrind_annotate "$out/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
echo "instructions: $total for $updates updates of 1000 nodes = $(awk "BEGIN { printf \"%.1f\", $total / ($updates * 1000) }") per node"
pairs=10000
"$out/chain" create $pairs
for part in create_pairs destroy_pairs; do
  valgrind --tool=callgrind --callgrind-out-file="$out/cg-$part" --collect-atstart=no \
    --toggle-collect=$part "$out/chain" create $pairs >/dev/null 2>"$out/log"
  total=$(callgrind_annotate "$out/cg-$part" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
  echo "$part: $total instructions for $pairs pairs = $(awk "BEGIN { printf \"%.0f\", $total / $pairs }") per pair"
  if [ -n "${KEEP:-}" ]; then cp "$out/cg-$part" "$KEEP-$part"; fi
done
writes=100
"$out/chain" effects $writes
valgrind --tool=callgrind --callgrind-out-file="$out/cg-effects" --collect-atstart=no \
  --toggle-collect=run_effect_writes "$out/chain" effects $writes >/dev/null 2>"$out/log"
total=$(callgrind_annotate "$out/cg-effects" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
echo "effects: $total instructions for $writes writes reaching 1000 effects = $(awk "BEGIN { printf \"%.1f\", $total / ($writes * 1000) }") per effect run"
if [ -n "${KEEP:-}" ]; then cp "$out/cg-effects" "$KEEP-effects"; fi
if [ -n "${KEEP:-}" ]; then cp "$out/cg" "$KEEP"; echo "callgrind output: $KEEP"; fi
