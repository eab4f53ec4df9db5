"""Every string field of the trace record, classified once: how redaction treats it, and why.

Redaction used to visit a hand-kept list of fields, so a field nobody listed (the episode id, the
licence, the lineage, a tool's version, a timestamp) passed into the published corpus unchanged.
Now the walker (:func:`~trajectory_platform.curation.redact.episode.string_slots`) walks the record
itself and asks :data:`FIELDS` about every string it meets: a string field without an entry is an
error (:class:`UnclassifiedField`), and ``tests/curation/test_redact_fields.py`` fails when
:data:`~trajectory_platform.traces.schema.EPISODE_SCHEMA` has a string leaf :data:`FIELDS` lacks.

The classes (docs/redaction.md has the table with each field's reason):

- :data:`FREE_TEXT`: anything may be written there; scanned in full (known formats, entropy, PII,
  JSON inside the string, keys and values).
- :data:`COMMAND`: a tool call's arguments; free text, read as a shell line when the tool is a shell.
- :data:`ID`: names and ids that look random by design; known secret formats only, each replaced by
  its keyed pseudonym (one symbol table per episode, so a tool keeps one name in its spec and calls).
- :data:`LOCATOR`: where the record was read (file, JSON path); known formats only, as ids.
- :data:`LICENSE`: an SPDX expression; known formats only. Its tier is settled from the text before
  (``corpus.py``), and a licence carrying a secret is never permissive: it is blocked.
- :data:`KEY`: the episode id, the join key of every later stage; known formats only, and one found
  there refuses the episode (:class:`OutOfClass`): a pseudonym would have to be the same in every
  table that joins on the id, the upstream ones included, and a refused episode is named in
  ``redaction_rejects`` by a keyed digest, never its text.
- vocabularies (:func:`vocabulary`) and :data:`TIMESTAMP`: closed sets of values; not scanned, and a
  value outside the set refuses the episode (:class:`OutOfClass`). Ingest refuses the same values
  (``traces/validate.py``); redaction checks again because its input need not come from ingest.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from trajectory_platform.curation.redact.engine import Context
from trajectory_platform.traces.adapters import FORMAT_NAMES
from trajectory_platform.traces.record import (
    EVENT_KINDS,
    OBSERVATION_STATUSES,
    TERMINAL_STATUSES,
    is_timestamp,
    known_finish_reason,
)

_SHELL_TOOL_WORDS = frozenset(
    {"bash", "shell", "terminal", "sh", "zsh", "cmd", "powershell", "exec", "command"}
)


def is_shell_tool(name: str | None) -> bool:
    """Whether a tool takes a shell command line (``execute_bash``, ``run_command``, ``shell``)."""
    parts = (name or "").lower().replace("-", "_").replace(".", "_").split("_")
    return any(part in _SHELL_TOOL_WORDS for part in parts)


_IDS = Context(id_value=True)
_TEXT = Context()


@dataclass(frozen=True)
class FieldClass:
    """How one kind of field is redacted.

    ``context`` gives the scan context for the field's owner (None: the field is not scanned, its
    value must pass ``admits``); ``refuses_secrets``: a secret found there refuses the episode
    instead of being pseudonymized; ``shape`` says what a value must be, for a refusal's detail.
    """

    name: str
    context: Callable[[Any], Context] | None = None
    admits: Callable[[str], bool] | None = None
    refuses_secrets: bool = False
    shape: str = ""

    def context_for(self, owner: Any) -> Context:
        """The scan context of a field of this class on ``owner`` (a closed class is not scanned)."""
        if self.context is None:
            raise ValueError(f"{self.name} fields are checked against their class, not scanned")
        return self.context(owner)


FREE_TEXT = FieldClass("free_text", context=lambda _owner: _TEXT)
COMMAND = FieldClass("command", context=lambda call: Context(shell=is_shell_tool(call.name)))
ID = FieldClass("id", context=lambda _owner: _IDS)
LOCATOR = FieldClass("locator", context=lambda _owner: _IDS)
LICENSE = FieldClass("license", context=lambda _owner: _IDS)
KEY = FieldClass("key", context=lambda _owner: _IDS, refuses_secrets=True, shape="an id without a secret")
TIMESTAMP = FieldClass("timestamp", admits=is_timestamp, shape="an ISO 8601 time or epoch seconds")


def vocabulary(what: str, values: Collection[str] | Callable[[str], bool]) -> FieldClass:
    """A closed-vocabulary class: a value must be one of ``values`` (or pass that predicate)."""
    admits = values if callable(values) else frozenset(values).__contains__
    return FieldClass("vocabulary", admits=admits, shape=f"a known {what}")


FIELDS: dict[str, FieldClass] = {
    "episode_id": KEY,
    "source_format": vocabulary("source format", FORMAT_NAMES),
    "source_file": LOCATOR,
    "source_path": LOCATOR,
    "task.fixture_id": ID,
    "task.prompt": FREE_TEXT,
    "task.repo_family": ID,
    "task.tool_family": ID,
    "task.domain": ID,
    "task.license": LICENSE,
    "lineage.model": ID,
    "lineage.model_digest": ID,
    "lineage.adapter_digest": ID,
    "lineage.prompt_template_digest": ID,
    "lineage.tokenizer_digest": ID,
    "lineage.tool_manifest_digest": ID,
    "lineage.environment_digest": ID,
    "lineage.sampling_params_json": FREE_TEXT,
    "lineage.sampler_policy_digest": ID,
    "tools[].name": ID,
    "tools[].description": FREE_TEXT,
    "tools[].parameters_json": FREE_TEXT,
    "tools[].version": ID,
    "events[].kind": vocabulary("event kind", EVENT_KINDS),
    "events[].content": FREE_TEXT,
    "events[].reasoning": FREE_TEXT,
    "events[].tool_calls[].id": ID,
    "events[].tool_calls[].name": ID,
    "events[].tool_calls[].arguments": COMMAND,
    "events[].tool_call_id": ID,
    "events[].tool_name": ID,
    "events[].status": vocabulary("observation status", OBSERVATION_STATUSES),
    "events[].timestamp": TIMESTAMP,
    "events[].finish_reason": vocabulary("finish reason", known_finish_reason),
    "events[].name": ID,
    "delivered_inputs[].messages_json": FREE_TEXT,
    "delivered_inputs[].tools_version": ID,
    "outcome.terminal_status": vocabulary("terminal status", TERMINAL_STATUSES),
    "outcome.final_answer": FREE_TEXT,
    "outcome.workspace_diff": FREE_TEXT,
    "outcome.verifier_results_json": FREE_TEXT,
    "extra_json": FREE_TEXT,
}
"""Every string field of :class:`~trajectory_platform.traces.record.Episode`, by its path (``[]``
marks a list), and its class. The one place a field's treatment is decided."""


class UnclassifiedField(RuntimeError):
    """A string field of the record that :data:`FIELDS` does not classify: a programming error (a
    field was added to the record and not here), never silently passed through."""


class OutOfClass(ValueError):
    """An episode redaction refuses: a field's value is outside its class (an unknown vocabulary
    value, a timestamp that is no time, a secret in the episode id). ``field`` is the field's path,
    ``detail`` says what it must be and names the value by its keyed digest (the redaction salt's
    HMAC, as a pseudonym does), never its text."""

    def __init__(self, field: str, field_class: FieldClass, digest: str) -> None:
        self.field, self.field_class = field, field_class
        self.detail = f"{field} is not {field_class.shape} (value's keyed digest {digest})"
        super().__init__(self.detail)
