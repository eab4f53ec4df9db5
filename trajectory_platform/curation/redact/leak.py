"""Λ_leak: canaries planted in a copy of the stream, then looked for after redaction.

Λ_leak = C_detected_canaries / C_injected_canaries (curation §Formal mathematical metrics). Each
canary is a fresh synthetic secret inside a realistic carrier line (a shell command, a header,
a connection string, an assignment, an e-mail), planted in every encoding a log carries secrets
in: raw, JSON-escaped (inside a JSON document carried in a string), double-escaped, base64,
URL-encoded, fully percent-encoded, hex, wrapped in ANSI colour codes, ``\\u``-escaped inside a
shell string, as HTML entities, in look-alike Cyrillic letters, in base64 wrapped at 76 columns as
``base64`` writes it, as a JSON document's array of single characters, in base85 as Python's
``b85encode`` writes it, fully percent-encoded and then hex-encoded (two encodings stacked), in
base32, dumped by ``xxd``, as a quoted-printable MIME body (spaces encoded too), and split across
two adjacent messages. A canary leaks when, after redaction, its secret still appears anywhere in
the episode in its own encoding (or plain), or inside any base64, base85 or base32 run (its lines
joined, for the wrapped form) that decodes to text containing it, in the bytes or the character
columns of the ``xxd`` rows left, or in the text read as quoted-printable (a split one: when either
half survives). Canaries are seeded by the episode id,
so runs are comparable. The real episode is never modified.

A corpus plants canaries in a declared sample of its records, not in every one
(:func:`choose_leak_sample`): each record's place in the sample is a keyed hash of its id (the
redaction salt and a seed), so the same inputs, seed and salt give the same sample and byte-identical
outputs, and a log's author cannot tell which records will carry canaries. Λ_leak is reported with
its exact (Clopper-Pearson) 95% interval and the sample size (:meth:`LeakReport.as_dict`).
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import hmac
import json
import quopri
import random
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise
from urllib.parse import quote

from trajectory_platform.curation.leak_report import LeakReport
from trajectory_platform.curation.redact.decoders import B85_ALPHABET
from trajectory_platform.curation.redact.engine import redact_text
from trajectory_platform.curation.redact.episode import redact_episode, string_slots
from trajectory_platform.curation.redact.fields import OutOfClass
from trajectory_platform.curation.redact.model import RedactionConfig
from trajectory_platform.traces.record import Episode, canonical_json

FORMS = (
    "raw",
    "json_escaped",
    "double_escaped",
    "base64",
    "url_encoded",
    "percent_encoded",
    "hex",
    "ansi",
    "u_escaped_shell",
    "html_entities",
    "look_alike",
    "base64_wrapped",
    "char_array_json",
    "base85",
    "hex_of_percent",
    "base32",
    "xxd_dump",
    "quoted_printable",
    "split_messages",
)
SPLIT_FORM = "split_messages"
"""Not an encoding but a position: the secret's first half ends one message, its second half
starts the next (episodes only; a document has no messages)."""
TEXT_FORMS = tuple(form for form in FORMS if form != SPLIT_FORM)
_ALNUM = string.ascii_letters + string.digits
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")


@dataclass(frozen=True)
class Canary:
    """One synthetic secret and the line that carries it."""

    kind: str
    secret: str
    carrier: str


def make_canaries(seed: str) -> list[Canary]:
    """Fresh, deterministic canaries for one episode (seeded by its id)."""
    rng = random.Random(hashlib.sha256(seed.encode()).digest())

    def pick(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    aws = "AKIA" + pick(string.ascii_uppercase + string.digits, 16)
    github = "ghp_" + pick(_ALNUM, 36)
    password = pick(_ALNUM, 10) + rng.choice("!#%^*") + pick(_ALNUM, 3)
    generic = pick(_ALNUM + "+/", 40)
    header = pick(_ALNUM, 8)
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi" + pick(_ALNUM, 18) + "." + pick(_ALNUM + "-_", 43)
    email = f"{pick(string.ascii_lowercase, 6)}.{pick(string.ascii_lowercase, 7)}@example-corp.com"
    return [
        Canary("AWS_KEY", aws, f"aws configure set aws_access_key_id {aws}"),
        Canary(
            "GITHUB_TOKEN", github, f'curl -H "Authorization: token {github}" https://api.github.com/user'
        ),
        Canary("PASSWORD", password, f"DATABASE_URL=postgres://svc:{password}@db.internal:5432/app"),
        Canary("SECRET", generic, f'api_secret = "{generic}"'),
        Canary("JWT", jwt, f"Authorization: Bearer {jwt}"),
        Canary("AUTH_HEADER", header + generic[:20], f"X-Api-Key: {header + generic[:20]}"),
        Canary("EMAIL", email, f"escalate to {email} before merging"),
    ]


_LOOK_ALIKES = str.maketrans("aeopcxyAEOPCXBHKMT", "аеорсхуАЕОРСХВНКМТ")
"""Latin letters and the Cyrillic letters drawn like them, as a homograph attack swaps them."""
_WRAPPED_PREFACE = "# exported by deploy.sh on the build host, do not commit\n"
"""Text before the carrier so its base64 always runs past one 76-column line."""
_LIST_PUNCTUATION = re.compile(r'[\s"\\,]+')
"""What stands between the characters of a JSON array of them, escaped or not: removed, a spelled
secret that survived reads whole again."""
_BASE85_RUN = re.compile(rf"[{re.escape(B85_ALPHABET)}]{{16,}}")
_BASE32_RUN = re.compile(r"[A-Z2-7]{16,}=*")
_XXD_ROW = re.compile(r"[0-9a-f]{8}: (?P<codes>[0-9a-f ]{39})  ")
"""An ``xxd`` row's offset and its codes, padded to their full width, before its character column."""
_LINE_BREAK = re.compile(r"\r?\n|\\n")
_JSON_ESCAPED = re.compile(r'\\(["\\])')
_WRAPPED_LINE = re.compile(r"(?<=[A-Za-z0-9+/])(?:\r?\n|\\n)(?=[A-Za-z0-9+/])")
"""A line break (or a JSON ``\\n`` escape of one) between two base64 characters."""


def _xxd(text: str) -> str:
    """``text`` as ``xxd`` dumps it: rows of 16 bytes, an offset, hex in groups of two bytes, and
    the bytes again as characters (``.`` for any that is not printable ASCII)."""
    raw = text.encode()
    rows = []
    for offset in range(0, len(raw), 16):
        chunk = raw[offset : offset + 16]
        codes = " ".join(chunk[i : i + 2].hex() for i in range(0, len(chunk), 2))
        shown = "".join(chr(byte) if 32 <= byte < 127 else "." for byte in chunk)
        rows.append(f"{offset:08x}: {codes:<39}  {shown}")
    return "\n".join(rows)


def _wrapped_base64(text: str) -> str:
    """``text`` in base64 as ``base64`` writes it: cut into lines of 76 columns."""
    encoded = base64.b64encode(text.encode()).decode()
    return "\n".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))


_TRANSFORMS = {
    "raw": lambda s: s,
    "json_escaped": lambda s: json.dumps(s)[1:-1],
    "double_escaped": lambda s: json.dumps(json.dumps(s)[1:-1])[1:-1],
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
    "url_encoded": lambda s: quote(s, safe=""),
    "percent_encoded": lambda s: "".join(f"%{b:02X}" for b in s.encode()),
    "hex": lambda s: s.encode().hex(),
    "ansi": lambda s: s,
    "u_escaped_shell": lambda s: "".join(f"\\u{ord(c):04x}" for c in s),
    "html_entities": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "look_alike": lambda s: s.translate(_LOOK_ALIKES),
    "base64_wrapped": lambda s: _wrapped_base64(f"{_WRAPPED_PREFACE}{s}\n"),
    "char_array_json": lambda s: json.dumps({"argv": list(s)}),
    "base85": lambda s: base64.b85encode(s.encode()).decode(),
    "hex_of_percent": lambda s: "".join(f"%{b:02X}" for b in s.encode()).encode().hex(),
    "base32": lambda s: base64.b32encode(s.encode()).decode(),
    "xxd_dump": _xxd,
    "quoted_printable": lambda s: quopri.encodestring(s.encode(), quotetabs=True).decode(),
    SPLIT_FORM: lambda s: s,
}
"""Each form's encoding of a bare string: how a carrier is planted, and how a surviving secret
is recognized in that form."""


def encode(carrier: str, form: str) -> str:
    """The carrier as it would appear in the stream in one of :data:`FORMS`."""
    body = _TRANSFORMS[form](carrier)
    if form == "json_escaped":
        return json.dumps({"stdout": carrier})
    if form == "double_escaped":
        return json.dumps({"body": json.dumps({"stdout": carrier})})
    if form == "url_encoded":
        return f"GET https://logs.example-corp.com/search?q={body}"
    if form in ("hex", "hex_of_percent"):
        return f"stdout (hex): {body}"
    if form in ("base85", "base32"):
        return f"payload ({form}): {body}"
    if form == "xxd_dump":
        return f"$ xxd deploy.env\n{body}"
    if form == "quoted_printable":
        return f"Content-Transfer-Encoding: quoted-printable\n\n{body}"
    if form == "ansi":
        return f"\x1b[1;31m{carrier}\x1b[0m"
    if form == "u_escaped_shell":
        return f'echo "{{\\"stdout\\": \\"{body}\\"}}" | jq .'
    return body


def _plant(episode: Episode, planted: list[str]) -> None:
    """Append each planted string to a rotating free-text slot (new JSON key for tool arguments)."""
    slots: list[tuple[object, str]] = [
        (event, "content") for event in episode.events if event.kind != "compaction"
    ]
    calls = [call for event in episode.events for call in event.tool_calls]
    slots.append((episode.task, "prompt"))
    for i, text in enumerate(planted):
        if calls and i % 5 == 4:
            call = calls[i % len(calls)]
            try:
                arguments = json.loads(call.arguments or "{}")
            except ValueError:
                arguments = None
            if isinstance(arguments, dict):
                arguments[f"canary_{i}"] = text
                call.arguments = json.dumps(arguments)
                continue
        owner, attr = slots[i % len(slots)]
        current = getattr(owner, attr)
        setattr(owner, attr, f"{current}\n{text}" if current else text)


def _plant_split(episode: Episode, canaries: list[Canary]) -> list[Canary]:
    """Split each canary's carrier inside its secret across a pair of adjacent events (one pair
    each: the first half ends one event's content, the second starts the next); the planted ones."""
    planted = []
    for canary, (first, second) in zip(canaries, pairwise(episode.events), strict=False):
        cut = canary.carrier.index(canary.secret) + len(canary.secret) // 2
        first.content = f"{first.content}\n{canary.carrier[:cut]}" if first.content else canary.carrier[:cut]
        second.content = (
            f"{canary.carrier[cut:]}\n{second.content}" if second.content else canary.carrier[cut:]
        )
        planted.append(canary)
    return planted


def _leaked(canary: Canary, form: str, text: str, readings: dict[str, str]) -> bool:
    """A secret leaks plain, in its form's own encoding, or (base64) inside a run decoding to it,
    its lines joined when it was wrapped, or spelled as an array, what separates its characters
    taken out; a split secret leaks when either half survives."""
    if form in readings:
        return canary.secret in readings[form]
    if form == SPLIT_FORM:
        half = len(canary.secret) // 2
        return canary.secret[:half] in text or canary.secret[half:] in text
    if form.startswith(FIELD_FORM):  # planted plain, in a field of that class
        return canary.secret in text
    return canary.secret in text or _TRANSFORMS[form](canary.secret) in text


def _decoded_runs(text: str, alphabet: re.Pattern[str], decode: Callable[[str], bytes]) -> str:
    """Every run of an encoding's ``alphabet`` in ``text`` decoded (what does not decode is skipped)."""
    pieces = []
    for run in alphabet.findall(text):
        try:
            pieces.append(decode(run).decode("utf-8", "ignore"))
        except (binascii.Error, ValueError):
            continue
    return "\n".join(pieces)


def _base64_padded(run: str) -> bytes:
    return base64.b64decode(run + "=" * (-len(run) % 4))


def _base32_padded(run: str) -> bytes:
    bare = run.rstrip("=")
    return base64.b32decode(bare + "=" * (-len(bare) % 8))


def _xxd_rows_read(text: str) -> str:
    """What the ``xxd`` rows left in ``text`` show (their lines split at real or JSON-escaped line
    breaks, JSON's escaped quotes and backslashes undone): the bytes of their hex, and their
    character columns joined."""
    codes, columns = [], []
    for line in _LINE_BREAK.split(text):
        line = _JSON_ESCAPED.sub(r"\1", line)
        row = _XXD_ROW.match(line)
        if row and len(digits := row.group("codes").replace(" ", "")) % 2 == 0:
            codes.append(bytes.fromhex(digits))
            columns.append(line[row.end() : row.end() + len(digits) // 2])
    return b"".join(codes).decode("utf-8", "ignore") + "\n" + "".join(columns)


def _quoted_printable_read(text: str) -> str:
    """``text`` (its JSON-escaped line breaks made real) decoded as quoted-printable."""
    return quopri.decodestring(_LINE_BREAK.sub("\n", text).encode()).decode("utf-8", "ignore")


FORMS_PER_EPISODE = 4
"""Encodings planted per episode. They rotate with the episode id, so a corpus of a few dozen
episodes exercises every encoding many times, at the cost of four per episode, not ten."""


def episode_forms(seed: str) -> tuple[str, ...]:
    """The :data:`FORMS_PER_EPISODE` consecutive encodings (from a seeded offset) one episode gets."""
    offset = hashlib.sha256(seed.encode()).digest()[0] % len(FORMS)
    return tuple(FORMS[(offset + k) % len(FORMS)] for k in range(FORMS_PER_EPISODE))


FIELD_CLASS_CANARIES = ("free_text", "id", "locator", "license", "key", "vocabulary", "timestamp")
"""The field classes (:data:`.fields.FIELDS`) each planted episode gets one more canary in, in a
field of that class drawn by the episode id (over a sample, every field of the class): the
encodings above go into messages, tool-call arguments and the prompt only, so a field redaction
did not walk (the episode id, the licence, a tool's version, a timestamp) leaked with Λ_leak at 0.
A canary in a scanned class must come out pseudonymized; one in a class that refuses (the key, a
vocabulary, a timestamp) must make redaction refuse the episode (:class:`.fields.OutOfClass`):
refused, it is published nowhere, and counts as caught."""
FIELD_FORM = "field:"
"""The prefix of a field class canary's form in :attr:`LeakReport.leaked_by_form`."""
_SELF_NAMING = frozenset({"AWS_KEY", "GITHUB_TOKEN", "JWT"})
"""Canary kinds whose format names itself. Ids, locators, the licence and the key are scanned for
known formats only (their contract: a name looks random by design), so their canary is one of
these, appended as a suffix (``run-42-<token>``: a log named after a key, a token URL); a line of
free text gets any kind with its carrier line, and a closed class any kind (it must refuse all)."""
_ANY_KIND = frozenset({"free_text", "vocabulary", "timestamp"})


def _plant_in_fields(
    episode: Episode, canaries: list[Canary], seed: str, salt: bytes, config: RedactionConfig | None
) -> tuple[list[tuple[Canary, str]], LeakReport]:
    """One canary in a field of each of :data:`FIELD_CLASS_CANARIES` (the episode has one): those
    of scanned classes are planted in ``episode`` and returned for counting after its redaction;
    those of refusing classes are tried one by one (planted, redacted, taken out again) and come
    back counted."""
    rng = random.Random(hashlib.sha256(seed.encode()).digest())
    by_class: dict[str, list[tuple[object, str, bool]]] = {}
    for _path, owner, attr, field_class in string_slots(episode):
        refuses = field_class.context is None or field_class.refuses_secrets
        by_class.setdefault(field_class.name, []).append((owner, attr, refuses))
    planted: list[tuple[Canary, str]] = []
    refusals = LeakReport()
    offset = rng.randrange(len(canaries))  # which kind goes into which class rotates too
    for index, name in enumerate(FIELD_CLASS_CANARIES):
        if name not in by_class:
            continue
        owner, attr, refuses = rng.choice(by_class[name])
        kinds = canaries if name in _ANY_KIND else [c for c in canaries if c.kind in _SELF_NAMING]
        canary = kinds[(offset + index) % len(kinds)]
        text = canary.secret if name != "free_text" and canary.kind in _SELF_NAMING else canary.carrier
        current = getattr(owner, attr)
        joint = "\n" if name == "free_text" else "-"  # a line of text; a suffix of a name
        setattr(owner, attr, f"{current}{joint}{text}" if current else text)
        if refuses:
            refusals.add(_refused(episode, canary, FIELD_FORM + name, salt, config))
            setattr(owner, attr, current)
        else:
            planted.append((canary, FIELD_FORM + name))
    return planted, refusals


def _refused(
    episode: Episode, canary: Canary, form: str, salt: bytes, config: RedactionConfig | None
) -> LeakReport:
    """One canary in a field whose class refuses it: caught when redaction refuses the episode."""
    try:
        redacted, _ = redact_episode(episode, salt, config)
    except OutOfClass:
        return LeakReport(injected=1)
    return _count([(canary, form)], canonical_json(redacted.to_dict()))


def measure_episode_leak(episode: Episode, salt: bytes, config: RedactionConfig | None = None) -> LeakReport:
    """Plant every canary in this episode's encodings into a copy of it, and one in a field of each
    class (:data:`FIELD_CLASS_CANARIES`), redact, count survivors."""
    canaries = make_canaries(episode.episode_id)
    planted_copy = copy.deepcopy(episode)
    forms = episode_forms(episode.episode_id)
    plan = [(canary, form) for form in forms if form != SPLIT_FORM for canary in canaries]
    _plant(planted_copy, [encode(canary.carrier, form) for canary, form in plan])
    # fresh canaries: a plain copy of an encoded one would hand the redactor the value to look for
    field_seed = f"fields:{episode.episode_id}"
    in_fields, refusals = _plant_in_fields(planted_copy, make_canaries(field_seed), field_seed, salt, config)
    if SPLIT_FORM in forms:  # planted last, so each half stays at its message's very end or start
        plan += [(canary, SPLIT_FORM) for canary in _plant_split(planted_copy, canaries)]
    redacted, _ = redact_episode(planted_copy, salt, config)
    report = _count(plan + in_fields, canonical_json(redacted.to_dict()))
    report.add(refusals)
    report.records_planted = 1
    return report


def measure_text_leak(
    text: str, seed: str, salt: bytes, config: RedactionConfig | None = None, json_record: bool = False
) -> LeakReport:
    """Λ_leak for a plain-text document or one JSON record (canaries go under a new top-level key)."""
    canaries = make_canaries(seed)
    plan = [(canary, form) for form in TEXT_FORMS for canary in canaries]
    encoded = [encode(canary.carrier, form) for canary, form in plan]
    if json_record:
        record = json.loads(text)
        planted = (
            json.dumps({**record, "_canaries": encoded}) if isinstance(record, dict) else json.dumps(encoded)
        )
    else:
        planted = text + "\n" + "\n".join(encoded)
    redacted, _ = redact_text(planted, salt, config)
    report = _count(plan, redacted)
    report.records_planted = 1
    return report


def _count(plan: list[tuple[Canary, str]], text: str) -> LeakReport:
    readings = {  # the redacted text as each of these forms' survivors would read in it
        "base64": _decoded_runs(text, _BASE64_RUN, _base64_padded),
        "base64_wrapped": _decoded_runs(_WRAPPED_LINE.sub("", text), _BASE64_RUN, _base64_padded),
        "char_array_json": _LIST_PUNCTUATION.sub("", text),
        "base85": _decoded_runs(text, _BASE85_RUN, base64.b85decode),
        "base32": _decoded_runs(text, _BASE32_RUN, _base32_padded),
        "xxd_dump": _xxd_rows_read(text),
        "quoted_printable": _quoted_printable_read(text),
    }
    report = LeakReport(injected=len(plan))
    by_form: Counter = Counter()
    by_kind: Counter = Counter()
    for canary, form in plan:
        if _leaked(canary, form, text, readings):
            report.leaked += 1
            by_form[form] += 1
            by_kind[canary.kind] += 1
    report.leaked_by_form = dict(by_form)
    report.leaked_by_kind = dict(by_kind)
    return report


def measure_leak(
    episodes: Iterable[Episode], salt: bytes, config: RedactionConfig | None = None
) -> LeakReport:
    """Λ_leak over a corpus: canaries planted into a copy of every episode."""
    total = LeakReport()
    for episode in episodes:
        total.add(measure_episode_leak(episode, salt, config))
    total.records_total = total.records_planted
    return total


def episode_canary_count(episode_id: str, events: int) -> int:
    """How many canaries :func:`measure_episode_leak` plants in an episode with this id and this
    many events (known before planting, so a sample can be sized by canaries)."""
    kinds = len(make_canaries(episode_id))
    forms = episode_forms(episode_id)
    split = min(kinds, max(events - 1, 0)) if SPLIT_FORM in forms else 0
    in_fields = len(FIELD_CLASS_CANARIES) - (0 if events else 1)  # a timestamp needs an event
    return kinds * sum(form != SPLIT_FORM for form in forms) + split + in_fields


TEXT_CANARY_COUNT = len(TEXT_FORMS) * len(make_canaries(""))
"""Canaries :func:`measure_text_leak` plants in one document or record (every kind in every text form)."""


def sample_rank(salt: bytes, seed: int, record_id: str) -> float:
    """A record's place in [0, 1) for the canary sample: a hash keyed by the redaction salt, so the
    sample is reproducible for the same salt and seed and unpredictable without the salt."""
    digest = hmac.new(salt, f"leak-sample:{seed}:{record_id}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def choose_leak_sample(
    records: Iterable[tuple[str, int]], salt: bytes, fraction: float, min_canaries: int, seed: int
) -> set[str]:
    """The ids of the records to plant canaries in, from ``(record id, canaries it would get)``.

    A record is in the sample when its :func:`sample_rank` is below ``fraction``; when those plant
    fewer than ``min_canaries``, further records join in rank order until the minimum is met or every
    record is in (so a small corpus is planted in full).
    """
    ranked = sorted((sample_rank(salt, seed, record_id), record_id, count) for record_id, count in records)
    chosen: set[str] = set()
    planted = 0
    for rank, record_id, count in ranked:
        if rank >= fraction and planted >= min_canaries:
            break
        chosen.add(record_id)
        planted += count
    return chosen
