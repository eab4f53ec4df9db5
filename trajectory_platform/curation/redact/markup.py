"""Credentials that markup names from around their text: an element's namespaced or attributed
tag, a CDATA section, a sibling element, a parent's ``name`` attribute, a table's header cell.

The labelled-value rule reads ``<password>x</password>`` (:func:`.detectors.find_assignments`):
the name is the bare element right before the text. Configuration and pages name a value in
other ways, and each kept it (a red team, 2026-12-06: 33 of 48 development cases):
``<wsse:Password Type="...#PasswordText">x`` (a SOAP header), ``<password><![CDATA[x]]>``, a
macOS or iOS property list's ``<key>Password</key><string>x</string>``, a .NET
``<setting name="ApiSecret"><value>x</value>``, an HTML ``<th>DB_PASSWORD</th><td>x</td>`` row,
``<dt>``/``<dd>``, a table whose header row names the column, and the local-variables table of
Django's debug page (``<td>password</td><td class="code"><pre>&#x27;x&#x27;</pre></td>``).

The standard library's tolerant HTML tokenizer (:class:`html.parser.HTMLParser`) reads XML,
XHTML and HTML fragments alike; a stack of open elements gives each text its element, its parent
and its preceding sibling. The judges are the engine's own: a name given by a tag or an attribute
is a key (:func:`.detectors.labelled_by_name`, as a JSON key is), a label cell or a header cell a
table's (:func:`.positional.row_credential`, as a Markdown table's row is).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

from trajectory_platform.curation.redact.credential_names import KEYWORD_SCAN_ANY_CASE
from trajectory_platform.curation.redact.detectors import labelled_by_name
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import row_credential

_NAMING_ATTRIBUTES = ("name", "key", "type")
"""Attributes that name an element's value (``<string name="password">``, ``<entry key=...>``,
``<input type="password" value=...>``), tried in this order. Not ``id``: an HTML page's ids are
its headings' slugs (``id="--test-args-pass-options-..."`` named the ``<code>`` inside it)."""
_BETWEEN_SIBLINGS = re.compile(r"</[^>]*>(?:\s|<!--.*?-->)*", re.DOTALL)
"""A label element's end tag, then white space or comments, up to the element it labels."""
_VALUE_ATTRIBUTE = re.compile(r"""\svalue\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)')""", re.IGNORECASE)
_CDATA = re.compile(r"\s*<!\[CDATA\[(?P<value>.*?)\]\]>\s*", re.DOTALL)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
_RAW_NAME = re.compile(r"<\s*([^\s/>]+)")
_LABEL = re.compile(r"[A-Za-z_][\w .:-]{0,63}")
"""A cell or key that can label a value: a name of a few words, no sentence."""
_REPR_QUOTES = re.compile(r"""(?P<q>['"])(?P<value>[^'"\n]+)(?P=q)""")
"""A value printed as its ``repr`` (the debug page's locals): the quotes are the language's."""
_CELLS = frozenset({"td", "th"})
_MARKUP = re.compile(r"</|/>|<(?:input|param|meta)\b", re.IGNORECASE)
"""Markup is read only where an element closes, or an HTML void element that carries a ``value``
stands (so a comparison or a generic type in code is no reason to start the tokenizer)."""
_MAX_VALUE = 4096


@dataclass
class _Element:
    """One element of the markup: its tag as written, its attributes, and where it sits."""

    tag: str
    attributes: dict[str, str]
    start: int
    open_end: int
    parent: _Element | None
    children: list[_Element] = field(default_factory=list)
    close_start: int | None = None

    @property
    def local(self) -> str:
        """The tag's name without its namespace prefix (``wsse:Password`` -> ``Password``)."""
        return self.tag.rsplit(":", 1)[-1]

    @property
    def kind(self) -> str:
        return self.local.lower()


class _Tree(HTMLParser):
    """Elements with raw offsets: the tokenizer gives each tag's line and column, the stack of
    open elements its parent; an element closed by an outer end tag (HTML's ``<br>``, an unclosed
    ``<p>``) holds no text of its own."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.line_starts = [0, *(match.end() for match in re.finditer("\n", text))]
        self.root = _Element("", {}, 0, 0, None)
        self.open: list[_Element] = [self.root]

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def _element(self, attrs: list[tuple[str, str | None]]) -> _Element:
        raw = self.get_starttag_text() or ""
        start = self._offset()
        name = _RAW_NAME.match(raw)
        attributes = {key: value or "" for key, value in attrs}
        element = _Element(name.group(1) if name else "", attributes, start, start + len(raw), self.open[-1])
        self.open[-1].children.append(element)
        return element

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open.append(self._element(attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._element(attrs)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].kind == tag.rsplit(":", 1)[-1]:
                self.open[depth].close_start = self._offset()
                del self.open[depth:]
                return


def find_markup_credentials(text: str) -> Iterator[Finding]:
    """Every credential of ``text`` that markup names (module docstring)."""
    if _MARKUP.search(text) is None or not KEYWORD_SCAN_ANY_CASE.search(text):
        return
    tree = _Tree(text)
    try:
        tree.feed(text)
        tree.close()
    except AssertionError:  # a marked section it cannot read (``<![if ...]>``): what it read stands
        pass
    stack = [tree.root]
    while stack:
        element = stack.pop()
        stack.extend(element.children)
        yield from _attribute_value(text, element)
        if not element.children and element.close_start is not None:
            value = _text_value(text, element.open_end, element.close_start)
            if value is not None:
                yield from _named_text(text, element, *value)


def _attribute_value(text: str, element: _Element) -> Iterator[Finding]:
    """``<add key="Password" value="x"/>``, ``<param value="x" name="secret">``: an element whose
    ``name`` or ``key`` attribute names its ``value`` attribute, in either order."""
    names = _attribute_names(element)
    match = _VALUE_ATTRIBUTE.search(text, element.start, element.open_end) if names else None
    if match is None:
        return
    group = "dq" if match.group("dq") is not None else "sq"
    value, offsets = _unescaped(text, match.start(group), match.end(group))
    for name in names:
        found = list(_judged(text, labelled_by_name, name, value, offsets, "attribute"))
        if found:
            yield from found
            return


def _attribute_names(element: _Element) -> list[str]:
    """The names ``element``'s naming attributes give its value (:data:`_NAMING_ATTRIBUTES`)."""
    return [element.attributes[a] for a in _NAMING_ATTRIBUTES if element.attributes.get(a)]


def _named_text(
    text: str, element: _Element, value: str, offsets: list[tuple[int, int]]
) -> Iterator[Finding]:
    """A leaf's text judged under the first name markup gives it, walking out through elements
    that hold nothing but it (``<td><pre>x</pre></td>``, ``<setting name=..><value>x</value>``):
    the element's own tag or naming attribute (a key), the sibling element right before it (a
    label cell), or the header cell above its column (a table's)."""
    node: _Element | None = element
    while node is not None and node.parent is not None:
        for name in [*_attribute_names(node), *([node.local] if node is element else [])]:
            found = list(_judged(text, labelled_by_name, name, value, offsets, "element"))
            if found:
                yield from found
                return
        for label in filter(None, (_sibling_label(text, node), _column_header(text, node))):
            found = list(_judged(text, _as_row, label, value, offsets, "label"))
            if found:
                yield from found
                return
        parent = node.parent
        node = parent if len(parent.children) == 1 else None


def _sibling_label(text: str, node: _Element) -> str | None:
    """The text of the element right before ``node`` among its parent's, when it reads as a label
    (``<key>``, ``<dt>``, ``<th>``, a first ``<td>``) and only white space or a comment stands
    between them: in prose, ``<code>secret_number</code>. Then ... <code>Ordering</code>`` names
    nothing."""
    siblings = node.parent.children if node.parent is not None else []
    index = siblings.index(node)
    if index == 0:
        return None
    before = siblings[index - 1]
    if before.close_start is None or not _BETWEEN_SIBLINGS.fullmatch(text, before.close_start, node.start):
        return None
    return _label_of(text, before)


def _column_header(text: str, node: _Element) -> str | None:
    """The header cell above a table cell: the cell at its index in the table's first row whose
    cells are all ``<th>`` (a ``<thead>``'s row is one)."""
    row = node.parent
    if node.kind not in _CELLS or row is None or row.kind != "tr":
        return None
    table = row.parent
    while table is not None and table.kind not in ("table", ""):
        table = table.parent
    if table is None:
        return None
    for header in _rows(table):
        if header is row:
            return None
        if header.children and all(cell.kind == "th" for cell in header.children):
            cells = [cell for cell in row.children if cell.kind in _CELLS]
            index = cells.index(node)
            return _label_of(text, header.children[index]) if index < len(header.children) else None
    return None


def _rows(table: _Element) -> Iterator[_Element]:
    """A table's rows in order, inside ``<thead>``/``<tbody>`` or not (a nested table's excluded)."""
    for child in table.children:
        if child.kind == "tr":
            yield child
        elif child.kind in ("thead", "tbody", "tfoot"):
            yield from (row for row in child.children if row.kind == "tr")


def _label_of(text: str, element: _Element) -> str | None:
    """The text of a leaf element when it reads as a label (:data:`_LABEL`)."""
    if element.children or element.close_start is None:
        return None
    value = _text_value(text, element.open_end, element.close_start)
    return value[0] if value is not None and _LABEL.fullmatch(value[0]) else None


def _as_row(value: str, label: str) -> list[Finding]:
    """A label cell's value judged as a two-column table's row is (:func:`.positional.row_credential`)."""
    kind = row_credential(label, value)
    return [Finding(kind, 0, len(value), value, "row")] if kind else []


def _judged(
    text: str,
    judge: Callable[[str, str], list[Finding]],
    name: str,
    value: str,
    offsets: list[tuple[int, int]],
    detector: str,
) -> Iterator[Finding]:
    """What ``judge`` finds in ``value`` under ``name``, placed on the raw text that writes it; a
    value written with character references is also entered as it reads, so its plain copies go."""
    for finding in judge(value, name):
        if (finding.start, finding.end) != (0, len(value)):
            continue  # the name labels the whole text: ``use std::pin::Pin;`` holds no PIN
        start, end = offsets[finding.start][0], offsets[finding.end - 1][1]
        yield Finding(finding.kind, start, end, text[start:end], f"markup:{detector}")
        if text[start:end] != finding.value:
            yield Finding(finding.kind, start, end, finding.value, f"markup:{detector}")


def _text_value(text: str, start: int, end: int) -> tuple[str, list[tuple[int, int]]] | None:
    """An element's text with each character's raw span: a CDATA section's content as written,
    else the text with its character references resolved; one layer of ``repr`` quotes dropped."""
    if end - start > _MAX_VALUE:
        return None
    cdata = _CDATA.fullmatch(text, start, end)
    if cdata is not None:
        value, offsets = cdata.group("value"), [(i, i + 1) for i in range(*cdata.span("value"))]
    elif "<" in text[start:end]:
        return None
    else:
        value, offsets = _unescaped(text, start, end)
    stripped = value.strip()
    if not stripped or "\n" in stripped:
        return None
    head = value.index(stripped)
    value, offsets = stripped, offsets[head : head + len(stripped)]
    quoted = _REPR_QUOTES.fullmatch(value)
    if quoted is not None:
        value, offsets = quoted.group("value"), offsets[1:-1]
    return value, offsets


def _unescaped(text: str, start: int, end: int) -> tuple[str, list[tuple[int, int]]]:
    """``text[start:end]`` with its character references resolved, and each resolved character's
    raw span (an entity's whole reference)."""
    chars: list[str] = []
    offsets: list[tuple[int, int]] = []
    position = start
    for reference in _ENTITY.finditer(text, start, end):
        chars.extend(text[position : reference.start()])
        offsets.extend((i, i + 1) for i in range(position, reference.start()))
        resolved = html.unescape(reference.group())
        chars.extend(resolved)
        offsets.extend([reference.span()] * len(resolved))
        position = reference.end()
    chars.extend(text[position:end])
    offsets.extend((i, i + 1) for i in range(position, end))
    return "".join(chars), offsets
