"""The three passes over one string, recursing into JSON carried inside strings.

Detection and rewriting are separate so a caller can detect across a whole episode first, fill
one :class:`SymbolTable`, and then rewrite every string with it (consistent pseudonyms, and
echoes of a detected secret are replaced even where no detector would fire on their own).

JSON handling: when a string parses as a JSON object or array, each string literal is decoded,
scanned and rewritten on its own and spliced back re-encoded. Everything between literals
(braces, commas, whitespace, numbers) is left byte-identical, so the document still parses and
keeps its layout. Detection also runs over the raw JSON text, where ``"password": "x"`` context
is visible; values found there with escapes are added in their decoded form too.
"""

from __future__ import annotations

import base64
import bisect
import itertools
import json
import re
import threading
import urllib.parse
from collections import Counter, OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields, replace

from trajectory_platform.curation.redact.actions_debug import find_actions_debug_values
from trajectory_platform.curation.redact.argv import find_argv_credentials, find_argv_in_document
from trajectory_platform.curation.redact.bindings import find_code_bindings
from trajectory_platform.curation.redact.bound_names import find_bound_credentials
from trajectory_platform.curation.redact.connection_strings import find_connection_string_passwords
from trajectory_platform.curation.redact.cookies import find_session_cookies
from trajectory_platform.curation.redact.credential_maps import find_user_keyed_values
from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.credential_sinks import find_sink_values
from trajectory_platform.curation.redact.decoder_calls import find_decoded_assignments
from trajectory_platform.curation.redact.decoders import (
    LABEL_DECODERS,
    LIST_DECODERS,
    SAME_RANDOMNESS_DECODERS,
    SEAM_DECODERS,
    SEAM_REACH,
    DecodedView,
    decoded_views,
    encoded_text,
    quoted_span,
    requoted_words,
    rotations,
)
from trajectory_platform.curation.redact.detectors import (
    GRANTING_ID_NAME,
    drop_inside_pseudonyms,
    find_labelled,
    find_punctuated_secrets,
    find_secrets,
    labelled_by_name,
    names_a_digest,
    random_candidate,
)
from trajectory_platform.curation.redact.device_config import find_device_secrets
from trajectory_platform.curation.redact.dumps import character_columns
from trajectory_platform.curation.redact.joined_values import find_joined_literals
from trajectory_platform.curation.redact.jwk import find_jwk_private_members
from trajectory_platform.curation.redact.kba_answers import KBA_DETECTOR, find_kba_answers
from trajectory_platform.curation.redact.key_numbers import find_key_numbers
from trajectory_platform.curation.redact.lisp_pairs import find_lisp_pair_values
from trajectory_platform.curation.redact.login_calls import find_login_call_passwords
from trajectory_platform.curation.redact.manifests import drop_manifest_material
from trajectory_platform.curation.redact.markup import find_markup_credentials
from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.multiline_values import find_multiline_values
from trajectory_platform.curation.redact.named_elsewhere import find_named_elsewhere
from trajectory_platform.curation.redact.oauth_redirects import find_oauth_grants
from trajectory_platform.curation.redact.pii import find_pii
from trajectory_platform.curation.redact.positional import (
    SECRET_READER,
    find_other_line_credentials,
    find_positional_credentials,
    find_syntax_credentials,
)
from trajectory_platform.curation.redact.pseudonym import PII_KINDS, PSEUDONYM_RE, SymbolTable
from trajectory_platform.curation.redact.public_material import drop_public_material
from trajectory_platform.curation.redact.references import drop_references
from trajectory_platform.curation.redact.replacements import find_edited_credentials, find_substitutions
from trajectory_platform.curation.redact.seed_phrases import find_seed_phrases
from trajectory_platform.curation.redact.segmented_tokens import find_segmented_tokens
from trajectory_platform.curation.redact.shell_writes import WRITTEN_PIECE, writes_whole
from trajectory_platform.curation.redact.split_fields import find_split_fields
from trajectory_platform.curation.redact.sql_results import find_selected_credentials
from trajectory_platform.curation.redact.streams import holds_a_stream_list, streamed_texts
from trajectory_platform.curation.redact.structure import (
    find_structural_credentials,
    find_typed_instructions,
    find_yaml_schema_values,
)
from trajectory_platform.curation.redact.syscall_traces import read_trace, unescaped
from trajectory_platform.curation.redact.terraform_state import find_resource_secrets

MAX_JSON_DEPTH = 6
SHELL_KEYS = frozenset(
    {"command", "cmd", "script", "shell", "bash", "commands", "shell_command", "bash_command"}
)
_ID_KEY = re.compile(r"(?:^|_)id$|Id$|^id$|(?:^|_)ids$|^\$oid$")  # $oid: Mongo's extended JSON
_JSON_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"')
_NEXT_COLON = re.compile(r"\s*:")
_NUMBERS = re.compile(r"-?\d+(?:\s*,\s*-?\d+)*")
"""A value a JSON text writes as numbers, outside every literal: a PIN (``"pin": 12345678``), a key's
bytes (Solana's ``id.json``, an array of 64)."""


@dataclass(frozen=True)
class Context:
    """What surrounds a string: a shell command (bare words need the shell-safe form), an id or a
    digest value (its key says so: scored by no entropy test, in its literal or the raw JSON),
    the value of a key that names a credential (``{"password": "admin"}``: the label is the key,
    decoded: ``json.dumps`` writes ``{"contraseña": ...}`` as ``"contrase\\u00f1a"``, which no rule
    over the raw JSON reads as a label), and the plain-word values a scan of the JSON document
    around a literal found in it (``anchored``: their label is outside the literal, see
    :func:`_anchored_in_literals`)."""

    shell: bool = False
    id_value: bool = False
    credential_key: str = ""
    anchored: frozenset[str] = frozenset()


def parse_json_container(text: str) -> object | None:
    """The parsed value when ``text`` is a JSON object or array, else None (cheap first-char test)."""
    stripped = text.lstrip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # too deep to parse: scanned as plain text instead
        return None
    return value if isinstance(value, dict | list) else None


_QUOTED_DOCUMENT = re.compile(r"'(\{[^'\n]{2,}\})'")
"""A JSON object passed as one single-quoted shell word (``curl -d '{...}'``, ``kubectl patch -p
'{...}'``, ``aws ... --cli-input-json '{...}'``)."""


_LINE_DOCUMENT = re.compile(r"(?m)^[ \t]*([\[{])")
"""A JSON container opening a line of prose (a tool's result pasted under "Here is the output:")."""


def _quoted_document_structures(text: str) -> Iterator[Finding]:
    """What the structure rules (:func:`.structure.find_structural_credentials`) find in each JSON
    object a command passes as a quoted word, and in each JSON container that opens a line of a
    text that is itself no JSON document: the rules never read one there (a GraphQL request posted
    with ``curl -d``, red team rtsec13; a query's result of column names and rows pasted into a
    reply, whose keys name no credential)."""
    if "'{" in text:
        for match in _QUOTED_DOCUMENT.finditer(text):
            document = parse_json_container(match.group(1))
            if document is not None:
                yield from find_structural_credentials(document)
    if text[:1] not in "{[" and not ("\n" in text and ("{" in text or "[" in text)):
        return
    decoder, position = json.JSONDecoder(), 0
    while (opening := _LINE_DOCUMENT.search(text, position)) is not None:
        position = opening.end()
        try:
            document, end = decoder.raw_decode(text, opening.start(1))
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(document, dict | list):
            yield from find_structural_credentials(document)
            position = end


PROSE_LITERAL_MIN = 16
"""The shortest JSON string literal in prose decoded and scanned: a shorter one holds no table."""


def _quoted_literal_findings(text: str, config: RedactionConfig, depth: int) -> list[Finding]:
    """The JSON document each escaped JSON string literal of a text that is no JSON document holds,
    decoded and scanned as a JSON document is: a tool's JSON output pasted into a sentence (``the
    query returned "[{\\"user\\": ..., \\"db_password\\": ...}]"``, a ``{\\"stdout\\": ...}``
    whose CSV rows are one line of ``\\n``). Only decoded do its keys read as keys and its rows
    stand on lines of their own, so a value its column or its key names was read by no rule. A
    literal that holds no JSON document (a string of source code, ``"\\t<digest>\\r\\n"``) is
    left to the views of the text: scanned alone, it lost the context that exempts it."""
    found: list[Finding] = []
    for match in _JSON_LITERAL.finditer(text):
        body = match.group()
        if len(body) < PROSE_LITERAL_MIN or ("\\n" not in body and '\\"' not in body):
            continue
        try:
            decoded = json.loads(body)
        except ValueError:
            continue
        if parse_json_container(decoded) is not None:
            found.extend(scan(decoded, config, Context(), depth + 1))
    return found


def _literals(text: str, context: Context) -> list[tuple[re.Match[str], Context]]:
    """Each string literal of a valid JSON text with the context its key gives it."""
    out = []
    key = ""
    for match in _JSON_LITERAL.finditer(text):
        if _NEXT_COLON.match(text, match.end()):
            key = json.loads(match.group())
            out.append((match, Context(shell=False, id_value=False)))
            continue
        shell = key.lower() in SHELL_KEYS
        id_value = bool(_ID_KEY.search(key)) and not GRANTING_ID_NAME.search(key) or names_a_digest(key)
        out.append((match, Context(shell, id_value, credential_key=key if credential_class(key) else "")))
    return out


SCAN_MEMO_CHARS = 8_000_000
"""How many characters of scanned text the memo of scans keeps (with their findings), at most."""


class _ScanMemo:
    """The findings of the texts scanned last, least recently used first out once the texts held
    pass :data:`SCAN_MEMO_CHARS`. Scanning is a pure function of its text, context, depth and
    configuration's values, and the same texts are scanned again and again: the leak measurement
    redacts copies of an episode that differ only where canaries went, a split run's pieces are
    scanned alone after the whole field was, and a gym rollout's episodes repeat one system prompt
    and tool block each (the memo lasted one episode before: a day of a rollout scanned them once
    per episode). Process-wide under a lock: assets may redact in threads."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.chars = 0
        self.entries: OrderedDict[tuple[object, ...], tuple[int, tuple[Finding, ...]]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[object, ...]) -> tuple[Finding, ...] | None:
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                return None
            self.entries.move_to_end(key)
            return entry[1]

    def put(self, key: tuple[object, ...], text: str, found: tuple[Finding, ...]) -> None:
        if len(text) > self.budget:
            return
        with self.lock:
            if key in self.entries:
                return
            self.entries[key] = (len(text), found)
            self.chars += len(text)
            while self.chars > self.budget:
                self.chars -= self.entries.popitem(last=False)[1][0]


_SCAN_MEMO = _ScanMemo(SCAN_MEMO_CHARS)


def _config_key(config: RedactionConfig) -> tuple[object, ...]:
    """The configuration's values as they are now (it is a mutable dataclass, so not its identity)."""
    return tuple(getattr(config, knob.name) for knob in fields(config))


def scan(text: str, config: RedactionConfig, context: Context = Context(), depth: int = 0) -> list[Finding]:
    """Pass 1 and pass 2 over ``text`` and over every string nested in it as JSON, less the spans
    that stand for a value without being one (:mod:`.references`), public material
    (:mod:`.public_material`) and a manifest's digests and files (:mod:`.manifests`): each finding
    becomes a table value replaced wherever it recurs, so a reference or a type read as a password
    broke every line of the episode that holds it.
    A text scanned before under the same context, depth and configuration is answered from the
    memo (:class:`_ScanMemo`, a fresh list)."""
    key = (text, context, depth, _config_key(config))
    if (known := _SCAN_MEMO.get(key)) is not None:
        return list(known)
    # (no helper frame between scan and _scan: nesting as deep as before before RecursionError)
    found = drop_references(text, _scan(text, config, context, depth), PII_KINDS)
    found = drop_manifest_material(text, drop_public_material(text, found))
    found = [
        _inside_brackets(text, finding if finding.kind in PII_KINDS else _through_inner_quotes(text, finding))
        for finding in found
    ]
    _SCAN_MEMO.put(key, text, tuple(found))
    return found


_INNER_QUOTES = {
    "'": re.compile(r"'\\''|'\"'\"'|\""),
    '"': re.compile(r"\\[\"']|'"),
}
"""The quotes a value quoted with each quote holds: in single quotes a shell's spliced quote
(``'\\''``, ``'"'"'``) and a double quote; in double quotes an escaped quote and a single one."""
_VALUE_RUN = re.compile(r"[^\s'\"\\`,;(){}\[\]<>|&@]+")
"""What a value holds up to its next quote: none of a shell's or a document's separators."""
_CLITICS = frozenset({"s", "t", "d", "m", "re", "ll", "ve"})
"""What follows an apostrophe in English (``the key's scope``): the word's end, not the value's."""
_QUOTE_REACH = 400
"""How far back on its line a value's quoting is read (a bound: a long line holds many values)."""


def _open_quote(text: str, start: int) -> str | None:
    """The quote open at ``start``, read as a shell reads quotes from the start of its line (at most
    :data:`_QUOTE_REACH` back): ``'`` up to the next ``'``, ``"`` up to the next unescaped ``"``."""
    quote, index = None, max(text.rfind("\n", 0, start) + 1, start - _QUOTE_REACH)
    while index < start:
        char = text[index]
        if char == "\\" and quote != "'":
            index += 2
            continue
        if quote is None and char in "'\"":
            quote = char
        elif char == quote:
            quote = None
        index += 1
    return quote


def _through_inner_quotes(text: str, finding: Finding) -> Finding:
    """``finding`` run on through the quotes inside its quoted value (``'Qw9r"maple42'``,
    ``"Qw9r'maple42"``, ``'Qw9r'\\''maple42'``, ``"Qw9r\\"maple42"``) to the value's end. Almost
    every rule reads a value as characters that are no quote, so a password holding one lost only
    its head to the pseudonym, under every client, flag, label and format (a red team, round 13).
    Only a quote of the other kind than the value's own counts, or its own escaped or spliced, and
    only between two value characters: the value's closing quote and an English clitic (``'s``)
    end it where they did. A finding on a string nested in ``text`` (a JSON literal's) was run on
    in its own string."""
    end = finding.end
    if text[finding.start : end] != finding.value or end >= len(text) or text[end] not in "'\\\"":
        return finding
    quote = _open_quote(text, finding.start)
    if quote is None:
        return finding
    if quote == '"' and text[end - 1] == "\\" and end - 1 > finding.start:
        end -= 1  # the rule took the escape's backslash (``"Qw9r\\"maple42"``)
    while (inner := _INNER_QUOTES[quote].match(text, end)) is not None:
        run = _VALUE_RUN.match(text, inner.end())
        if run is None or inner.group() == "'" and run.group().lower() in _CLITICS:
            break
        end = run.end()
    if end <= finding.end:
        return finding
    return replace(finding, end=end, value=text[finding.start : end])


def _requoted_findings(
    text: str, view: DecodedView, config: RedactionConfig, context: Context, depth: int
) -> list[Finding]:
    """What every rule finds in ``text`` once its quote-spliced shell words read as one word
    (:func:`.decoders.requoted_words`), as findings on the raw span, quotes and escapes and all;
    those whose raw span reads as their value (no quote or escape inside) are the raw scan's own."""
    found = []
    for finding in scan(view.text, config, context, depth):
        start, end = view.raw_span(finding.start, finding.end)
        if text[start:end] != finding.value:
            start, end = quoted_span(text, start, end)
            detector = f"{finding.detector}+requoted"
            found.append(replace(finding, start=start, end=end, value=text[start:end], detector=detector))
    return found


_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_SHORTEST_INSIDE = 4
"""A value left shorter than this inside its brackets keeps them: the brackets were its evidence."""


def _inside_brackets(text: str, finding: Finding) -> Finding:
    """``finding`` less the brackets at its edges that are the text's syntax, not the value's: an
    opener or a closer whose partner is outside the value (``api_key=(KEY)`` read as ``(KEY``, a
    directive's ``password [KEY]`` read whole, ``secret: {KEY}`` read as ``{KEY``), and a pair that
    wraps the whole value. Replaced with it, the bracket went and the line was no longer code or a
    shell line (a tuple's ``)``, a substitution's ``)``). The value's own brackets inside stay."""
    value = finding.value
    if not value or (value[0] not in _CLOSERS and value[-1] not in ")]}"):
        return finding
    if text[finding.start : finding.end] != value:
        return finding
    head, tail = _bracket_edges(value)
    if (head, tail) == (0, len(value)) or tail - head < _SHORTEST_INSIDE:
        return finding
    return replace(finding, start=finding.start + head, end=finding.start + tail, value=value[head:tail])


def _bracket_edges(value: str) -> tuple[int, int]:
    """Where ``value`` starts and ends once its unmatched edge brackets and wrapping pairs go."""
    partner: dict[int, int] = {}
    stack: list[int] = []
    for index, char in enumerate(value):
        if char in _CLOSERS:
            stack.append(index)
        elif char in ")]}":
            if stack and _CLOSERS[value[stack[-1]]] == char:
                opened = stack.pop()
                partner[opened], partner[index] = index, opened
            else:
                stack.clear()  # a closer of another kind: what was open before it is not matched here
    head, tail = 0, len(value)
    while tail - head > 1:
        if value[head] in _CLOSERS and partner.get(head, tail) >= tail:
            head += 1
        elif value[tail - 1] in ")]}" and partner.get(tail - 1, -1) < head:
            tail -= 1
        elif value[head] in _CLOSERS and partner.get(head) == tail - 1:
            head, tail = head + 1, tail - 1
        else:
            break
    return head, tail


def _scan(text: str, config: RedactionConfig, context: Context, depth: int) -> list[Finding]:
    if not text:
        return []
    local = config if not context.id_value else replace(config, entropy=False)
    found = find_secrets(text, local)
    if (requoted := requoted_words(text)) is not None:
        found.extend(_requoted_findings(text, requoted, config, context, depth))
    if context.credential_key:
        found.extend(labelled_by_name(text, context.credential_key))
    found.extend(find_positional_credentials(text))
    found.extend(find_markup_credentials(text))
    if depth < MAX_JSON_DEPTH:
        found.extend(_traced_findings(text, config, depth))
    found.extend(find_login_call_passwords(text))
    if "=" in text:
        found.extend(find_connection_string_passwords(text))
    if "##[debug]" in text:
        found.extend(find_actions_debug_values(text))
    found.extend(find_session_cookies(text))
    if "code=" in text or "oauth_verifier=" in text:
        found.extend(find_oauth_grants(text))
    if " . " in text:
        found.extend(find_lisp_pair_values(text))
    found.extend(find_joined_literals(text))
    found.extend(find_split_fields(text, local))
    found.extend(find_argv_credentials(text, local))
    found.extend(find_typed_instructions(text))
    found.extend(find_yaml_schema_values(text))
    found.extend(find_resource_secrets(text))
    found.extend(find_device_secrets(text))
    found.extend(find_kba_answers(text))
    found.extend(find_selected_credentials(text))
    found.extend(find_seed_phrases(text))
    found.extend(find_named_elsewhere(text))
    found.extend(find_code_bindings(text))
    found.extend(find_substitutions(text))
    found.extend(find_multiline_values(text))
    found.extend(find_sink_values(text))
    found.extend(find_user_keyed_values(text))
    found.extend(find_key_numbers(text))
    found.extend(find_jwk_private_members(text))
    found.extend(find_decoded_assignments(text))
    found.extend(find_bound_credentials(text, found))  # references to what the rules above found
    if local.entropy:
        found.extend(find_punctuated_secrets(text))
        found.extend(find_segmented_tokens(text))
    if config.pii:
        found.extend(drop_inside_pseudonyms(text, list(find_pii(text, config))))
    document = parse_json_container(text) if depth < MAX_JSON_DEPTH else None
    if document is None:  # a JSON container's strings are decoded and scanned one by one below
        if columns := character_columns(text):  # the dump view reads what a row's column cuts
            found = [f for f in found if not any(low <= f.start and f.end <= high for low, high in columns)]
        found.extend(_quoted_document_structures(text))
        if depth < MAX_JSON_DEPTH and ("\\n" in text or '\\"' in text):
            found.extend(_quoted_literal_findings(text, config, depth))
        found.extend(_decoded_findings(text, local))
        if depth < MAX_JSON_DEPTH:
            found.extend(_streamed_findings(text, config, depth))
        return found
    found.extend(find_structural_credentials(document))
    found.extend(find_argv_in_document(document, local))
    found.extend(find_edited_credentials(document))
    for finding in list(found):
        if "\\" in finding.value:
            try:
                decoded = json.loads(f'"{finding.value}"')
            except ValueError:
                continue
            found.append(replace(finding, value=decoded, detector=finding.detector + "+json"))
    nested: list[Finding] = []
    decoded_literals = []
    literals = _literals(text, context)
    joined = dict(line_arrays(document))
    in_arrays = {line for lines in joined.values() for line in lines}
    for match, child in literals:
        decoded = json.loads(match.group())
        decoded_literals.append(decoded)
        if decoded not in in_arrays or child != Context():
            nested.extend(scan(decoded, config, child, depth + 1))
    # A line of an array is scanned once, inside the text its array joins (see line_arrays).
    for whole, lines in joined.items():
        nested.extend(
            _on_its_line(f, lines) for f in scan(whole, config, Context(), depth + 1) if "\n" not in f.value
        )
    # A value seen both in the raw JSON and inside its literal is one finding, reported once; a raw
    # match that exists in no decoded literal (it straddles an escape such as "\\n@x.y") is not data.
    seen = {f.value for f in nested}
    content = "\x00".join(decoded_literals)
    spans = [match.span() for match, _ in literals]
    raw = [
        f
        for f in found
        if f.value not in seen
        and (f.value in content or _NUMBERS.fullmatch(f.value) is not None)
        and not (f.detector == "entropy" and _inside_one_literal(f.start, f.end, spans))
    ]
    spread = [
        f
        for f in _decoded_findings(text, local, LIST_DECODERS)
        if not _inside_one_literal(f.start, f.end, spans)
    ]
    # a JSON array of stream chunks (a stream stored whole, or kept under a recording's "chunks")
    # is joined as a log's lines are
    stored = isinstance(document, list) or holds_a_stream_list(text)
    streamed = _streamed_findings(text, config, depth) if stored else []
    return raw + nested + spread + streamed


LINES_KEYS = frozenset({"source", "text", "lines", "stdout_lines", "stderr_lines", "output_lines"})
"""Keys under which a JSON document keeps one text as an array of its lines: a notebook cell's
``source`` and a stream output's ``text``, Ansible's ``stdout_lines``."""


def line_arrays(document: object) -> Iterator[tuple[str, list[str]]]:
    """The texts a parsed JSON ``document`` stores as arrays of lines, each joined back into one,
    with its lines.

    Each string literal is scanned alone, so every rule that reads two lines (a Kubernetes
    Secret's ``data:`` under its ``kind``, ``- name: DB_PASSWORD`` over ``value:``, a reader's
    command over what it printed) failed in a notebook or an Ansible result (a red team,
    2026-12-06: 32 of 32 such texts kept the value). An array of two strings or more is one text
    when its key says so (:data:`LINES_KEYS`) or its items but the last end in a line break."""
    stack: list[tuple[str, object]] = [("", document)]
    while stack:
        key, node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.items())
        elif isinstance(node, list):
            lines = [item for item in node if isinstance(item, str)]
            if (
                len(lines) >= 2
                and len(lines) == len(node)
                and (key in LINES_KEYS or all(line.endswith("\n") for line in lines[:-1]))
            ):
                whole = (
                    "".join(line if line.endswith("\n") else line + "\n" for line in lines[:-1]) + lines[-1]
                )
                yield whole, lines
            else:
                stack.extend((key, item) for item in node)
    yield from notebook_transcripts(document)


def notebook_transcripts(document: object) -> Iterator[tuple[str, list[str]]]:
    """Each code cell of a Jupyter notebook ``document`` written as the IPython session that ran it:
    its source with ``In [n]:`` before the last line, then ``Out[n]:`` and each output's text.

    A notebook keeps the read (``os.environ['API_TOKEN']``) in ``cells[].source`` and the value it
    printed in ``outputs[].data["text/plain"]``: two JSON fields that no rule reads together (a red
    team, round 11: the value was kept). As one transcript, the REPL rule of
    :mod:`.named_elsewhere` pairs them."""
    cells = document.get("cells") if isinstance(document, dict) else None
    for cell in cells if isinstance(cells, list) else ():
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _cell_text(cell.get("source")).rstrip("\n")
        outputs = cell.get("outputs")
        printed = [
            _cell_text(data.get("text/plain") if isinstance(data := output.get("data"), dict) else None)
            or _cell_text(output.get("text"))
            for output in (outputs if isinstance(outputs, list) else ())
            if isinstance(output, dict)
        ]
        if not source or not any(printed):
            continue
        head, _, last = source.rpartition("\n")
        number = cell.get("execution_count") or 0
        lines = [f"{head}\n" if head else "", f"In [{number}]: {last}\n"]
        lines += [f"Out[{number}]: {text.rstrip(chr(10))}\n" for text in printed if text]
        lines = [line for line in lines if line]
        lines[-1] = lines[-1].rstrip("\n")
        yield "".join(lines), lines


def _cell_text(value: object) -> str:
    """A notebook field's text, kept as a string or as a list of lines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return "".join(value)
    return ""


def _streamed_findings(text: str, config: RedactionConfig, depth: int) -> list[Finding]:
    """What the streams of ``text`` (:func:`.streams.streamed_texts`: deltas of an SSE or JSONL log)
    carry once joined, each on the raw span from its first character to its last, and as the value
    itself too (its echoes elsewhere are then replaced). A finding of a JSON text is placed in its
    literal, not in the joined text, so each value is found again in the joined text (as it stands,
    or escaped, as a joined JSON text writes it). A token found random only where it runs whole
    pieces together (it starts where a piece starts and ends where one ends) is records' short
    values read as one (``{"data": "qwwean"}`` lines of a metrics log), not a secret a delta cut:
    replaced, every record between became one pseudonym."""
    found: list[Finding] = []
    for stream in streamed_texts(text):
        joined = scan(stream.text, config, Context(), depth + 1)
        bounds = set(itertools.accumulate(stream.pieces, initial=0))
        for value, kind, detector in sorted({(f.value, f.kind, f.detector) for f in joined}):
            for written in dict.fromkeys((value, json.dumps(value, ensure_ascii=False)[1:-1])):
                start = stream.text.find(written)
                while written and start != -1:
                    if detector.startswith("entropy") and {start, start + len(written)} <= bounds:
                        # random only as whole pieces run together: records' values, not deltas
                        start = stream.text.find(written, start + len(written))
                        continue
                    low, high = stream.raw_span(start, start + len(written))
                    found.append(Finding(kind, low, high, text[low:high], f"{detector}+stream"))
                    if text[low:high] != value:
                        found.append(Finding(kind, low, high, value, f"{detector}+stream"))
                    start = stream.text.find(written, start + len(written))
    return found


def _on_its_line(finding: Finding, lines: list[str]) -> Finding:
    """A finding of a joined line array (:func:`line_arrays`) placed in the line that holds it, as
    a finding of a string literal is placed in that literal: a value found on the same line of two
    cells is then one finding, as it was when each line was scanned alone."""
    start = 0
    for line in lines:
        end = start + len(line) + (not line.endswith("\n"))
        if finding.start < end:
            return replace(finding, start=finding.start - start, end=finding.end - start)
        start = end
    return finding


def _traced_findings(text: str, config: RedactionConfig, depth: int) -> list[Finding]:
    """What every rule finds in the conversation a ``strace`` or ``ltrace`` records
    (:func:`.syscall_traces.read_trace`), on the raw characters that write each value, and the
    values its prompts' answers and credential files' reads give; a value the view joined from
    text it added (a line break) is no value of the trace. Entropy is not asked: the view would
    only set a file's digest (a git ref read by ``git``) alone on a line, where a bare hex run is
    a key, and its pseudonym would reach every ``git log`` of the episode."""
    trace = read_trace(text)
    if trace is None:
        return []
    found: list[Finding] = []
    view_config = replace(config, entropy=False)  # a random token is as random in the raw text
    for finding in [*scan(trace.view.text, view_config, Context(), depth + 1), *trace.given]:
        if finding.detector == "trace:given":
            start, end, value = finding.start, finding.end, unescaped(finding.value)
        else:
            start, end = trace.view.raw_span(finding.start, finding.end)
            value = finding.value
        raw = text[start:end]
        if unescaped(raw) != value:
            continue
        detector = finding.detector if finding.detector == "trace:given" else f"{finding.detector}+trace"
        found.append(Finding(finding.kind, start, end, raw, detector))
        if raw != value:
            found.append(Finding(finding.kind, start, end, value, detector))
    return found


def _literal_at(position: int, literal_spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The span of the string literal (of a JSON text's sorted literal spans) holding ``position``."""
    index = bisect.bisect_right(literal_spans, (position, 1 << 62)) - 1
    return literal_spans[index] if index >= 0 and position < literal_spans[index][1] else None


def _inside_one_literal(start: int, end: int, literal_spans: list[tuple[int, int]]) -> bool:
    """Does ``start:end`` of a JSON text lie within one of its string literals?"""
    literal = _literal_at(start, literal_spans)
    return literal is not None and end <= literal[1]


def _decoded_findings(
    text: str, config: RedactionConfig, decoders: frozenset[str] | None = None
) -> list[Finding]:
    """Secrets visible only once an encoding is undone (ANSI, percent, ``\\u``, entities, hex),
    as findings on the raw substring that encodes them (of the named ``decoders`` only, if given).
    A value found once is found again wherever it recurs in the decoded lines (pass 3's rule for
    echoes): its other copies there are encoded too (``xxd`` shows ``ssh -p KEY ... password:KEY``
    as hex), so only the view can point at them. A finding over a pseudonym already in the text is
    dropped, and, in a view that reads the text backwards or in ROT13, one touching a pseudonym's
    edge: there a pseudonym reads as something else, what the view finds against it is the view's
    artefact, and redacting redacted text must change nothing."""
    found: list[Finding] = []
    pseudonyms = [m.span() for m in PSEUDONYM_RE.finditer(text)] if "REDACTED_" in text else []
    for view in decoded_views(text, only=decoders):
        last_decoder = view.name.rsplit("+", 1)[-1]
        permuted = last_decoder in SAME_RANDOMNESS_DECODERS
        view_config = replace(config, entropy=False) if permuted else config
        # where the view reorders the text, a finding touching a pseudonym's edge counts as on it
        reach = 1 if any(name in SAME_RANDOMNESS_DECODERS for name in view.name.split("+")) else 0
        joins = view.joins() if view.name.rsplit("+", 1)[-1] in SEAM_DECODERS else None
        changed = view.changed_lines()
        digests: dict[tuple[int, int], bool] = {}
        if last_decoder not in LABEL_DECODERS and joins is None:
            found.extend(_context_findings(text, view, changed, pseudonyms))
        for offset, end in changed:  # the rest of the view is raw text, scanned already
            window = view.text[offset:end]
            labels_only = last_decoder in LABEL_DECODERS
            hidden = find_labelled(window) if labels_only else find_secrets(window, view_config)
            if not labels_only:  # a cookie list's pairs, each judged by its name (cookies.py)
                hidden.extend(find_session_cookies(window))
            if not labels_only and not permuted:  # ::add-mask:: seen through an xxd dump
                hidden.extend(find_syntax_credentials(window))
            if config.pii and not labels_only:
                hidden.extend(find_pii(window, config))
            if joins is not None:
                hidden = [f for f in hidden if _seam_finding(joins, offset, f)]
            hidden = [f for f in hidden if _random_in_view(view.text, offset, f, digests)]
            if hidden:
                echoes = SymbolTable(b"")
                for finding in hidden:
                    echoes.add(finding.value, finding.kind)
                recurring = echoes.occurrences(window)
                hidden.extend(Finding(echoes.kinds[value], s, e, value, "echo") for s, e, value in recurring)
            for finding in hidden:
                within: tuple[int, int] | None = (offset + finding.start, offset + finding.end)
                if last_decoder in LIST_DECODERS:  # a list's view shows only its elements as data
                    within = view.decoded_within(offset + finding.start, offset + finding.end)
                if within is None:
                    continue
                start, stop = view.raw_span(*within)
                if any(low < stop + reach and start < high + reach for low, high in pseudonyms):
                    continue
                detector = f"{finding.detector}+{view.name}"
                found.append(Finding(finding.kind, start, stop, text[start:stop], detector))
    return found


def _random_in_view(
    view_text: str, offset: int, finding: Finding, digests: dict[tuple[int, int], bool]
) -> bool:
    """Is an entropy finding of a view's changed line (at ``offset`` in ``view_text``) still random
    with the whole view around it? A changed line is scanned alone, so the context that makes a
    run no key lay outside it: the header of a CSV column of digests whose cell is coloured, a
    ``commit`` or ``request-id`` on another line. The raw text's verdict reads that context; the
    view's must too, or colouring a git sha made it a secret. Other detectors' findings stand."""
    if finding.detector != "entropy":
        return True
    return random_candidate(finding.value, view_text, offset + finding.start, digests)


def _context_findings(
    text: str, view: DecodedView, changed: list[tuple[int, int]], pseudonyms: list[tuple[int, int]]
) -> Iterator[Finding]:
    """A view's values named by what stands on another line (:func:`.positional.
    find_other_line_credentials`: a header or a row, a sibling ``name``, the command a
    here-document feeds; an Actions debug log's ``Evaluating: secrets.X`` above its value). These
    are read over the whole view: the line that names the value is often one the view did not
    change (a CSV whose cell is coloured, a quoted-printable log whose ``Evaluating`` line holds no
    escape, an ``xxd`` row of the header). Only a value on a changed line counts; the others the raw
    text's scan has."""
    named = find_other_line_credentials(view.text, "\n".join(view.text[low:high] for low, high in changed))
    if "##[debug]" in view.text:
        named = itertools.chain(named, find_actions_debug_values(view.text))
    for finding in named:
        if not any(low <= finding.start and finding.end <= high for low, high in changed):
            continue
        start, stop = view.raw_span(finding.start, finding.end)
        if any(low < stop and start < high for low, high in pseudonyms):
            continue
        yield Finding(finding.kind, start, stop, text[start:stop], f"{finding.detector}+{view.name}")


def _seam_finding(joins: list[int], offset: int, finding: Finding) -> bool:
    """Is a finding of a seam view (:data:`SEAM_DECODERS`) one the joins made? It crosses a join or
    starts just after one (a label cut at the row's end). An entropy finding needs a join inside it:
    a token whole on its row was scored in the raw text already, with the context the view cuts off
    (the ``[`` and key of a JSON list of digests whose rows are of one width)."""
    start, end = offset + finding.start, offset + finding.end
    if finding.detector == "entropy":
        index = bisect.bisect_right(joins, start)
        return index < len(joins) and joins[index] < end
    return _crosses_a_join(joins, start, end)


def _crosses_a_join(joins: list[int], start: int, end: int) -> bool:
    """Does ``start:end`` of a view run across one of its ``joins``, or start at most
    :data:`SEAM_REACH` characters after one (see :data:`SEAM_DECODERS`)?"""
    index = bisect.bisect_left(joins, start - SEAM_REACH)
    return index < len(joins) and joins[index] < end


def _shell_quote_states(text: str, positions: list[int]) -> dict[int, bool]:
    """For each position, whether it is inside single or double quotes of a shell command."""
    states: dict[int, bool] = {}
    quote = ""
    i = 0
    for pos in sorted(positions):
        while i < pos:
            ch = text[i]
            if ch == "\\" and quote != "'":
                i += 2
                continue
            if quote and ch == quote:
                quote = ""
            elif not quote and ch in "'\"":
                quote = ch
            i += 1
        states[pos] = bool(quote)
    return states


def rewrite(text: str, table: SymbolTable, context: Context = Context(), depth: int = 0) -> str:
    """Pass 3: replace every table value in ``text`` with its pseudonym, keeping JSON valid."""
    if not text or not table.kinds:
        return text
    if depth < MAX_JSON_DEPTH and parse_json_container(text) is not None:
        literals = _literals(text, context)
        between = _rewrite_between_literals(text, table, literals)
        if between != text:
            text, literals = between, _literals(between, context)
        anchors = _anchored_in_literals(text, table, literals, context, depth)
        pieces = []
        last = 0
        for (match, child), anchored in zip(literals, anchors, strict=True):
            if anchored:
                child = replace(child, anchored=anchored)
            decoded = json.loads(match.group())
            new = rewrite(decoded, table, child, depth + 1)
            pieces.append(text[last : match.start()])
            literal = match.group()
            pieces.append(literal if new == decoded else json.dumps(new, ensure_ascii="\\u" in literal))
            last = match.end()
        pieces.append(text[last:])
        return "".join(pieces)
    spans = _anchored(text, table.occurrences(text, remainders=True), table, context)
    if not spans:
        return text
    quoted = _shell_quote_states(text, [start for start, _, _ in spans]) if context.shell else {}
    pieces = []
    last = 0
    for start, end, value in spans:
        bare = context.shell and not quoted[start]
        pieces.append(text[last:start])
        pieces.append(table.replacement(value, bare))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _anchored_in_literals(
    text: str, table: SymbolTable, literals: list[tuple[re.Match[str], Context]], context: Context, depth: int
) -> list[frozenset[str]]:
    """Per literal of the JSON ``text``, the plain-word values (:meth:`.SymbolTable.is_plain_word`)
    that a scan of the whole document finds inside it. Their label is elsewhere in the document:
    a sibling's value (``{"name": "X-Api-Key", "value": "Winterdragon812"}`` in a HAR file or a
    container's ``env``, CloudFormation's ``ParameterKey``), the argv item before it
    (``["--password", "Harborsilver42"]``), a table's header row. Rewritten alone, the literal shows
    no label, so :func:`_anchored` took the value for a word that merely spells the password and
    kept it: the document was reported redacted and still held the password (red team rtsec15).
    A finding placed in the raw document anchors the literal holding its span; one the scan made
    of texts it assembled from several literals (a notebook cell's source and its output read as
    one session, :func:`notebook_transcripts`) has no place in the document, and anchors its value
    where a single literal holds it (where two do, which one the label names is unknown)."""
    if not any(table.is_plain_word(value) for _, _, value in table.occurrences(text)):
        return [frozenset()] * len(literals)
    found = [f for f in scan(text, RedactionConfig(), context, depth) if table.is_plain_word(f.value)]
    values = {f.value for f in found}
    holding = [
        {value for _, _, value in table.occurrences(json.loads(match.group())) if value in values}
        for match, _ in literals
    ]
    holders = Counter(value for held in holding for value in held)
    return [
        frozenset(
            value
            for value in held
            if holders[value] == 1
            or any(f.value == value and match.start() <= f.start and f.end <= match.end() for f in found)
        )
        for (match, _), held in zip(literals, holding, strict=True)
    ]


def _anchored(
    text: str, spans: list[tuple[int, int, str]], table: SymbolTable, context: Context
) -> list[tuple[int, int, str]]:
    """``spans`` less the echoes of a plain-word password (``postgres``, ``admin``): such a value is
    replaced where a detector finds it, its label beside it (or the JSON key holding it names a
    credential), not wherever the word occurs. Replaced everywhere, ``POSTGRES_PASSWORD: postgres``
    turned ``image: postgres:16`` and ``from redis import Redis`` into pseudonyms; a default
    password a word can spell is not worth the code it corrupts. Pass 1 runs again on the lines
    around each such occurrence (its decoded views too: a ROT13 or reversed word is found there):
    the line before holds a YAML key whose value is the next line. An occurrence those lines do not
    confirm is looked for in a scan of the whole text, once: a label further up is a label too (the
    header row of a CSV, a TSV, a ``psql`` or a Markdown table above its third row). Judged by its
    window alone, such a value was reported redacted and kept (red team rtsec15)."""
    if table.written:
        spans = [s for s in spans if s[2] not in table.written or writes_whole(text, s[0], s[1])]
    if context.credential_key or not any(table.is_plain_word(value) for _, _, value in spans):
        return spans
    kept: list[tuple[int, int, str]] = []
    found: set[tuple[int, int]] = set()
    windows: set[tuple[int, int]] = set()
    whole: set[tuple[int, int]] | None = None
    for start, end, value in spans:
        if table.is_plain_word(value) and value not in table.written and value not in context.anchored:
            low = text.rfind("\n", 0, max(0, text.rfind("\n", 0, start))) + 1
            after = text.find("\n", end)
            high = len(text) if after < 0 or (following := text.find("\n", after + 1)) < 0 else following
            if (low, high) not in windows:
                windows.add((low, high))
                found.update(
                    (low + f.start, low + f.end) for f in scan(text[low:high], RedactionConfig(), context)
                )
            if (start, end) not in found and (low, high) != (0, len(text)):
                if whole is None:
                    whole = {(f.start, f.end) for f in scan(text, RedactionConfig(), context)}
                found |= whole
            if (start, end) not in found:
                continue
        kept.append((start, end, value))
    return kept


def _rewrite_between_literals(
    text: str, table: SymbolTable, literals: list[tuple[re.Match[str], Context]]
) -> str:
    """A value of a JSON text that no single string literal holds, replaced by one string literal of
    its pseudonym, so the document stays valid: a secret stored as a bare number (``"pin":
    12345678``), or a key spelled as a list of its characters or codes (``["A", "K", ...]``,
    ``[65, 75, ...]``), the literals it spans replaced whole with it."""
    spans = [match.span() for match, _ in literals]
    pieces = []
    last = 0
    for start, end, value in table.occurrences(text):
        if _inside_one_literal(start, end, spans):
            continue  # the literal's own rewrite replaces it, escapes decoded
        start = (_literal_at(start, spans) or (start, end))[0]
        end = (_literal_at(end - 1, spans) or (start, end))[1]
        if start < last:
            continue
        pieces += [text[last:start], json.dumps(table.replacement(value, False))]
        last = end
    return "".join(pieces) + text[last:] if pieces else text


def build_table(findings: list[Finding], salt: bytes, table: SymbolTable | None = None) -> SymbolTable:
    """Enter every finding's value into a (new or given) symbol table."""
    table = table or SymbolTable(salt)
    pieces = {f.value for f in findings if f.detector.endswith(WRITTEN_PIECE)}
    table.written |= pieces - {f.value for f in findings if not f.detector.endswith(WRITTEN_PIECE)}
    for finding in findings:
        table.add(finding.value, finding.kind)
        if finding.detector.endswith(("+split", KBA_DETECTOR)) or finding.detector.startswith(
            ("turns:", SECRET_READER)
        ):  # its evidence is two events, or a block's name lines above: no window re-finds it
            table.everywhere.add(finding.value)
        plain = encoded_text(finding.value) if finding.kind not in PII_KINDS else None
        if plain is not None and _DECODED_CREDENTIAL.fullmatch(plain) and not _DECODED_NAME.fullmatch(plain):
            table.add(plain, finding.kind)
    for value, kind in list(table.kinds.items()):
        if kind not in PII_KINDS and len(value) >= _ENCODED_MIN and not table.is_plain_word(value):
            for encoded in transformed_copies(value):
                table.add(encoded, kind)
    return table


_ENCODED_MIN = 6
"""The shortest credential whose encoded copies are looked for (shorter ones are words' pieces)."""
_NAME_LIKE = re.compile(r"[A-Za-z_]+")


def transformed_copies(value: str) -> set[str]:
    """How a log re-prints a credential it showed in the clear: base64 (``echo -n $PW | base64`` for
    a Kubernetes Secret, with ``echo``'s newline too), percent-encoded (spliced into a URL), hex,
    upper case, reversed, and the fixed rotations an obfuscating script or a CTF-style task applies
    (ROT13, ROT47, ROT18: ROT13 with the digits turned by five; :func:`rotations`). A value replaced
    where it was labelled stayed readable in these copies; no detector finds them alone (a short
    base64 or a hex run is no key on its own evidence, and a rotated value is as random as the
    value). An all-letter name's upper case is an environment variable's name (``db_password`` ->
    ``DB_PASSWORD``), so only a value with a digit or a symbol gets that copy."""
    raw = value.encode()
    latin = raw.decode("latin-1")  # one character per byte: each percent-encoded by its table
    copies = {
        base64.b64encode(raw).decode(),
        base64.b64encode(raw + b"\n").decode(),
        base64.urlsafe_b64encode(raw).decode(),
        latin.translate(_QUOTED),
        latin.translate(_QUOTED_PLUS),
        raw.hex(),
        raw.hex().upper(),
        value[::-1],
        *rotations(value),
    }
    if not _NAME_LIKE.fullmatch(value):
        copies.add(value.upper())
    copies.discard(value)
    return copies


_QUOTED = {byte: urllib.parse.quote(bytes([byte]), safe="") for byte in range(256)}
_QUOTED_PLUS = {byte: urllib.parse.quote_plus(bytes([byte]), safe="") for byte in range(256)}
"""Each byte as ``urllib.parse.quote(value, safe="")`` and ``quote_plus(value)`` write it: both
encode ``value`` as UTF-8 and write each byte on its own, so one ``str.translate`` of the bytes read
as Latin-1 gives the same text without a Python call per byte (a document's table asks this of
some 1,500 values)."""
_DECODED_CREDENTIAL = re.compile(r"[!-~]{6,200}")
"""What a secret found in base64 decodes to, when it is one printable token (a password under a
Kubernetes Secret's ``data``, ``user:pw`` of a Basic header): the log prints it too where a command
decoded it (``echo ... | base64 -d``), and that line is replaced with the same kind."""
_DECODED_NAME = re.compile(r"[a-z][a-z0-9]*(?:[_.:/-]+[a-z0-9]+)*/?|[A-Za-z][a-z]+")
"""Decoded text that names rather than grants (``orders_production``, ``localhost``, a URL, a
word): replaced everywhere, it rewrote every ``psql orders_production`` and ``curl https://...``."""


_ELLIPSIS = re.compile(r"\.\.\.|\u2026")
TRUNCATED_HEAD_MIN = 6
"""The shortest head of a credential replaced before an ellipsis: shorter heads (``ghp_``, ``sk-``)
are shared by every token of a format and carry next to nothing of the key."""


def truncated_heads(
    text: str, table: SymbolTable, found_here: Sequence[Finding] = (), windows: dict[str, str] | None = None
) -> list[Finding]:
    """Heads of the table's credentials that ``text`` shows cut short by an ellipsis: a verdict
    that quotes a long task id as its first 120 characters and ``...``, a tool output truncated
    mid-token. No detector matches a token's head (its format needs the whole token) and the table
    holds whole values only, so the head stayed beside the pseudonym of the whole. Pieces shown
    any other way are :func:`partial_copies` (``found_here``: the findings the scan made in ``text``;
    ``windows``: :func:`piece_windows` of texts that include ``text``). The table's credentials are
    ordered only for a text that shows an ellipsis (an episode's fields share one table of
    thousands of values in a leak measurement, and few fields hold a mark)."""
    found: list[Finding] = []
    marks = list(_ELLIPSIS.finditer(text))
    credentials = sorted(v for v in table.credentials if len(v) > TRUNCATED_HEAD_MIN) if marks else []
    for mark in marks:
        end = mark.start()
        for value in credentials:
            start = _head_start(text, end, value)
            if start is not None:
                found.append(Finding(table.kinds[value], start, end, text[start:end], "truncated"))
                break
    return found + partial_copies(text, table, found_here, windows)


PARTIAL_MIN = 12
"""The shortest piece of a credential replaced wherever it stands: twelve characters of a random
token are 60 bits or more of it, and the red team's leak test counts any 12 characters."""
PARTIAL_OF = 20
"""The shortest credential whose pieces are looked for: of a shorter one, 12 characters are most of it
and a word or a number shares them by chance."""
_RUN = re.compile(rf"\S{{{PARTIAL_MIN},}}")


def partial_copies(
    text: str, table: SymbolTable, found_here: Sequence[Finding] = (), windows: dict[str, str] | None = None
) -> list[Finding]:
    """Pieces of 12 characters or more of the table's long credentials (head, tail or middle) that
    ``text`` shows without an ellipsis: a masked display (``ghp_AbCd…12****wxyz``, ``Bearer
    <head>XXXX``), a ``prefix=<head>`` log line, a ``grep`` for the head, ``cut -c1-18`` output,
    "the key ending in <tail>" (rtsec10 PL: 18 of 48 kept, and a tail in a later event of the
    episode too). Each piece is widened to the longest run it shares with the credential; the
    whole credential is the table's own, and a piece a finding of the scan already covers is its
    (a key's lines joined from string literals: each line is its own finding). ``windows`` is
    :func:`piece_windows` of texts that include ``text`` (an episode's fields share one), else of
    ``text`` alone."""
    windows = piece_windows(table, [text]) if windows is None else windows
    if not windows:
        return []
    found: list[Finding] = []
    for run in _RUN.finditer(text):
        position, end = run.start(), run.end()
        while position + PARTIAL_MIN <= end:
            window = text[position : position + PARTIAL_MIN]
            value = windows.get(window)
            if value is None or not _token_piece(window):
                position += 1
                continue
            start, stop = _widened(text, position, value, run.start(), end)
            if stop - start < len(value) and not any(f.start < stop and start < f.end for f in found_here):
                found.append(Finding(table.kinds[value], start, stop, text[start:stop], "partial"))
            position = stop
    return found


def piece_windows(table: SymbolTable, texts: Sequence[str]) -> dict[str, str]:
    """Every 12-character window of each long credential of ``table`` (:data:`PARTIAL_OF`) that
    shares a window with ``texts``, to the first credential in order holding it; for every window a
    run of ``texts`` holds, the same answer as the map of all the table's credentials, the only
    windows :func:`partial_copies` asks about. A stream's raw span (:func:`_streamed_findings`)
    holds none: its pieces are the chunks' framing. Only a window that reads as a random token's
    piece is a piece (:func:`_token_piece`); that is the window's own property, so
    :func:`partial_copies` asks it of the windows a text shows, not of the map's.

    Why restricted: a document's table holds some 1,400 credentials, most of them encoded copies of
    the values found (:func:`transformed_copies`) that the text never shows, 200k windows in all. A
    credential sharing a window with a text shares with it the :data:`_GRAM` characters at one of
    the credential's offsets that are multiples of :data:`_GRAM_STRIDE` (the window spans one such
    offset and the gram after it), so a credential none of whose sampled grams a text's runs hold
    owns no window the text shows and is left out: its windows would never be asked for. Where the
    credentials are shorter in all than the texts (an episode's few keys), reading the texts' grams
    would cost more than it spares, and every credential is kept."""
    shown = [v for v in table.credentials if len(v) >= PARTIAL_OF and not _STREAM_FRAMING.search(v)]
    if sum(map(len, shown)) > sum(map(len, texts)):
        grams: set[str] = set()
        for text in texts:
            for run in _RUN.finditer(text):
                ends = range(run.start() + _GRAM, run.end() + 1)
                grams.update(
                    map(text.__getitem__, map(slice, range(run.start(), run.end() - _GRAM + 1), ends))
                )
        shown = [value for value in shown if not grams.isdisjoint(_sampled_grams(value))]
    windows: dict[str, str] = {}
    for value in sorted(shown, reverse=True):  # the map built in C: each value's windows over later ones'
        windows.update(zip(_slices(value), itertools.repeat(value)))
    return windows


_GRAM = 8
_GRAM_STRIDE = PARTIAL_MIN - _GRAM + 1
"""A window of :data:`PARTIAL_MIN` characters at any offset of a credential holds the :data:`_GRAM`
characters at the first multiple of this stride at or after that offset."""


def _sampled_grams(value: str) -> Iterator[str]:
    """The :data:`_GRAM` characters of ``value`` at every multiple of :data:`_GRAM_STRIDE`."""
    ends = range(_GRAM, len(value) + 1, _GRAM_STRIDE)
    return map(value.__getitem__, map(slice, range(0, len(value) - _GRAM + 1, _GRAM_STRIDE), ends))


def _slices(value: str) -> Iterator[str]:
    """Every 12-character window of ``value``, in order."""
    return map(
        value.__getitem__, map(slice, range(len(value) - PARTIAL_MIN + 1), range(PARTIAL_MIN, len(value) + 1))
    )


_STREAM_FRAMING = re.compile(r'"\s*[,}\]]|[{,]\s*"')
"""A string literal's end or start beside JSON's punctuation: a value holding it spans chunks."""


def _token_piece(window: str) -> bool:
    """Whether a window reads as a random token's piece: no ``__``, and a digit and a letter, or two
    capitals and two small letters. A word, a name or a path is no such piece (``super-secret`` of a
    passphrase, ``postgres://u`` of a DSN, ``Personalized``, ``__home__user__``): replaced, it
    reached text that never held the credential (real episodes)."""
    if "__" in window:
        return False
    capitals, smalls = sum(map(str.isupper, window)), sum(map(str.islower, window))
    return any(map(str.isdigit, window)) and capitals + smalls > 0 or capitals >= 2 and smalls >= 2


def _widened(text: str, position: int, value: str, floor: int, ceiling: int) -> tuple[int, int]:
    """The longest span around ``text[position:]``'s window that is one piece of ``value``."""
    offset = value.find(text[position : position + PARTIAL_MIN])
    start, stop, head, tail = position, position + PARTIAL_MIN, offset, offset + PARTIAL_MIN
    while start > floor and head > 0 and text[start - 1] == value[head - 1]:
        start, head = start - 1, head - 1
    while stop < ceiling and tail < len(value) and text[stop] == value[tail]:
        stop, tail = stop + 1, tail + 1
    return start, stop


_TOKEN_END = re.compile(r"[A-Za-z0-9_+/=-]")


def _head_start(text: str, end: int, value: str) -> int | None:
    """Where the longest head of ``value`` (shorter than the value) that ends at ``end`` starts."""
    if not end or not _TOKEN_END.match(text, end - 1):
        return None  # an ellipsis after a bracket or a space cuts no token
    opening = value[:TRUNCATED_HEAD_MIN]
    start = text.find(opening, max(0, end - len(value) + 1), end)
    while start != -1 and end - start >= TRUNCATED_HEAD_MIN:
        if value.startswith(text[start:end]) and not value.startswith(".", end - start):
            return start  # (a value whose own text goes on with the dots was not cut there)
        start = text.find(opening, start + 1, end)
    return None


def redact_text(
    text: str, salt: bytes, config: RedactionConfig | None = None, shell: bool = False
) -> tuple[str, list[Finding]]:
    """Redact one string (plain text, a shell command, or JSON text); returns text and findings."""
    config = config or RedactionConfig()
    context = Context(shell=shell)
    findings = scan(text, config, context)
    table = build_table(findings, salt)
    heads = truncated_heads(text, table, findings)
    findings.extend(heads)
    build_table(heads, salt, table)
    return rewrite(text, table, context), resolve_findings(findings, table)


def resolve_findings(findings: list[Finding], table: SymbolTable) -> list[Finding]:
    """One finding per (field, span, value), labelled with the kind its pseudonym carries."""
    unique: dict[tuple[str, int, int, str], Finding] = {}
    for finding in findings:
        unique.setdefault((finding.field, finding.start, finding.end, finding.value), finding)
    return [replace(f, kind=table.kinds[f.value]) for f in unique.values()]


def mask_secrets(text: str, config: RedactionConfig | None = None) -> str:
    """``text`` with every secret of a known format replaced by its kind alone
    (``<REDACTED_AWS_KEY>``). For a short label read from a record (a report's subject: a tool name,
    a path, a task id) published where no redaction salt reaches, such as a run's metadata: known
    formats only, as for ids (a path or a name is not a high-entropy string to judge), and no
    digest, so nothing in the label links back to the value."""
    context = Context(id_value=True)
    findings = scan(text, config or RedactionConfig(), context)
    if not findings:
        return text
    masked = rewrite(text, build_table(findings, b"mask"), context)
    return PSEUDONYM_RE.sub(lambda found: f"<REDACTED_{found.group(1) or found.group(3)}>", masked)
