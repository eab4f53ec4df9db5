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
import weakref

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


_WALKS: weakref.WeakKeyDictionary[ast.AST, tuple[ast.AST, ...]] = weakref.WeakKeyDictionary()
"""Each walked node's descendants in :func:`ast.walk` order, for as long as the node lives (the
entry holds no reference to its key: the descendants never point back up the tree)."""


def walk_once(node: ast.AST) -> list[ast.AST]:
    """The nodes ``ast.walk(node)`` yields, in its order (breadth first, children in field order),
    as a list computed now; for trees their reader changes in place (the differential's drawn
    copies), where :func:`walked` would hand back a stale order."""
    found = [node]
    append = found.append
    for current in found:  # a list grows under its own iterator: the breadth-first queue
        for name in current._fields:
            try:
                value = getattr(current, name)
            except AttributeError:
                continue
            if isinstance(value, ast.AST):
                append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        append(item)
    return found


def walked(node: ast.AST) -> tuple[ast.AST, ...]:
    """``tuple(ast.walk(node))``, computed once per node for the life of the tree: verification's
    static screens walk the same parsed trees once per pattern family (a third of its host CPU
    went to ``ast.walk``). Only for trees nobody changes after parsing (all of verification's);
    a tree changed in place is walked with :func:`walk_once`."""
    rest = _WALKS.get(node)
    if rest is None:
        rest = _WALKS[node] = tuple(walk_once(node)[1:])
    return (node, *rest)
