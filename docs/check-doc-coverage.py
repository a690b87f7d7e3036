#!/usr/bin/env python3
"""Fails when a public symbol of a documented module has no documentation comment.

    check-doc-coverage.py SYMBOL_GRAPH_DIR MODULE...

Reads MODULE.symbols.json (and MODULE@Other.symbols.json, extensions of other modules'
types) from SYMBOL_GRAPH_DIR, as `swift package dump-symbol-graph` writes them. Members
that the compiler synthesizes or that a type inherits (a protocol's default
implementation shown on a conforming type) are skipped: their documentation lives where
they are declared. Underscored names (`_OptionalStorable`) are not public API.
"""
import json
import pathlib
import sys


def symbols(directory, module):
    for path in sorted(pathlib.Path(directory).glob(f"{module}*.symbols.json")):
        stem = path.name[: -len(".symbols.json")]
        if stem != module and not stem.startswith(module + "@"):
            continue
        graph = json.loads(path.read_text())
        for symbol in graph.get("symbols", []):
            yield path.name, symbol


def undocumented(directory, module):
    missing = []
    for file, symbol in symbols(directory, module):
        identifier = symbol["identifier"]["precise"]
        kind = symbol["kind"]["identifier"]
        if "::SYNTHESIZED::" in identifier or kind == "swift.extension":
            continue
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        path = symbol.get("pathComponents", [])
        if any(component.startswith("_") for component in path):
            continue
        comment = symbol.get("docComment", {}).get("lines", [])
        if any(line.get("text", "").strip() for line in comment):
            continue
        location = symbol.get("location", {})
        where = location.get("uri", file).split("/Sources/")[-1]
        line = location.get("position", {}).get("line", -1) + 1
        missing.append(f"Sources/{where}:{line}: {'.'.join(path)} ({kind}) has no documentation comment")
    return missing


def main():
    directory, modules = sys.argv[1], sys.argv[2:]
    failures = []
    for module in modules:
        failures += undocumented(directory, module)
    for failure in sorted(set(failures)):
        print(f"error: {failure}", file=sys.stderr)
    print(f"doc coverage: {len(set(failures))} undocumented public symbols in {', '.join(modules)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
