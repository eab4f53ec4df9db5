"""Credentials a JSON document names by its structure rather than by the key right before them.

``"password": "x"`` names its value by its key; the assignment rules read that. Two structures name
a value from elsewhere in the document:

- **A schema's property** (JSON Schema, OpenAPI, a tool's ``parameters_json``, an MCP spec): the
  credential is the property's name and the value sits one level down, under ``default``,
  ``example``, ``examples``, ``const``, ``enum`` (``{"api_key": {"type": "string", "default":
  "x"}}``), or a parameter object's ``name`` with its ``example`` (OpenAPI ``{"name":
  "auth_token", "in": "header", "example": "x"}``); a property whose ``format`` is ``password``
  counts whatever its name. Tool authors leave real keys there, and the spec is copied into every
  episode that declares the tool.
- **A sibling that names the field typed into** (browser and computer-use tools): ``{"element":
  "Password textbox", "text": "x"}``, ``{"selector": "#password", "value": "x"}``, ``{"xpath":
  "//input[@name='pwd']", "text": "x"}``, ``{"ref": "e12 (password field)", "text": "x"}``. The
  field is named in a value, not a key, and what is typed sits under a neutral key.
- **A table of rows as arrays under a header row** (a spreadsheet API's ``values``, a query result
  as ``[["id", "db_password"], [1, "x"]]``): the header row names each column, and a row's cell
  under a credential's name is one.
- **A table split into its column names and its rows** (a query API's result: ``{"columns":
  ["id", "db_password"], "rows": [[1, "x"]]}``, pandas' ``orient="split"``, Trino's ``columns`` of
  ``{"name": ...}`` with ``data``, Snowflake's ``resultSetMetaData.rowType``, Databricks'
  ``manifest.schema.columns`` beside ``result.data_array``, BigQuery's ``schema.fields`` beside
  ``rows`` of ``{"f": [{"v": ...}]}``): a list of names and a list of rows as long, within one
  object; a row's cell under a credential's name is one.
- **A GraphQL request's variables** (``{"query": "mutation ($p: String!) { login(password: $p)
  }", "variables": {"p": "x"}}``): the query binds a variable to a credential's argument, and
  the value sits under the variable's name, which can be anything.

What is found must still look like a credential on its own (:func:`.positional.credential_shaped`
for a password, a key's shape for a key): the structure says where one would be."""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import KEYWORD_SCAN, credential_class
from trajectory_platform.curation.redact.detectors import acceptable_value, field_named_by
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import credential_shaped

_SCHEMA_VALUE_KEYS = ("default", "example", "examples", "const", "enum", "x-example", "x-examples")
_SCHEMA_PARENTS = frozenset({"properties", "patternProperties"})
TYPED_KEYS = frozenset({"text", "value", "keys", "input", "input_text", "string", "typed_text"})
"""Keys a browser or computer-use tool takes the typed text under."""
_LOCATOR_MAX = 200
"""A locator or label is short; a longer sibling is prose about the page, not the field's name, and
a URL (``/account/reset-password``) names a page, not a field."""


def json_objects(document: object) -> Iterator[dict]:
    """Every object of a parsed JSON ``document``, at any depth (each after the values below it are
    queued): the one walk of the rules that read a document by its structure."""
    return (node for node in json_nodes(document) if isinstance(node, dict))


def json_nodes(document: object) -> Iterator[dict | list]:
    """Every object and array of a parsed JSON ``document``, at any depth."""
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            yield node
        elif isinstance(node, dict):
            stack.extend(node.values())
            yield node


def find_structural_credentials(document: object) -> Iterator[Finding]:
    """Every value a parsed JSON ``document`` names as a credential by its structure (module
    docstring). Offsets are 0: the engine places a JSON document's values by their text."""
    for node in json_nodes(document):
        if isinstance(node, list):
            yield from _header_row_columns(node)
            continue
        yield from _split_table_columns(node)
        for parent in _SCHEMA_PARENTS & node.keys():
            properties = node[parent]
            if isinstance(properties, dict):
                for name, schema in properties.items():
                    yield from _schema_values(name, schema, "keyword:schema")
        if isinstance(node.get("name"), str) and ("in" in node or "schema" in node):
            yield from _schema_values(node["name"], node, "keyword:parameter")
        yield from _typed_into_named_field(node)
        yield from _bound_query_variables(node)


def _header_row_columns(table: list) -> Iterator[Finding]:
    """The cells of a table of rows as arrays (module docstring) under a header that names a
    credential: the first row all names, each other row as long as it."""
    header = table[0] if len(table) > 1 else None
    if not isinstance(header, list) or not header or not all(isinstance(name, str) for name in header):
        return
    yield from _column_cells(header, table[1:])


def _column_cells(header: list[str], rows: list) -> Iterator[Finding]:
    """The cells of ``rows`` (arrays as long as ``header``) under a header name that names a
    credential, each as credential-shaped as that name asks."""
    for index, name in enumerate(header):
        if (name_class := credential_class(name)) is None:
            continue
        kind = "PASSWORD" if name_class == "password" else "SECRET"
        for row in rows:
            if not isinstance(row, list) or len(row) != len(header) or not isinstance(row[index], str):
                continue
            value = row[index]
            if acceptable_value(value, True, name_class, ""):
                yield Finding(kind, 0, len(value), value, "keyword:header_row")


_SPLIT_TABLE_DEPTH = 3
"""How deep under one object its column names and its rows may sit: Databricks puts the names at
``manifest.schema.columns`` and the rows at ``result.data_array``."""


def _split_table_columns(node: dict) -> Iterator[Finding]:
    """The cells of a table split into a list of column names and a list of rows (module
    docstring) within ``node``. Each pair is read at the lowest object holding both: a pair under
    one key of ``node`` is that child's to read."""
    headers: list[tuple[str, list[str]]] = []
    tables: list[tuple[str, list[list]]] = []
    for top, value in _dict_descendants(node):
        if isinstance(value, list) and value:
            if (names := _column_names(value)) is not None:
                headers.append((top, names))
            elif (rows := _rows(value)) is not None:
                tables.append((top, rows))
    for header_top, header in headers:
        for rows_top, rows in tables:
            if header_top != rows_top:
                yield from _column_cells(header, rows)


def _dict_descendants(node: dict) -> Iterator[tuple[str, object]]:
    """Each value under ``node`` reached through objects only, at most :data:`_SPLIT_TABLE_DEPTH`
    keys down, with the first key of its path."""
    stack: list[tuple[str, object, int]] = [(key, value, 1) for key, value in node.items()]
    while stack:
        top, value, depth = stack.pop()
        yield top, value
        if isinstance(value, dict) and depth < _SPLIT_TABLE_DEPTH:
            stack.extend((top, child, depth + 1) for child in value.values())


def _column_names(value: list) -> list[str] | None:
    """A list of column names: strings, or objects each with a ``name`` string."""
    if all(isinstance(item, str) for item in value):
        return value
    names = [item["name"] for item in value if isinstance(item, dict) and isinstance(item.get("name"), str)]
    if len(names) == len(value):
        return names
    return None


def _rows(value: list) -> list[list] | None:
    """A list of rows: arrays, or BigQuery's ``{"f": [{"v": cell}, ...]}``."""
    if all(isinstance(row, list) for row in value):
        return value
    rows = []
    for row in value:
        cells = row.get("f") if isinstance(row, dict) else None
        if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
            return None
        rows.append([cell.get("v") for cell in cells])
    return rows


_ARGUMENT_BINDING = re.compile(r"\b([A-Za-z_]\w*)\s*:\s*\$([A-Za-z_]\w*)")
"""A GraphQL argument or input field given a variable (``password: $p``)."""


def _bound_query_variables(node: dict) -> Iterator[Finding]:
    """The values of a GraphQL request's ``variables`` its ``query`` binds to a credential's
    argument (module docstring); a value must still look like the credential."""
    query, variables = node.get("query"), node.get("variables")
    if not isinstance(query, str) or not isinstance(variables, dict) or "$" not in query:
        return
    for argument, variable in _ARGUMENT_BINDING.findall(query):
        value = variables.get(variable)
        name_class = credential_class(argument)
        if isinstance(value, str) and name_class and acceptable_value(value, True, name_class, ""):
            kind = "PASSWORD" if name_class == "password" else "SECRET"
            yield Finding(kind, 0, len(value), value, "keyword:query_variable")


def _schema_values(name: str, schema: object, detector: str) -> Iterator[Finding]:
    """The literal values a property's ``schema`` gives the credential ``name`` names."""
    if not isinstance(schema, dict):
        return
    name_class = credential_class(name) or ("password" if schema.get("format") == "password" else None)
    if name_class is None:
        return
    for value in _literal_values(schema):
        if acceptable_value(value, True, name_class, ""):
            yield Finding(
                "PASSWORD" if name_class == "password" else "SECRET", 0, len(value), value, detector
            )


def _literal_values(schema: dict) -> Iterator[str]:
    """The strings under a schema's value keys, an OpenAPI ``examples`` map's ``value`` and a
    parameter's own ``schema`` included."""
    for key in _SCHEMA_VALUE_KEYS:
        value = schema.get(key)
        values = value.values() if isinstance(value, dict) else value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, dict):
                item = item.get("value")
            if isinstance(item, str):
                yield item
    inner = schema.get("schema")
    if isinstance(inner, dict):
        yield from _literal_values(inner)


def _typed_into_named_field(node: dict) -> Iterator[Finding]:
    """What a browser tool types (:data:`TYPED_KEYS`) into a field a sibling value names."""
    typed = [(key, value) for key, value in node.items() if key in TYPED_KEYS and isinstance(value, str)]
    if not typed:
        return
    locators = (
        value
        for key, value in node.items()
        if key not in TYPED_KEYS
        and isinstance(value, str)
        and len(value) <= _LOCATOR_MAX
        and "://" not in value
    )
    field_class = field_named_by(" ".join(locators))
    for _key, value in typed if field_class else ():
        if (
            credential_shaped(value)
            if field_class == "password"
            else acceptable_value(value, True, "secret", "")
        ):
            kind = "PASSWORD" if field_class == "password" else "SECRET"
            yield Finding(kind, 0, len(value), value, "keyword:typed_field")


_INSTRUCTION_HINTS = tuple(f"{q} {word}" for q in "\"'`" for word in ("in", "on")) + tuple(
    f"with {q}" for q in "\"'`"
)
"""What an instruction holds where its value ends (``'x' into``, ``'x' on``) or starts (``with
'x'``): searched as plain substrings first, since a case-insensitive pattern is slow in ``re``."""
_TYPED_INSTRUCTION = re.compile(
    r"(?i)\b(?:type|enter|input|put|write|fill\s+in)\s+(?P<q>[\"'`])(?P<value>[^\"'`\n]{4,200})(?P=q)"
    r"\s+(?:in|into|on)\s+(?P<field>[^\n,;!?]{1,60}?)(?:\s+(?:and|then)\b|[\n,;!?]|\.(?:\s|$)|$)"
    r"|\bfill\s+(?:in\s+)?(?P<field2>[^\n.,;:!?\"'`]{1,60}?)\s+with\s+(?P<q2>[\"'`])(?P<value2>[^\"'`\n]{4,200})(?P=q2)"
)


def find_typed_instructions(text: str) -> Iterator[Finding]:
    """A value an instruction to a browser agent types into a credential field: Stagehand's
    ``act("type 'x' into the password field")``, "fill the API key box with 'x'". The field is
    named after the value, in words (:func:`field_named_by`); a password must look like one on its
    own evidence, since instructions type search words too."""
    if not any(hint in text for hint in _INSTRUCTION_HINTS):
        return
    for match in _TYPED_INSTRUCTION.finditer(text):
        group = "value" if match.group("value") is not None else "value2"
        name_class = field_named_by(match.group("field") or match.group("field2"))
        value = match.group(group)
        if (
            name_class
            and acceptable_value(value, True, name_class, "")
            and (name_class != "password" or credential_shaped(value))
        ):
            kind = "PASSWORD" if name_class == "password" else "SECRET"
            yield Finding(kind, match.start(group), match.end(group), value, "keyword:typed_instruction")


_YAML_BLOCK_KEY = re.compile(r"(?m)^(?P<indent>[ \t]*)[\"']?(?P<name>[A-Za-z_][\w.-]{0,63})[\"']?:[ \t]*\r?$")
"""A YAML key opening a block: a schema's property (``api_key:`` over ``default: x``), a
CloudFormation parameter (``DBPassword:`` over ``Default: x``)."""
_YAML_PARAMETER = re.compile(
    r"(?m)^(?P<indent>[ \t]*-[ \t]+)name[ \t]*:[ \t]*[\"']?(?P<name>[A-Za-z_][\w.-]{0,63})[\"']?[ \t]*\r?$"
)
"""An OpenAPI parameter in YAML: ``- name: auth_token`` over ``in: header`` and ``example: x``."""
_YAML_ENTRY = re.compile(r"(?P<indent>[ \t]*)(?P<key>[\w-]+)[ \t]*:[ \t]*(?P<value>[^\n]*?)[ \t]*\r?$")
_YAML_VALUE_KEYS = frozenset(
    key for key in _SCHEMA_VALUE_KEYS if key not in ("examples", "enum", "x-examples")
)
_YAML_VALUE_HINTS = ("default", "example", "const")


def find_yaml_schema_values(text: str) -> Iterator[Finding]:
    """The ``default``/``example``/``const`` scalars of a credential-named property or parameter in
    a YAML schema (an OpenAPI spec, a CloudFormation template): the layout of
    :func:`find_structural_credentials` written in YAML, read over its lines."""
    if "\n" not in text:
        return
    lower = text.lower()
    if not any(key in lower for key in _YAML_VALUE_HINTS) or not KEYWORD_SCAN.search(lower):
        return  # no value key, or no word a credential's name holds
    for pattern in (_YAML_BLOCK_KEY, _YAML_PARAMETER):
        for match in pattern.finditer(text):
            name_class = credential_class(match.group("name"))
            if name_class is None:
                continue
            block = len(match.group("indent")) + (0 if pattern is _YAML_PARAMETER else 1)
            yield from _yaml_block_values(text, match.end() + 1, block, name_class)


def _yaml_block_values(text: str, position: int, least_indent: int, name_class: str) -> Iterator[Finding]:
    """The value keys' scalars among the entries of the block starting at ``position`` (its lines
    indented at least ``least_indent``): its own entries, and those of its ``schema:``."""
    own: int | None = None
    in_schema = False
    while position < len(text):
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        entry = _YAML_ENTRY.fullmatch(text, position, end)
        line = text[position:end]
        position = end + 1
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" \t"))
        if indent < least_indent or entry is None and own is not None and indent <= own:
            return
        own = indent if own is None else own
        if entry is None:
            continue
        depth = len(entry.group("indent"))
        if depth == own:
            in_schema = entry.group("key") == "schema"
        elif not in_schema:
            continue
        value = entry.group("value")
        quoted = value[:1] in "\"'" and len(value) > 1 and value[-1] == value[0]
        value = value[1:-1] if quoted else value
        if entry.group("key").lower() in _YAML_VALUE_KEYS and acceptable_value(value, quoted, name_class, ""):
            start = entry.start("value") + quoted
            kind = "PASSWORD" if name_class == "password" else "SECRET"
            yield Finding(kind, start, start + len(value), value, "keyword:yaml_schema")
