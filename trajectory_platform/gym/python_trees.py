"""``ast.parse``, safe from worker threads: the one way the gym's and verification's code parses Python.

CPython 3.11 keeps the AST constructor's recursion depth in interpreter-wide state, so when a
garbage collection runs a finalizer in the middle of one thread's parse, another thread's parse
can interleave and the first fails with ``SystemError: AST constructor recursion depth mismatch``
(python/cpython#106905); an honest episode would stop the whole verification run (it did, once the
differential check parsed the sealed tests from the pool's threads). Our own parses hold one lock.
Parses we do not own can still interleave: 3.11's ``traceback`` parses source lines to draw its
carets, and a finalizer that logs an exception formats one. The check fails only the parse it
interrupted and the source is unchanged, so that parse is simply tried again.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()
_RACE = "AST constructor recursion depth mismatch"
_TRIES = 10


def parse_tree(source: str | bytes) -> ast.Module:
    """``ast.parse(source)`` under the lock, tried again when another thread's parse interrupted it;
    a ``SyntaxError`` is raised as ``ast.parse`` raises it."""
    for _ in range(_TRIES - 1):
        try:
            with _LOCK:
                return ast.parse(source)
        except SystemError as exc:
            if _RACE not in str(exc):
                raise
    with _LOCK:
        return ast.parse(source)
