#!/usr/bin/env python3
"""Checks that the code in the DocC articles is code that is compiled and tested.

Every ```swift (or ```c) block of every article or landing page in Sources/*/*.docc must appear,
line for line, in one of the files that compile it: a file under Tests/ or examples/ whose
text names the page by its catalog path (`StateGraph.docc/GettingStarted.md`, usually in
its first comment), or a path under Tests/, examples/ or Sources/ that the page itself
names. Indentation and blank lines are ignored, so a block may sit inside a type or a test
function; `import` lines may sit at the top of the file instead. A page with a code block
must be covered by at least one such file, and every file a page names must exist.

Exit status 1, with the page, the block and its first missing line, on any mismatch.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^\s*```(\w*)\s*$")
NAMED = re.compile(r"`((?:Tests|examples|Sources)/[\w./+-]+\.(?:swift|c))`")


def normalized(lines):
    return [line.strip() for line in lines if line.strip()]


def blocks(text):
    """(language, first line number, lines) for each fenced block."""
    found, language, start, body = [], None, 0, []
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if language is None and match:
            language, start, body = match.group(1), number, []
        elif language is not None and line.strip() == "```":
            found.append((language, start, body))
            language = None
        elif language is not None:
            body.append(line)
    return found


def contains(haystack, needle):
    if not needle:
        return True
    first = needle[0]
    for i, line in enumerate(haystack):
        if line == first and haystack[i : i + len(needle)] == needle:
            return True
    return False


def first_missing(haystack, needle):
    """The first line of needle after which the block stops matching anywhere."""
    for length in range(1, len(needle) + 1):
        if not contains(haystack, needle[:length]):
            return needle[length - 1]
    return None


def covering_files():
    """Files under Tests/ and examples/ that may compile article code, with their text."""
    for pattern in ("Tests/**/*.swift", "Tests/**/*.c", "examples/**/*.swift", "examples/**/*.c"):
        for path in ROOT.glob(pattern):
            if ".build" not in path.parts:
                yield path.relative_to(ROOT).as_posix(), path.read_text(errors="replace")


def main():
    pages = sorted(ROOT.glob("Sources/*/*.docc/**/*.md"))
    candidates = list(covering_files())
    failures, checked = [], 0
    for page in pages:
        text = page.read_text()
        swift_blocks = [b for b in blocks(text) if b[0] in ("swift", "c")]
        catalog = next(p for p in page.parents if p.suffix == ".docc")
        catalog_path = page.relative_to(catalog.parent).as_posix()  # X.docc/Page.md
        names = set(NAMED.findall(text))
        names |= {name for name, content in candidates if catalog_path in content}
        names = sorted(names)
        if swift_blocks and not names:
            failures.append(f"{page.relative_to(ROOT)}: has code but no file under Tests/ or examples/ "
                            f"names {catalog_path}")
            continue
        files = {}
        for name in names:
            path = ROOT / name
            if not path.exists():
                failures.append(f"{page.relative_to(ROOT)}: names {name}, which does not exist")
                continue
            files[name] = normalized(path.read_text().splitlines())
        for _, line, body in swift_blocks:
            checked += 1
            code = normalized(body)
            imports = [l for l in code if l.startswith("import ")]
            rest = [l for l in code if not l.startswith("import ")]
            if any(contains(lines, rest) and all(i in lines for i in imports) for lines in files.values()):
                continue
            missing = min(
                (first_missing(lines, rest) or "(an import)" for lines in files.values()),
                key=lambda l: rest.index(l) if l in rest else -1,
                default="?",
            )
            failures.append(
                f"{page.relative_to(ROOT)}:{line}: block not found in {', '.join(files) or 'any file'}"
                f" (first line that differs: {missing!r})"
            )
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    print(f"doc snippets: {checked} code blocks in {len(pages)} pages checked, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
