#!/bin/sh
# run.sh PROGRAM — runs the spreadsheet on every tests/*.sheet and compares
# what it prints (standard output and error, in order, then the exit
# status) with tests/NAME.expected. Sheets named stdin-*.sheet are fed
# through standard input, the others are named on the command line.
# Under valgrind when it is installed: a leak or bad access changes the
# exit status, so the comparison fails.
# UPDATE=1 writes the .expected files instead: check the diff afterwards.
set -u
program=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")" || exit 2
wrapper=""
if command -v valgrind >/dev/null 2>&1; then
  wrapper="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
fi

passed=0
failed=0
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
for sheet in *.sheet; do
  name=${sheet%.sheet}
  case $name in
    stdin-*) $wrapper "$program" < "$sheet" > "$actual" 2>&1 ;;
    *) $wrapper "$program" "$sheet" > "$actual" 2>&1 ;;
  esac
  echo "exit status $?" >> "$actual"
  if [ "${UPDATE:-0}" = 1 ]; then
    cp "$actual" "$name.expected"
    echo "wrote $name.expected"
  elif diff -u "$name.expected" "$actual" > /dev/null 2>&1; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    diff -u "$name.expected" "$actual" | sed 's/^/     /'
    failed=$((failed + 1))
  fi
done
[ "${UPDATE:-0}" = 1 ] && exit 0
echo "spreadsheet examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
