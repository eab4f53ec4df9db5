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

from trajectory_platform.gym.python_trees import walked

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


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


class _Scope:
    """One of Python's scopes: the names it binds, each with every value it takes, and the names
    it declares ``global`` or ``nonlocal``."""

    def __init__(self, parent: _Scope | None, kind: str) -> None:
        self.parent = parent
        self.kind = kind  # "module", "function", "class" or "comprehension"
        self.own: dict[str, list[ast.AST]] = {}
        self.outer: dict[str, str] = {}

    def binder(self, name: str) -> _Scope:
        """The scope a binding of ``name`` here lands in (``global``/``nonlocal`` send it out)."""
        declared = self.outer.get(name)
        scope: _Scope = self
        if declared == "global":
            while scope.parent is not None:
                scope = scope.parent
        elif declared == "nonlocal":
            parent = self.parent
            while (
                parent is not None
                and parent.parent is not None
                and (parent.kind != "function" or name not in parent.own)
            ):
                parent = parent.parent
            scope = parent if parent is not None else self
        return scope


_Event = tuple[_Scope, ast.AST, ast.AST | None]
"""A binding: the scope it is made in, its target and its value."""


class Bindings:
    """Every value each name of a module is bound to, kept per scope as Python keeps it (a
    function, a lambda, a class body and a comprehension each bind their own names; ``global``
    and ``nonlocal`` bind outside): a name read from a file in one function is not the same
    name in another (fxforge6 kept one module-wide map, and 6 of 500 installed files were
    flagged through a name another function read from a file). A name a loop builds
    (``n += chr(ord(c) ^ 1)``) is read through every value it takes."""

    def __init__(self, tree: ast.AST) -> None:
        self._module = _Scope(None, "module")
        self._scope_of: dict[int, _Scope] = {}
        self.bound_anywhere: set[str] = set()
        events: list[_Event] = []
        pending: list[tuple[ast.AST, _Scope]] = [(tree, self._module)]
        while pending:  # a stack, not recursion: a long chain of `+` nests as deep as it is long
            node, scope = pending.pop()
            pending += self._visit(node, scope, events)
        for scope, target, value in events:
            for part in walked(target):
                if isinstance(part, ast.Name):
                    self._bind(scope, part.id, value)

    def _bind(self, scope: _Scope, name: str, value: ast.AST | None) -> None:
        values = scope.binder(name).own.setdefault(name, [])
        if value is not None:
            values.append(value)
        self.bound_anywhere.add(name)

    def _visit(self, node: ast.AST, scope: _Scope, events: list[_Event]) -> list[tuple[ast.AST, _Scope]]:
        """Record the scope ``node`` is read in and the binding it makes (its scope, target and
        value); return its children, each with the scope it is read in."""
        self._scope_of[id(node)] = scope
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            outside: list[ast.AST] = list(getattr(node, "decorator_list", []))
            if isinstance(node, _FUNCTIONS):
                outside += [d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None]
            else:
                outside += [*node.bases, *(keyword.value for keyword in node.keywords)]
            children = [(child, scope) for child in outside]
            inner = _Scope(scope, "class" if isinstance(node, ast.ClassDef) else "function")
            if isinstance(node, _FUNCTIONS):
                arguments = node.args
                for parameter in (
                    *arguments.posonlyargs,
                    *arguments.args,
                    *arguments.kwonlyargs,
                    *(a for a in (arguments.vararg, arguments.kwarg) if a is not None),
                ):
                    inner.own.setdefault(parameter.arg, [])  # a parameter: its values are the callers'
            body = [node.body] if isinstance(node, ast.Lambda) else node.body
            return children + [(child, inner) for child in body]
        if isinstance(node, _COMPREHENSIONS):
            inner = _Scope(scope, "comprehension")
            children = []
            for position, generator in enumerate(node.generators):
                self._scope_of[id(generator)] = inner
                children.append((generator.iter, scope if position == 0 else inner))
                events.append((inner, generator.target, generator.iter))
                children += [(child, inner) for child in (generator.target, *generator.ifs)]
            elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            return children + [(child, inner) for child in elements]
        if isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                scope.outer[name] = "global" if isinstance(node, ast.Global) else "nonlocal"
        elif isinstance(node, ast.Assign):
            events += [(scope, target, node.value) for target in node.targets]
        elif isinstance(node, ast.AugAssign):  # `n ^= k` is `n = n ^ k`; `n += piece` adds a piece
            added = isinstance(node.op, ast.Add)
            value = node.value if added else ast.BinOp(node.target, node.op, node.value)
            events.append((scope, node.target, value))
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            events.append((scope, node.target, node.value))
        elif isinstance(node, ast.NamedExpr):  # `:=` in a comprehension binds in the function around it
            home = scope
            while home.kind == "comprehension" and home.parent is not None:
                home = home.parent
            events.append((home, node.target, node.value))
        elif isinstance(node, ast.For | ast.AsyncFor):
            events.append((scope, node.target, node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            events.append((scope, node.optional_vars, node.context_expr))
        return [(child, scope) for child in ast.iter_child_nodes(node)]

    def values(self, name: ast.Name) -> list[ast.AST] | None:
        """The values ``name`` takes where it is read: the innermost scope binding it, as Python
        looks it up (a class body is not seen from its methods); None when no scope it can see
        binds it."""
        scope: _Scope | None = self._scope_of.get(id(name), self._module)
        first = True
        while scope is not None:
            declared = scope.outer.get(name.id)
            if declared is not None:
                return scope.binder(name.id).own.get(name.id)
            if (first or scope.kind != "class") and name.id in scope.own:
                return scope.own[name.id]
            scope, first = scope.parent, False
        return None


def bindings_of(tree: ast.AST) -> Bindings:
    """The values each name of ``tree`` is bound to, per scope (:class:`Bindings`)."""
    return Bindings(tree)


def _values_of(name: ast.Name, names: Mapping[str, ast.AST], bindings: Bindings) -> list[ast.AST]:
    """What ``name`` may hold: its single binding or the argument a caller gives (``names``),
    unless only a scope it cannot see binds it; otherwise every value its own scope binds."""
    found = bindings.values(name)
    if name.id in names and (found is not None or name.id not in bindings.bound_anywhere):
        return [names[name.id]]
    return list(found or ())


def deciphered(
    node: ast.AST,
    names: Mapping[str, ast.AST],
    bindings: Bindings,
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
        return any(walk(value, seen | {node.id}) for value in _values_of(node, names, bindings))
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
    bindings: Bindings,
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
    for part in walked(node):
        if isinstance(part, ast.Call):
            func = part.func
            if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in readers:
                return True
        if isinstance(part, ast.Name) and part.id not in seen:
            values = _values_of(part, names, bindings)
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
