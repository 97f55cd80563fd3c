#!/usr/bin/env python3
"""Writes a copy of tui/views.c with one more line in the table of views (View_hello, the view of
tests/tui/view_hello.c): the test build of `benchtop` that proves a view added as one file and
one table line is opened by its key and listed in the help with no other edit.
usage: add_view.py IN OUT"""
import sys

LINE = "  X(View_hello) \\\n"

src = open(sys.argv[1]).read()
end = src.index("  /* end of the views */")
open(sys.argv[2], "w").write(src[:end] + LINE + src[end:])
