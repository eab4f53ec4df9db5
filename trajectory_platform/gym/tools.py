"""Tool manifests: versioned JSON-Schema tool families over one set of abstract workspace operations.

Every fixture acts on a workspace through five abstract operations (``list``, ``read``, ``edit``,
``write``, ``run_tests``). A *tool family* is one concrete interface to them: the classic
``read_file(file_path)``, the renamed ``read_file(target_uri)`` of fine-tuning 16.7, a combined
``fs(op, path)``, and a fully aliased ``cat(doc)`` family. Keeping the operations abstract lets the
scripted expert, fault injection and schema drift work identically on every family, while the model
only ever sees (and is validated against) the concrete schema delivered at that turn.

A tool may also take *optional* arguments with a documented default (``OPTIONAL_ROLES``): the
``path`` family's ``read_file`` accepts ``max_lines`` (default: the whole file), and every family's
read accepts ``match`` (only the lines containing a text, as ``grep -F`` would show them). The
learnable family's expert reads with ``match`` (issue 17): the value a question names is then the
last token of the last observation, a copy a small model learns, where picking one line of a file
by a name given in the prompt is a lookup the 3-layer default never learned (docs/training.md).
Other optional arguments exist so that a policy may use one and so that schema augmentation's
"remove an optional argument" (fine-tuning 16.7.1, table 9) has a real option to remove, whose
absence the runtime answers differently.

A manifest is versioned: schema drift (a fault class) moves a family from ``1.0`` to ``2.0`` by
renaming its path argument, so a policy that memorized the old key gets refused.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.traces.record import ToolSpec, canonical_json

OPS = ("list", "read", "edit", "write", "run_tests")
"""Abstract workspace operations; ``list``/``read``/``run_tests`` are read-only diagnostics."""

ROLES = ("path", "old", "new", "content")
"""Abstract argument roles an operation takes (``run_tests`` takes none)."""

OP_ROLES: dict[str, tuple[str, ...]] = {
    "list": ("path",),
    "read": ("path",),
    "edit": ("path", "old", "new"),
    "write": ("path", "content"),
    "run_tests": (),
}


OPTIONAL_ROLES: dict[str, dict[str, dict[str, Any]]] = {
    "read": {
        "max_lines": {
            "type": "integer",
            "minimum": 1,
            "description": "show at most this many lines (default: the whole file)",
        },
        "match": {
            "type": "string",
            "description": "show only the lines containing this text (default: every line)",
        },
    },
}
"""Per operation: optional argument roles and their JSON Schema (the default is the runtime's
behaviour when the argument is absent)."""


def sha256_digest(text: str) -> str:
    """``sha256:<hex>`` of a UTF-8 string: the digest form every lineage field uses here."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ToolDef:
    """One concrete tool: its name, which op(s) it performs and which key carries each role.

    ``op`` is fixed for single-purpose tools; a multiplexed tool (``fs``) names the argument that
    selects the op in ``op_key`` and maps the accepted values with ``op_values``. ``options``
    names the optional roles of :data:`OPTIONAL_ROLES` this (single-purpose) tool accepts; each is
    its own key.
    """

    name: str
    description: str
    keys: dict[str, str]
    op: str | None = None
    op_key: str | None = None
    op_values: dict[str, str] = field(default_factory=dict)
    options: tuple[str, ...] = ()

    def ops(self) -> tuple[str, ...]:
        return (self.op,) if self.op else tuple(self.op_values.values())

    def options_for(self, op: str) -> tuple[str, ...]:
        """The optional roles this tool accepts for ``op`` (a multiplexed tool's option applies only
        to the op that declares it in :data:`OPTIONAL_ROLES`)."""
        return tuple(o for o in self.options if o in OPTIONAL_ROLES.get(op, {}))

    def _option_properties(self) -> dict[str, Any]:
        """The schema of each optional role this tool accepts (of the op that takes it)."""
        return {o: dict(OPTIONAL_ROLES[op][o]) for op in self.ops() for o in self.options_for(op)}

    def parameters(self) -> dict[str, Any]:
        """The JSON Schema of this tool's arguments (strict: unknown keys are refused)."""
        if self.op is not None:
            roles = OP_ROLES[self.op]
            props: dict[str, Any] = {
                self.keys[r]: {"type": "string", "description": _ROLE_DOC[r]} for r in roles
            }
            props.update(self._option_properties())
            return {
                "type": "object",
                "properties": props,
                "required": [self.keys[r] for r in roles],
                "additionalProperties": False,
            }
        assert self.op_key is not None
        used = sorted({r for op in self.op_values.values() for r in OP_ROLES[op]}, key=ROLES.index)
        props = {self.op_key: {"type": "string", "enum": sorted(self.op_values), "description": "operation"}}
        props.update({self.keys[r]: {"type": "string", "description": _ROLE_DOC[r]} for r in used})
        props.update(self._option_properties())
        conditions = [
            {
                "if": {"properties": {self.op_key: {"const": value}}},
                "then": {"required": [self.keys[r] for r in OP_ROLES[op]]},
            }
            for value, op in sorted(self.op_values.items())
            if OP_ROLES[op]
        ]
        return {
            "type": "object",
            "properties": props,
            "required": [self.op_key],
            "additionalProperties": False,
            "allOf": conditions,
        }


_ROLE_DOC = {
    "path": "workspace-relative path",
    "old": "exact text to replace (must occur once)",
    "new": "replacement text",
    "content": "full new file content",
}


@dataclass(frozen=True)
class Manifest:
    """A versioned tool manifest: what the runtime delivers and validates against."""

    family: str
    version: str
    tools: tuple[ToolDef, ...]

    def specs(self) -> list[ToolSpec]:
        """The tools as delivered in a trace (canonical-JSON parameters, version)."""
        return [
            ToolSpec(
                name=t.name,
                description=t.description,
                parameters_json=canonical_json(t.parameters()),
                version=f"{self.family}@{self.version}",
            )
            for t in self.tools
        ]

    @property
    def tag(self) -> str:
        return f"{self.family}@{self.version}"

    @property
    def digest(self) -> str:
        """Content digest over the delivered specs (the lineage ``tool_manifest_digest``)."""
        return sha256_digest(canonical_json([s.__dict__ for s in self.specs()]))

    def tool(self, name: str) -> ToolDef | None:
        return next((t for t in self.tools if t.name == name), None)

    def tool_for_op(self, op: str) -> ToolDef:
        return next(t for t in self.tools if op in t.ops())

    def render(self, op: str, roles: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Concrete ``(tool name, arguments)`` for an abstract op: how a policy that reads this
        manifest would phrase the call. Optional roles in ``roles`` the tool accepts are passed on."""
        tool = self.tool_for_op(op)
        args: dict[str, Any] = {}
        if tool.op_key is not None:
            args[tool.op_key] = next(v for v, o in sorted(tool.op_values.items()) if o == op)
        for role in OP_ROLES[op]:
            args[tool.keys[role]] = roles[role]
        args.update({o: roles[o] for o in tool.options_for(op) if o in roles})
        return tool.name, args

    def interpret(self, name: str, args: dict[str, Any]) -> tuple[str, dict[str, str]]:
        """Abstract ``(op, roles)`` of a call that already validated against this manifest; an
        optional role appears only when the call passed it (absent = the tool's default)."""
        tool = self.tool(name)
        if tool is None:
            raise KeyError(name)
        if tool.op is not None:
            op = tool.op
        elif tool.op_key is not None:
            op = tool.op_values[str(args[tool.op_key])]
        else:
            raise ValueError(f"tool {name} names neither an op nor an op_key")
        roles = {role: str(args[tool.keys[role]]) for role in OP_ROLES[op]}
        roles.update({o: str(args[o]) for o in tool.options_for(op) if o in args})
        return op, roles

    def keys(self) -> set[str]:
        """Every argument key this manifest declares (for parametric-recall measurements)."""
        return {k for t in self.tools for k in t.parameters()["properties"]}


def _single(name: str, op: str, description: str, options: tuple[str, ...] = (), **keys: str) -> ToolDef:
    return ToolDef(name=name, description=description, keys=keys, op=op, options=options)


_RUN_TESTS_DOC = "run the repository's test suite and show the results"


def _family_tools(family: str, path_key: str) -> tuple[ToolDef, ...]:
    if family == "path":
        return (
            _single("list_files", "list", "list files under a directory", path="path"),
            _single("read_file", "read", "read a text file", options=("max_lines", "match"), path=path_key),
            _single(
                "edit_file",
                "edit",
                "replace one exact snippet in a file",
                path=path_key,
                old="old",
                new="new",
            ),
            _single("write_file", "write", "create or overwrite a file", path=path_key, content="content"),
            _single("run_tests", "run_tests", _RUN_TESTS_DOC),
        )
    if family == "uri":
        return (
            _single("list_dir", "list", "list files under a directory", path=path_key),
            _single("read_file", "read", "read a text file", options=("match",), path=path_key),
            _single(
                "replace_text",
                "edit",
                "replace one exact snippet in a file",
                path=path_key,
                old="find",
                new="replace_with",
            ),
            _single("write_file", "write", "create or overwrite a file", path=path_key, content="text"),
            _single("run_tests", "run_tests", _RUN_TESTS_DOC),
        )
    if family == "fs":
        return (
            ToolDef(
                name="fs",
                description="file system access: list, read, edit or write",
                keys={"path": path_key, "old": "old", "new": "new", "content": "content"},
                op_key="op",
                op_values={"list": "list", "read": "read", "edit": "edit", "write": "write"},
                options=("match",),
            ),
            _single("run_tests", "run_tests", _RUN_TESTS_DOC),
        )
    if family == "alias":
        # Every operation declared at a place no other family gives it (path and uri: list, read,
        # edit, write, tests; fs: fs, tests): a policy that learned where the read tool sits
        # cannot pass the renamed regime without reading the block (a test holds it).
        return (
            _single("check", "run_tests", "run the checks and show the results"),
            _single("save", "write", "save a document", path=path_key, content="body"),
            _single("cat", "read", "show a document", options=("match",), path=path_key),
            _single(
                "patch",
                "edit",
                "swap one exact snippet in a document",
                path=path_key,
                old="before",
                new="after",
            ),
            _single("ls", "list", "list documents in a folder", path="folder"),
        )
    raise ValueError(f"unknown tool family {family!r}")


TOOL_FAMILIES = ("path", "uri", "fs", "alias")
"""Concrete interfaces: ``read_file(file_path)``, ``read_file(target_uri)``, ``fs(op, path)``,
and a fully renamed ``cat(doc)`` family for renamed-schema evaluation."""

_PATH_KEYS = {
    "path": ("file_path", "target_uri"),
    "uri": ("target_uri", "uri"),
    "fs": ("path", "location"),
    "alias": ("doc", "name"),
}
"""Per family: the path key of version 1.0 and the key schema drift renames it to in 2.0."""

MANIFEST_VERSIONS = ("1.0", "2.0")


def manifest(family: str, version: str = "1.0") -> Manifest:
    """The manifest of ``family`` at ``version`` (``2.0`` = after schema drift)."""
    if version not in MANIFEST_VERSIONS:
        raise ValueError(f"unknown manifest version {version!r}")
    key = _PATH_KEYS[family][MANIFEST_VERSIONS.index(version)]
    return Manifest(family=family, version=version, tools=_family_tools(family, key))


def drifted(current: Manifest) -> Manifest:
    """The next manifest version of the same family (the schema-drift fault)."""
    return manifest(current.family, "2.0")


def _path_keys_by_tool() -> dict[str, frozenset[str]]:
    keys: dict[str, set[str]] = {}
    for family in TOOL_FAMILIES:
        for version in MANIFEST_VERSIONS:
            for tool in manifest(family, version).tools:
                if "path" in tool.keys:
                    keys.setdefault(tool.name, set()).add(tool.keys["path"])
    return {name: frozenset(found) for name, found in sorted(keys.items())}


PATH_KEYS_BY_TOOL = _path_keys_by_tool()
"""Per gym tool name, the keys any manifest passes it a workspace path under (each family, before
and after drift): ``cat``'s ``doc`` and ``name`` are paths, another tool's ``name`` need not be."""


READ_OPS = frozenset({"list", "read", "run_tests"})
"""The ops that change nothing in the workspace: they show it (a listing, a file, a test run)."""


def _tools_by_name() -> dict[str, tuple[ToolDef, ...]]:
    found: dict[str, list[ToolDef]] = {}
    for family in TOOL_FAMILIES:
        for version in MANIFEST_VERSIONS:
            for tool in manifest(family, version).tools:
                found.setdefault(tool.name, []).append(tool)
    return {name: tuple(tools) for name, tools in sorted(found.items())}


_TOOLS_BY_NAME = _tools_by_name()


def reads_only(name: str, arguments: dict[str, Any]) -> bool:
    """Whether a call of the gym tool ``name`` only shows the workspace (its op is one of
    :data:`READ_OPS` under every manifest declaring the tool): what dedup may count once when it is
    repeated with nothing changed in between. A name no manifest declares, or an op the call
    does not name, is not."""
    tools = _TOOLS_BY_NAME.get(name, ())
    ops = {
        tool.op if tool.op is not None else tool.op_values.get(str(arguments.get(tool.op_key or "")))
        for tool in tools
    }
    return bool(ops) and ops <= READ_OPS
