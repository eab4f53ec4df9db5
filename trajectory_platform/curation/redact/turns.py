"""Credentials named in one turn and given in the next.

A rule over one text sees ``Enter password: x`` and ``page.fill("#password", "x")``. An agent's
episode splits both over two events, and no text holds the pair:

- **A prompt answered in the next turn.** A program prompts for a password (``Enter password:``,
  ``[sudo] password for ubuntu:``, ``Enter PEM pass phrase:``) or the agent asks the user for it,
  and the next event answers with the bare value: OpenHands types into the running process with
  ``{"command": "x", "is_input": "true"}``, a terminal tool sends ``{"keys": "x"}``, the user replies
  ``x``, or frames it: "it's x", "sure, it's x", "use x" (a question that ends "What is it?" asks
  for the credential its sentence before named).
- **A prompt answered by a command that types into a terminal.** An agent driving a terminal
  through a multiplexer or a window tool reads the prompt in a pane and types the answer with a
  command: ``tmux send-keys -t agent 'x' Enter``, ``screen -X stuff 'x\\n'``, ``xdotool type 'x';
  xdotool key Return``. A word of such a command is typed when the command presses a key that
  submits a line or the word ends with a newline escape (:func:`typed_words`).
- **An element named in the observation, typed into by its number.** A web agent's observation
  lists the page's elements (WebArena's ``[43] textbox 'Password'``, browser-use's
  ``[12]<input type=password>``, Playwright MCP's ``textbox "Password" [ref=e12]``) and the next
  call types by the number alone: ``type [43] [x]``, ``{"index": 12, "text": "x"}``, ``{"ref":
  "e12", "text": "x"}``.

Whether a prompt or an element names a credential is :func:`.detectors.field_named_by`, the rule for
a locator; what is typed must look like a password on its own evidence
(:func:`.positional.credential_shaped`, and for a reply a digit, a symbol inside or a capital
after the first letter: "Absolutely!" answers a question, it is no password)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import pairwise

from trajectory_platform.curation.redact.detectors import field_named_by, passphrase_shaped
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import credential_shaped
from trajectory_platform.curation.redact.spelling import unspellable
from trajectory_platform.curation.redact.structure import TYPED_KEYS, json_objects
from trajectory_platform.curation.shell_split import bash_words, is_operator
from trajectory_platform.traces.record import Episode, Event

_NOTICE = re.compile(r"\[[^\[\]\n]*\]|\s*")
"""A line that is a tool's bracketed notice (OpenHands' ``[The command has no new output ...]``)
or blank, after the prompt it follows."""
_SENTENCE_END = re.compile(r"[.!?]\s+")
_WORD = re.compile(r"[A-Za-z]+")
_AFTER_ASKED = frozenset(
    {"for", "of", "to", "on", "at", "in", "please", "again", "here", "now"}
    | {"should", "do", "does", "did", "is", "was", "can", "could", "would", "will", "shall"}
)
"""What follows the word a question asks for ("the password for the db?", "Which password should
I use?"); another noun makes it a question about something else ("Which password manager do you
use?")."""
_PRONOUN_QUESTION_WORDS = 5
"""A question this short that names no credential ("What is it?") asks for the one the sentence
before it named ("I need the API key to continue.")."""
_REPLY_FRAME = re.compile(
    r"(?i)(?:(?:sure|ok|okay|yes|yeah|yep|of\s+course|here\s+you\s+go)[,!.]?\s+)?"
    r"(?:it'?s|it\s+is|it\s+was|that'?s|use|try)\s+(?P<value>[^\n]{4,128}?)[.!]?"
)
"""How a reply frames the value it gives: "it's X", "sure, it's X", "It is X.", "use X"."""
_PROMPT_MAX = 200
_INPUT_KEYS = frozenset({"input", "keys", "text", "stdin", "chars", "data"})
"""A call's keys whose value is typed into the running program: always an answer."""
_SUBMIT_KEYS = frozenset({"Enter", "C-m", "C-j", "Return", "KP_Enter", "KPEnter", "\\n", "\\r"})
"""Key names a terminal or window tool presses to submit a line (tmux, xdotool, wtype, kitty)."""
_LINE_END = re.compile(r"(?:\\[nr]|\^M)+$")
"""A newline escape ending a typed word (``screen -X stuff 'x\\n'``, ``send-text 'x\\r'``)."""
_TARGET_OPTIONS = frozenset({"-t", "-S", "-p", "-m", "-d", "--window", "--delay", "--match", "--pane-id"})
"""Options whose argument names a pane, a session, a window or a delay: never what is typed."""
_ELEMENT_ID = re.compile(r"\[(?:ref=)?(?P<id>[A-Za-z]{0,3}\d{1,6})\]")
_ELEMENT_KEYS = ("index", "ref", "element_id", "element_index", "id", "element", "target")
_TYPE_BY_ID = re.compile(r"\btype\s*\[(?P<id>[A-Za-z]{0,3}\d{1,6})\]\s*\[(?P<value>[^\]\n]{1,200})\]")


def credentials_across_turns(episode: Episode) -> list[Finding]:
    """Every credential named in one event and given in the next (module docstring)."""
    found: list[Finding] = []
    for index, (before, after) in enumerate(pairwise(episode.events), start=1):
        named = (before.content or "").rstrip()
        if not named:
            continue
        if asks_for_credential(named):
            found.extend(_answers(after, index))
        elements = _credential_elements(named)
        if elements:
            found.extend(_typed_into_elements(after, index, elements))
    return found


def asks_for_credential(text: str) -> bool:
    """Does ``text`` end with a prompt or question for a password (its last line, a tool's notices
    after it aside; of that line its last sentence)? A prompt ends with a colon; a question with a
    question mark, the password's word last or before a preposition (:data:`_AFTER_ASKED`)."""
    lines = text.splitlines()
    while lines and _NOTICE.fullmatch(lines[-1]):
        lines.pop()
    if not lines:
        return False
    sentences = _SENTENCE_END.split(lines[-1].strip())
    prompt = sentences[-1]
    if (
        len(sentences) > 1
        and len(_WORD.findall(prompt)) <= _PRONOUN_QUESTION_WORDS
        and not field_named_by(prompt)
    ):
        prompt = f"{sentences[-2]} {prompt}"
    if len(prompt) > _PROMPT_MAX or field_named_by(prompt) is None:
        return False
    if prompt.endswith(":"):
        return True
    words = _WORD.findall(prompt)
    return prompt.endswith("?") and any(
        field_named_by(word) and (index + 1 == len(words) or words[index + 1].lower() in _AFTER_ASKED)
        for index, word in enumerate(words)
    )


def _answers(event: Event, index: int) -> Iterator[Finding]:
    """The bare value ``event`` answers a prompt with: a reply's content, what a call types."""
    candidates: list[tuple[str, str]] = []
    if event.kind == "user" and event.content:
        candidates.append((event.content, f"events[{index}].content"))
    for number, call in enumerate(event.tool_calls):
        arguments = _parsed(call.arguments)
        if isinstance(arguments, dict):
            typed = _INPUT_KEYS | ({"command"} if _truthy(arguments.get("is_input")) else set())
            field = f"events[{index}].tool_calls[{number}].arguments"
            candidates.extend(
                (value, field) for key, value in arguments.items() if key in typed and isinstance(value, str)
            )
            command = arguments.get("command")
            if "command" not in typed and isinstance(command, str):
                candidates.extend((word, field) for word in typed_words(command))
    for text, field in candidates:
        value = text.strip()
        if answer_shaped(value):
            yield Finding("PASSWORD", 0, len(value), value, "turns:prompt_answer", field)
        elif (framed := _REPLY_FRAME.fullmatch(value)) is not None:
            given = framed.group("value")
            if answer_shaped(given) or unspellable(given) or passphrase_shaped(given, minimum_words=3):
                start = framed.start("value")
                yield Finding("PASSWORD", start, start + len(given), given, "turns:prompt_answer", field)


def typed_words(command: str) -> list[str]:
    """The words ``command`` types into a terminal or a window, newline escapes dropped: where it
    presses a key that submits a line (:data:`_SUBMIT_KEYS`) its operands, else those ending with a
    newline escape. A program's name, an option, an option's target and a key name are not typed.
    Which program types is not asked: a key pressed after the words is what says they are typed."""
    words = bash_words(command)
    if words is None:
        return []
    submits = any(word in _SUBMIT_KEYS for word in words)
    typed, first, after_target = [], True, False
    for word in words:
        if is_operator(word):
            first = True
            continue
        skip = first or after_target or word.startswith("-") or word in _SUBMIT_KEYS
        first, after_target = False, word in _TARGET_OPTIONS
        if not skip and (submits or _LINE_END.search(word)):
            typed.append(_LINE_END.sub("", word))
    return typed


def answer_shaped(value: str) -> bool:
    """A password on its own evidence, and more than a word and its punctuation."""
    word = value.rstrip(".!?")
    return credential_shaped(value) and (
        any(ch.isdigit() for ch in word) or not word.isalpha() or any(ch.isupper() for ch in word[1:])
    )


def _truthy(flag: object) -> bool:
    return flag is True or (isinstance(flag, str) and flag.lower() == "true")


def _parsed(arguments: str | None) -> object:
    try:
        return json.loads(arguments) if arguments else None
    except ValueError:
        return None


def _credential_elements(observation: str) -> dict[str, str]:
    """The elements an observation lists that name a credential field, by their id."""
    if "[" not in observation:
        return {}
    elements: dict[str, str] = {}
    for line in observation.splitlines():
        if len(line) > _PROMPT_MAX:
            continue
        for match in _ELEMENT_ID.finditer(line):
            name_class = field_named_by(line.replace(match.group(), " "))
            if name_class:
                elements.setdefault(match.group("id"), name_class)
    return elements


def _typed_into_elements(event: Event, index: int, elements: dict[str, str]) -> Iterator[Finding]:
    """What ``event``'s calls type into one of ``elements`` by its id."""
    for number, call in enumerate(event.tool_calls):
        field = f"events[{index}].tool_calls[{number}].arguments"
        typed: list[tuple[str, str]] = []
        for match in _TYPE_BY_ID.finditer(call.arguments or ""):
            typed.append((match.group("id"), match.group("value")))
        for node in json_objects(_parsed(call.arguments)):
            ids = [str(node[key]) for key in _ELEMENT_KEYS if isinstance(node.get(key), str | int)]
            values = [value for key, value in node.items() if key in TYPED_KEYS and isinstance(value, str)]
            typed.extend((element, value) for element in ids[:1] for value in values)
        for element, value in typed:
            if element in elements and credential_shaped(value):
                kind = "PASSWORD" if elements[element] == "password" else "SECRET"
                yield Finding(kind, 0, len(value), value, "turns:typed_element", field)
