#!/usr/bin/env python3
"""The project's size rules, checked on the C and CUDA sources (.c .h .cu .cuh) of every folder
of the tree, tests/ included (a build folder, one holding meson-private/, is skipped):

  functions: no host function (.c, .h: kernels/*.c and tests/ included) passes FUNCTION_MAX
    lines. A function's length is counted from the line holding its opening brace to the line
    holding its closing brace, both included (its signature lines and the comment above it are not counted). A function
    is a top-level brace block whose text since the last top-level `;`, `}` or preprocessor line
    ends in a parameter list `(...)`, possibly followed by qualifiers, and holds no `=`: so
    struct, enum and array initialisers are not functions. CUDA device code (.cu, .cuh: the
    kernels and examples/kernels) is left out: a kernel's body is one force-inlined function on
    purpose (its registers and spills are those of one function).
  files: no source file passes FILE_MAX lines, kernels/*.cu included.

usage: test_code_lengths.py SOURCE_ROOT functions|files
Prints each offender as path:line: name (N lines), then a summary; exit 1 when there is one."""
import os, re, sys

FUNCTION_MAX = 100
FILE_MAX = 500
SOURCE_EXT = (".c", ".h", ".cu", ".cuh")


def sources(root):
    for dirpath, dirs, files in os.walk(root):
        # Build trees (meson-private/ marks one), hidden folders (.git) and subprojects are
        # not the project's sources.
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "subprojects"
                         and not os.path.isdir(os.path.join(dirpath, d, "meson-private")))
        for f in sorted(files):
            if f.endswith(SOURCE_EXT):
                yield os.path.relpath(os.path.join(dirpath, f), root)


def strip_code(text):
    """The text with comments, string and character literals blanked (newlines kept), so that
    braces and parentheses inside them are not counted."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


# What may follow a parameter list before the body: const, noexcept, attributes.
TRAILER = re.compile(r"\)\s*(?:(?:const|noexcept|override|__attribute__\s*\(\(.*\)\))\s*)*$", re.S)
NAME = re.compile(r"([A-Za-z_][A-Za-z_0-9:~]*)\s*\($")


def functions(text):
    """(name, line of the opening brace, line of the closing brace) of each top-level function."""
    code = strip_code(text)
    lines = code.split("\n")
    # Preprocessor lines (with their continuations) end a declaration's text, like `;`.
    for k, l in enumerate(lines):
        if re.match(r"\s*#", l):
            lines[k] = ";"
            while l.rstrip().endswith("\\") and k + 1 < len(lines):
                k += 1
                l = lines[k]
                lines[k] = ";"
    code = "\n".join(lines)
    found, depth, head, line, opened = [], 0, [], 1, None
    for c in code:
        if c == "\n":
            line += 1
        if depth == 0:
            if c == "{":
                decl = "".join(head).strip()
                if "=" not in decl and TRAILER.search(decl):
                    # The name is the identifier right before the parameter list's "(".
                    level, k = 0, len(decl) - 1
                    while k >= 0:
                        level += {")": 1, "(": -1}.get(decl[k], 0)
                        if level == 0 and decl[k] == "(":
                            break
                        k -= 1
                    m = NAME.search(decl[:k + 1])
                    opened = (m.group(1) if m else "?", line)
                else:
                    opened = None
                depth, head = 1, []
            elif c in ";}":
                head = []
            else:
                head.append(c)
        else:
            depth += {"{": 1, "}": -1}.get(c, 0)
            if depth == 0:
                if opened:
                    found.append((opened[0], opened[1], line))
                opened, head = None, []
    return found


def self_check():
    """The counter itself, on planted text: a scanner that found nothing would pass any tree."""
    body = lambda n: "\n".join(["  x++; /* { */"] * (n - 2))
    text = ("#define M(a) { a }\nstatic const int t[] = {\n%s\n};\n"
            "static int f(int x,\n             const char *s) {\n%s\n}\n"
            "int g(void)\n{\n  const char *b = \"}\";\n%s\n}\n"
            % (body(300), body(FUNCTION_MAX), body(FUNCTION_MAX)))
    got = [(name, last - first + 1) for name, first, last in functions(text)]
    want = [("f", FUNCTION_MAX), ("g", FUNCTION_MAX + 1)]
    if got != want:
        sys.exit("test_code_lengths.py miscounts planted functions: %s, not %s" % (got, want))


def main():
    self_check()
    if len(sys.argv) != 3 or sys.argv[2] not in ("functions", "files"):
        sys.exit(__doc__)
    root, mode = sys.argv[1], sys.argv[2]
    bad = []
    for path in sources(root):
        text = open(os.path.join(root, path), encoding="utf-8", errors="replace").read()
        if mode == "files":
            n = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
            if n > FILE_MAX:
                bad.append("%s: %d lines (at most %d)" % (path, n, FILE_MAX))
        elif path.endswith((".c", ".h")):
            for name, first, last in functions(text):
                if last - first + 1 > FUNCTION_MAX:
                    bad.append("%s:%d: %s (%d lines, at most %d from its opening brace to its "
                               "closing brace)" % (path, first, name, last - first + 1, FUNCTION_MAX))
    for b in bad:
        print("too long:", b)
    what = "host function(s)" if mode == "functions" else "file(s)"
    print("ok" if not bad else "%d %s too long: cut them along their seams" % (len(bad), what))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
