"""Code that changes the files beside it: the module's own source or a marker next to it
(code ``own_file_write``).

Every verifier run imports the candidate from a fresh copy of the workspace (the oracle's workers,
each differential process), so a module that rewrites its own source on import (putting the bug
back on disk), or leaves a marker file beside itself and behaves otherwise once it exists, is
right in every judged process and wrong in every later one of an ordinary checkout. A red team
(round 8 N12, again rtforge9 F7, 2026-12-06) was admitted 5/7 with ``open(__file__, 'w')``,
``Path(__file__).write_text``, a marker ``Path(__file__).with_name(...)``, and the same rewrite
deferred to ``weakref.finalize`` or a ``threading.Timer``. The environment-fact rule calls a read
through ``__file__`` the module's data, rightly; a *write* there is never a fix's business.

The rule: a path computed from the module's location (``__file__``, ``__spec__``, ``__path__``,
``__cached__``, followed through names, function defaults and ``Path`` methods) given to a call
that writes, creates, renames or removes a file (``open`` in a writing mode, ``write_text``,
``touch``, ``unlink``, ``os.replace``, ``shutil.copy``'s destination ...). Statically, wherever the
call sits (import time, a helper, an exit or timer callback): when it runs does not matter.
"""

from __future__ import annotations

import ast

from trajectory_platform.gym.python_trees import walked

OWN_LOCATION = frozenset({"__file__", "__spec__", "__path__", "__cached__"})
_WRITE_METHODS = frozenset(
    {"write_text", "write_bytes", "touch", "unlink", "rename", "replace", "rmdir", "mkdir", "symlink_to",
     "hardlink_to", "chmod"}
)  # fmt: skip
"""Methods of a path object that change the file system at that path."""
_WRITE_FUNCTIONS = frozenset(
    {"remove", "unlink", "rename", "replace", "truncate", "utime", "rmdir", "makedirs", "mkdir", "symlink",
     "link", "chmod", "copy", "copy2", "copyfile", "copytree", "move", "rmtree"}
)  # fmt: skip
"""Functions (``os``, ``shutil``) that change the file system at a path argument."""
_OPENERS = frozenset({"open"})
"""``open``, the builtin, ``io.open`` or a path object's."""


_CONTENT_READERS = frozenset({"read_text", "read_bytes", "read", "readline", "readlines"})
"""Methods whose result is what a file holds, not where it is: ``Path(__file__).with_name('x')
.read_text().replace('-', '_')`` is ``str.replace`` on the module's data, no rename."""


def _mentions(node: ast.AST, tainted: set[str]) -> bool:
    """Whether ``node`` computes a path from the module's location (a content reader's result is
    the file's text, not a path: :data:`_CONTENT_READERS`)."""
    pending = [node]
    while pending:
        part = pending.pop()
        if isinstance(part, ast.Name) and (part.id in OWN_LOCATION or part.id in tainted):
            return True
        if (
            isinstance(part, ast.Call)
            and isinstance(part.func, ast.Attribute)
            and part.func.attr in _CONTENT_READERS
        ):
            continue
        pending.extend(ast.iter_child_nodes(part))
    return False


def _tainted_names(tree: ast.AST) -> set[str]:
    """Names bound (assignment, ``with ... as``, ``for``, a parameter's default) to a value computed
    from the module's location, to a fixed point."""
    tainted: set[str] = set()
    for _ in range(6):
        before = len(tainted)
        for node in walked(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                if _mentions(node.value, tainted):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    tainted |= {n.id for t in targets for n in walked(t) if isinstance(n, ast.Name)}
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                if _mentions(node.context_expr, tainted):
                    tainted |= {n.id for n in walked(node.optional_vars) if isinstance(n, ast.Name)}
            elif isinstance(node, ast.arguments):
                positional = [*node.posonlyargs, *node.args]
                pairs = list(
                    zip(positional[len(positional) - len(node.defaults) :], node.defaults, strict=True)
                )
                pairs += [
                    (a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True) if d is not None
                ]
                tainted |= {arg.arg for arg, default in pairs if _mentions(default, tainted)}
        if len(tainted) == before:
            break
    return tainted


def writing_open(call: ast.Call, mode_position: int = 1) -> bool:
    """Whether an ``open`` call's mode (at ``mode_position``: 1 for ``open(path, mode)``, 0 for
    ``path.open(mode)``, or ``mode=``) writes, appends, creates or updates."""
    modes = [*call.args[mode_position : mode_position + 1]]
    modes += [k.value for k in call.keywords if k.arg == "mode"]
    return any(
        isinstance(m, ast.Constant) and isinstance(m.value, str) and bool(set(m.value) & set("wax+"))
        for m in modes
    )


def own_file_writes(tree: ast.AST) -> int:
    """Calls that write, create, rename or remove a path computed from the module's own location."""
    tainted = _tainted_names(tree)
    count = 0
    for node in walked(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        arguments = [*node.args, *(k.value for k in node.keywords)]
        method = isinstance(func, ast.Attribute) and _mentions(func.value, tainted)
        if name in _OPENERS and method:  # Path(__file__).open('w')
            count += writing_open(node, 0)
        elif name in _OPENERS and node.args and _mentions(node.args[0], tainted):  # open(__file__, 'w')
            count += writing_open(node, 1)
        elif name in _WRITE_METHODS and method:
            count += 1
        elif name in _WRITE_FUNCTIONS:
            count += any(_mentions(argument, tainted) for argument in arguments)
    return count
