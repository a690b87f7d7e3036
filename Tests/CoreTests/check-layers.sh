#!/bin/sh
# check-layers.sh OBJ_DIR CORE_DIR — the core's layering, checked on its objects.
#
# sg_internal.h lists the core's files in layers, lowest first; a file may
# call functions of its own layer and the ones above it in that list, and
# any file may record into trace.c. For every object file this reads the
# core functions it calls (nm's undefined symbols), finds the file that
# defines each (nm's defined symbols), and fails when one lives in a layer
# further down the list. It also checks that every function publishing a
# node's field for lock-free readers (SG_PUBLISH(n->...)) cites, in the
# comment right above it, the section of docs/core-protocol.md that allows
# the move.
set -eu
obj=${1:?object directory}
core=${2:?core source directory}
status=0

# "file level" lines from the layer list: the comment block after "Layers:".
layers=$(awk '
  /Layers:/ { inside = 1; next }
  inside && /^ \*\// { exit }
  inside && /^ \*   [a-z]/ {
    level++
    for (i = 2; i <= NF; i++) if ($i ~ /\.c$/) print $i, level; else break
  }' "$core/sg_internal.h")
[ -n "$layers" ] || { echo "check-layers: no layer list in $core/sg_internal.h"; exit 1; }

# Every .c file of the core must be in the list.
for c in "$core"/*.c; do
  f=$(basename "$c")
  echo "$layers" | grep -q "^$f " || { echo "check-layers: $f is in no layer of sg_internal.h"; status=1; }
done

# symbol -> defining file
defs=$(for o in "$obj"/*.o; do
  nm --defined-only -g "$o" | awk -v f="$(basename "$o" .o).c" '$3 ~ /^sg_/ { print $3, f }'
done)

for o in "$obj"/*.o; do
  f=$(basename "$o" .o).c
  mine=$(echo "$layers" | awk -v f="$f" '$1 == f { print $2 }')
  for sym in $(nm -u "$o" | awk '$2 ~ /^sg_/ { print $2 }'); do
    to=$(echo "$defs" | awk -v s="$sym" '$1 == s { print $2; exit }')
    [ -n "$to" ] || continue
    [ "$to" = trace.c ] && continue
    theirs=$(echo "$layers" | awk -v f="$to" '$1 == f { print $2 }')
    if [ "$theirs" -gt "$mine" ]; then
      echo "check-layers: $f calls $sym of $to, a layer below it in sg_internal.h"
      status=1
    fi
  done
done

# Public entry points (sg_ followed by a letter) live in api.c and in the
# files that see the graph (the last layer), nowhere else: each public
# area has one entry file, as Lua keeps its in lapi.c.
last=$(echo "$layers" | awk '{ if ($2 > max) max = $2 } END { print max }')
for o in "$obj"/*.o; do
  f=$(basename "$o" .o).c
  [ "$f" = api.c ] && continue
  level=$(echo "$layers" | awk -v f="$f" '$1 == f { print $2 }')
  [ "$level" = "$last" ] && continue
  for sym in $(nm --defined-only -g "$o" | awk '$3 ~ /^sg_[a-z]/ { print $3 }'); do
    echo "check-layers: $f defines the public $sym: public entry points belong in api.c"
    status=1
  done
done

# Functions that publish a field cite the protocol right above them.
for c in "$core"/*.c; do
  awk -v file="$(basename "$c")" '
    /^$/ { cited = 0 }
    /docs\/core-protocol\.md/ { cited = 1 }
    /^[A-Za-z_].*\(/ && !/;[ \t]*$/ && !/^#/ { name = $0; this_cited = cited; cited = 0 }
    /SG_PUBLISH\([a-z_]+->/ && !this_cited && !(name in told) {
      told[name] = 1
      printf "check-layers: %s: \"%s\" publishes a field without citing docs/core-protocol.md\n", file, name
      bad = 1
    }
    END { exit bad }' "$c" || status=1
done

[ $status -eq 0 ] && echo "check-layers: $(echo "$layers" | wc -l) files in $(echo "$layers" | awk '{print $2}' | sort -u | wc -l) layers, no call upward, public entry points in api.c and the introspection files, every publishing function cites the protocol"
exit $status
