"""Whether a computed name is *deciphered*: built by a transformation of its own rather than read,
selected and joined with separators.

A module's name a resolver is given (``importlib.import_module(x)``, ``__import__(x)``) or an
attribute name given to ``getattr`` on an imported module is honest plugin loading when it is read
(a data file, a setting, a parameter), picked (an entry, a field, a slice), case-folded, stripped
or joined with separators (``'calc.' + cfg['backend']``, ``'.'.join(parts)``,
``name.replace('-', '_')``). Red team (session 46): a name a data file holds enciphered (char codes,
XOR with a constant, a shifted alphabet, a lookup table, pieces joined) and deciphered by the code
on its way into a resolver named ``gc`` or ``__main__`` in the judge's worker while the file
showed neither. The screens inverted the ciphers they knew (reversed, rot13, hex, base64 of a
word); a cipher of the code's own has no inverse to try, so the transformation itself is the
evidence: nobody turns a module's name through ``chr``/``ord``, arithmetic, a comprehension, a
codec or a slice with a step but to hide which module it is.

The reading is an allow-list (:func:`deciphered`): what is not read, picked, folded or joined
with a separator is a transformation. A call of an unknown function given a computed argument
counts as one (it may be the cipher); a call given constants or nothing is a getter and is read.
It judges names a file the code reads gives (:func:`reads_data`): judging every name flagged 40 of
500 installed files (plugin loaders over tables, paths and callers' names).
"""

from __future__ import annotations

import ast
import codecs
from collections.abc import Callable, Mapping, Sequence

_PLAIN_METHODS = frozenset(
    {
        "strip", "lstrip", "rstrip", "lower", "upper", "casefold", "split", "rsplit", "partition",
        "rpartition", "removeprefix", "removesuffix", "splitlines", "get", "getenv", "format", "str",
        "fspath", "Path", "PurePath", "PurePosixPath", "basename",
        "dirname", "splitext", "join", "relpath", "normpath", "with_suffix", "relative_to",
        "as_posix", "resolve", "items", "keys", "values", "pop", "setdefault", "getattr",
        "with_name", "open", "read", "read_text", "read_bytes", "readline", "readlines", "load",
        "loads", "safe_load", "get_data", "read_file", "read_string", "getvalue", "ConfigParser",
        "RawConfigParser",
    }
)  # fmt: skip
"""Calls that read, pick or reshape a name without enciphering it (a path's parts, a setting, a
table's entry, white space and case). ``join`` is plain with a separator (:func:`_plain_join`),
``replace`` with separators (:data:`_SEPARATORS`)."""
_SEPARATORS = frozenset({"", ".", "/", "\\", "-", "_", ":", " ", "\n", "\t", ","})
"""What ``replace`` may swap in a plain reading (a path's ``/`` for a module's ``.``)."""
_IDENTITY = frozenset({"__name__", "__package__", "__spec__", "__file__"})
"""The module's identity: ``__package__ + name`` joins a relative name to its package."""
_DEPTH = 12


def bindings_of(tree: ast.AST) -> dict[str, list[ast.AST]]:
    """Every value each name of ``tree`` is bound to (assignment, augmented and annotated
    assignment, ``:=``, ``for`` and ``with`` targets take their iterable and context): a name a
    loop builds (``n += chr(ord(c) ^ 1)``) is read through all of them."""
    found: dict[str, list[ast.AST]] = {}

    def bind(target: ast.AST, value: ast.AST) -> None:
        for part in ast.walk(target):
            if isinstance(part, ast.Name):
                found.setdefault(part.id, []).append(value)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                bind(target, node.value)
        elif isinstance(node, ast.AugAssign):  # `n ^= k` is `n = n ^ k`; `n += piece` adds a piece
            added = isinstance(node.op, ast.Add)
            bind(node.target, node.value if added else ast.BinOp(node.target, node.op, node.value))
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            bind(node.target, node.value)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            bind(node.target, node.iter)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bind(node.optional_vars, node.context_expr)
    return found


def deciphered(
    node: ast.AST,
    names: Mapping[str, ast.AST],
    bindings: Mapping[str, Sequence[ast.AST]],
    depth: int = 0,
    seen: frozenset[str] = frozenset(),
) -> bool:
    """Whether the text ``node`` evaluates to is computed by a transformation beyond reading,
    picking, case and white space and joining with separators (see the module's docstring).
    ``names``: the names bound once (a helper's returns are read by the caller, who expands them);
    ``bindings``: every value each name takes (:func:`bindings_of`)."""
    if depth > _DEPTH:
        return False

    def walk(child: ast.AST, also: frozenset[str] = seen) -> bool:
        return deciphered(child, names, bindings, depth + 1, also)

    if isinstance(node, ast.Constant):
        return False
    if isinstance(node, ast.Name):
        if node.id in seen:
            return False
        values = [names[node.id]] if node.id in names else list(bindings.get(node.id, ()))
        return any(walk(value, seen | {node.id}) for value in values)
    if isinstance(node, ast.Attribute | ast.Starred | ast.FormattedValue):
        return walk(node.value)
    if isinstance(node, ast.Subscript):
        step = node.slice.step if isinstance(node.slice, ast.Slice) else None
        return step is not None or walk(node.value)
    if isinstance(node, ast.IfExp):
        return walk(node.body) or walk(node.orelse)
    if isinstance(node, ast.BoolOp):
        return any(walk(value) for value in node.values)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return any(walk(element) for element in node.elts)
    if isinstance(node, ast.Dict):
        return any(walk(value) for value in node.values)
    if isinstance(node, ast.JoinedStr):
        return _pieces_abut(node.values) or any(walk(value) for value in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return walk(node.left) or walk(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        pieces = _added(node)
        return _pieces_abut(pieces) or any(walk(piece) for piece in pieces)
    if isinstance(node, ast.Call):
        return _deciphering_call(node, walk)
    return True  # arithmetic, comprehensions, lambdas, comparisons: the name is computed


def reads_data(
    node: ast.AST,
    names: Mapping[str, ast.AST],
    bindings: Mapping[str, Sequence[ast.AST]],
    readers: frozenset[str],
    depth: int = 0,
    seen: frozenset[str] = frozenset(),
) -> bool:
    """Whether ``node``'s value comes from a file the code reads (a call named in ``readers``),
    through every value each name it reads is bound to: the rule judges a name a data file keeps
    (installed code computes plugin names from tables, loops and helpers all the time, and a name
    a setting or a caller gives is theirs, not the code's secret)."""
    if depth > _DEPTH:
        return False
    for part in ast.walk(node):
        if isinstance(part, ast.Call):
            func = part.func
            if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in readers:
                return True
        if isinstance(part, ast.Name) and part.id not in seen:
            values = [names[part.id]] if part.id in names else list(bindings.get(part.id, ()))
            if any(reads_data(v, names, bindings, readers, depth + 1, seen | {part.id}) for v in values):
                return True
    return False


def _separator(node: ast.expr) -> str | None:
    """A constant's text, and the path separator for ``os.sep``/``os.altsep``/``os.path.sep``."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    return "/" if isinstance(node, ast.Attribute) and node.attr in ("sep", "altsep") else None


def _added(node: ast.expr) -> list[ast.expr]:
    """The operands of a chain of ``+`` in order."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _added(node.left) + _added(node.right)
    return [node]


def _pieces_abut(pieces: Sequence[ast.expr]) -> bool:
    """Two computed pieces joined with nothing between them (``cfg['a'] + cfg['b']``,
    ``f'{x}{y}'``): a name assembled from parts, where a plain one puts a separator between a
    package and a module (``pkg + '.' + name``); the module's identity (``__package__ + name``)
    is a prefix, not a piece."""
    computed = [
        not isinstance(piece, ast.Constant)
        and not (isinstance(piece, ast.Name) and piece.id in _IDENTITY)
        and not (isinstance(piece, ast.Attribute) and _root_name(piece) in _IDENTITY)
        for piece in pieces
    ]
    return any(a and b for a, b in zip(computed, computed[1:], strict=False))


def _root_name(node: ast.AST) -> str:
    while isinstance(node, ast.Attribute | ast.FormattedValue):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _charset_or_handler(value: object) -> bool:
    """A charset text is stored in (:data:`_CHARSETS`) or an error handler (``'replace'``): how
    text is kept, not a cipher (``'rot13'``, ``'base64'``, ``'unicode_escape'``, ``'punycode'``,
    ``'cp500'``'s EBCDIC turn one text into another)."""
    if not isinstance(value, str):
        return False
    if value in ("strict", "ignore", "replace", "surrogateescape", "backslashreplace"):
        return True
    try:
        return codecs.lookup(value).name in _CHARSETS
    except LookupError:
        return False


_CHARSETS = frozenset(
    {"utf-8", "utf-8-sig", "ascii", "iso8859-1", "cp1252", "utf-16", "utf-16-le", "utf-16-be", "utf-32"}
)
"""Charsets a file's text is stored in, by ``codecs``' own names (``latin-1`` is ``iso8859-1``)."""


def _plain_join(call: ast.Call) -> bool:
    """``sep.join(parts)`` with a separator (``'.'.join(parts)``): an empty one assembles pieces."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Constant)
        and isinstance(func.value.value, str)
        and func.value.value != ""
    ) or (isinstance(func, ast.Attribute) and _root_name(func.value) in ("os", "posixpath", "path"))


def _deciphering_call(call: ast.Call, walk: Callable[[ast.AST], bool]) -> bool:
    """Whether a call computes its text: a cipher's builtins, an unknown function given a computed
    argument; a plain method (:data:`_PLAIN_METHODS`) is read through its receiver and arguments."""
    func = call.func
    tail = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    arguments = [*call.args, *(keyword.value for keyword in call.keywords)]
    if tail == "join":
        return not _plain_join(call) or any(walk(argument) for argument in arguments)
    if tail == "replace":
        swapped = [_separator(a) for a in call.args[:2]]
        if not all(isinstance(s, str) and s in _SEPARATORS for s in swapped):
            return True
        return isinstance(func, ast.Attribute) and walk(func.value)
    if tail in ("decode", "encode"):
        charsets = [a.value for a in arguments if isinstance(a, ast.Constant)]
        if len(charsets) < len(arguments) or not all(map(_charset_or_handler, charsets)):
            return True
        return isinstance(func, ast.Attribute) and walk(func.value)
    if tail in _PLAIN_METHODS:
        receiver = [func.value] if isinstance(func, ast.Attribute) else []
        return any(walk(part) for part in [*receiver, *arguments])
    if tail in ("chr", "ord", "map", "reversed", "sorted", "bytes", "bytearray", "int", "zip"):
        return True
    computed = [a for a in arguments if not isinstance(a, ast.Constant)]
    on_a_value = isinstance(func, ast.Attribute) and not isinstance(func.value, ast.Name | ast.Attribute)
    return bool(computed) or on_a_value
