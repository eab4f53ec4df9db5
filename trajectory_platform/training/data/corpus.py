"""The deterministic text corpus the embedded default tokenizer is trained on.

No model hub is reachable, so the default tokenizer is trained here, on text shaped like what it
will serialize: tool schemas, tool calls with JSON arguments, observations, error messages and
instructions. The corpus comes from the platform's own material -- the bundled sample logs under
``trajectory_platform/samples`` when present, the gym's fixture library (tool manifests, prompts,
workspace files, plan values), and synthetic gym-like conversations built from the word lists
below -- so the same checkout always yields the same corpus (and the same tokenizer).

The identifier vocabulary matters for learnability (issue 9's pilot): the pre-tokenizer splits
identifiers at underscores, so ``read_file`` becomes the two tokens ``read`` + ``_file`` when both
pieces are frequent here; punctuation and digits are tokens of their own, so a file name or a
number tokenizes the same in every context. :data:`IDENTIFIER_VERBS` / :data:`IDENTIFIER_NOUNS`
are also the pool schema augmentation draws renames from (:func:`fresh_name`), so renamed
identifiers tokenize the same way.

A small model writes only tokens it was trained to write (issue 17): a renamed schema whose names
were never training targets is out of its reach however well it reads the tool block. So a rename
draws one-piece names too, from :data:`IDENTIFIER_WORDS` (standalone words tool interfaces use,
each one token of the default tokenizer), and the renamed evaluation family is built from pieces
of this inventory in combinations no training schema has.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from importlib import resources

# Word tables stay compact, one row of words per line.
# fmt: off
IDENTIFIER_VERBS = (
    "read", "write", "list", "run", "search", "get", "set", "create", "delete", "update", "open",
    "close", "fetch", "send", "check", "find", "apply", "query", "load", "save", "move", "copy",
    "edit", "show", "lookup", "book", "cancel", "compute", "convert", "submit",
)
IDENTIFIER_NOUNS = (
    "file", "dir", "tests", "code", "weather", "user", "order", "item", "patch", "path", "uri",
    "query", "target", "content", "line", "count", "city", "unit", "name", "value", "key", "text",
    "id", "limit", "offset", "flight", "date", "price", "account", "message", "command", "pattern",
    "branch", "commit", "status", "record", "table", "amount", "email", "doc",
)
IDENTIFIER_WORDS = (
    "cat", "ls", "head", "diff", "folder", "before", "after", "body", "src", "old", "new", "source",
    "input", "output", "data", "files", "items", "mode", "lines", "start", "end", "docs", "page",
    "title", "kind",
)
DIRECTORIES = ("src", "tests", "lib", "docs", "app", "pkg", "config", "scripts", "data", "utils")
STEMS = ("pool", "main", "utils", "config", "server", "client", "models", "views", "parser", "cache",
         "auth", "db", "api", "cli", "io", "core", "helpers", "settings", "router", "handler")
EXTENSIONS = (".py", ".json", ".md", ".txt", ".yaml", ".js", ".ts", ".toml", ".cfg", ".sh")
# fmt: on
_PROSE = (
    "the task is to fix the failing test in the repository and report the result the user asked "
    "for please read the file first then run the tests and apply a minimal patch check the output "
    "of the command and explain what changed if the call fails inspect the schema and retry with "
    "the correct arguments the tool returned an error because a required argument was missing "
    "call finished successfully no such file or directory permission denied timeout exceeded "
    "invalid value expected a string got an integer unknown tool unexpected keyword argument "
    "assert equal passed failed error warning traceback most recent call last line in module "
    "def return import from class self none true false if else for while with as try except "
    "raise pass yield lambda print len range open and or not is in done summary answer result "
    "weather in city today is sunny with a temperature of degrees the order has been cancelled "
    "your booking is confirmed the account balance is total amount due found matches"
)
WORDS = tuple(_PROSE.split())
ERRORS = (
    "error: missing required argument '{arg}'",
    "error: unknown tool '{tool}'",
    "error: unexpected argument '{arg}' for tool '{tool}'",
    'Traceback (most recent call last):\n  File "{path}", line {n}, in <module>\nAssertionError',
    "FAILED {path}::test_{stem} - AssertionError: assert {n} == {m}",
    "{n} passed, {m} failed in 0.{n}s",
    "No such file or directory: '{path}'",
)


def identifier(rng: random.Random) -> str:
    """A two-part snake_case identifier (``verb_noun``), the shape tool and argument names take."""
    return f"{rng.choice(IDENTIFIER_VERBS)}_{rng.choice(IDENTIFIER_NOUNS)}"


def fresh_name(rng: random.Random) -> str:
    """A name schema augmentation renames an identifier to: one piece of the whole inventory or a
    two-part ``verb_noun``, evenly, so a one-token name and a two-token name are both things a
    model learns to copy out of a tool block."""
    if rng.random() < 0.5:
        return rng.choice((*IDENTIFIER_VERBS, *IDENTIFIER_NOUNS, *IDENTIFIER_WORDS))
    return identifier(rng)


def file_path(rng: random.Random) -> str:
    return f"{rng.choice(DIRECTORIES)}/{rng.choice(STEMS)}{rng.choice(EXTENSIONS)}"


def _value(rng: random.Random) -> str | int:
    kind = rng.randrange(4)
    if kind == 0:
        return file_path(rng)
    if kind == 1:
        return rng.randrange(1000)
    return rng.choice(WORDS) if kind == 2 else rng.choice(STEMS)


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def synthetic_conversation(rng: random.Random) -> list[str]:
    """One gym-like episode as plain text pieces (schemas, calls, observations, prose)."""
    tools = []
    for _ in range(rng.randint(1, 4)):
        args = sorted({rng.choice(IDENTIFIER_NOUNS) for _ in range(rng.randint(1, 3))})
        tools.append((identifier(rng), args))
    pieces = []
    for name, args in tools:
        schema = {"type": "object", "properties": {a: {"type": "string"} for a in args}, "required": args}
        pieces.append(f"{name}: {_sentence(rng, 6)} {json.dumps(schema)}\n")
    pieces.append(_sentence(rng, rng.randint(5, 20)))
    for _ in range(rng.randint(1, 5)):
        name, args = rng.choice(tools)
        arguments = {a: _value(rng) for a in args}
        pieces.append(json.dumps({"name": name, "arguments": arguments}))
        template = rng.choice(ERRORS)
        pieces.append(
            template.format(
                arg=rng.choice(args),
                tool=name,
                path=file_path(rng),
                stem=rng.choice(STEMS),
                n=rng.randrange(100),
                m=rng.randrange(100),
            )
        )
        pieces.append(_sentence(rng, rng.randint(3, 12)))
    return pieces


def bundled_sample_texts() -> Iterator[str]:
    """Text of the bundled sample logs (sorted by path), so real formats shape the vocabulary."""
    root = resources.files("trajectory_platform") / "samples"
    if not root.is_dir():
        return
    stack = [root]
    files = []
    while stack:
        for entry in stack.pop().iterdir():
            if entry.is_dir():
                stack.append(entry)
            elif entry.name.endswith((".jsonl", ".json", ".txt", ".traj")):
                files.append(entry)
    for entry in sorted(files, key=lambda e: str(e)):
        # typeshed's Traversable.read_text lacks ``errors``; pathlib.Path and zipfile.Path accept it
        yield entry.read_text(encoding="utf-8", errors="replace")  # type: ignore[call-arg]


def gym_texts(library_seed: int = 0) -> Iterator[str]:
    """The gym's fixture library as text: delivered tool lists, prompts, workspace files, plan values.

    These are the names and values the default model must read and emit, so they should be
    single tokens (values) or two tokens (snake_case identifiers) after training.
    """
    try:
        from trajectory_platform.gym.library import build_library
    except ImportError:  # a checkout without the gym still builds a (gym-agnostic) tokenizer
        return
    for fixture in sorted(build_library(library_seed), key=lambda f: f.fixture_id):
        tools = fixture.tool_manifest
        yield "\n".join(f"{t['name']}: {t['description']} {t['parameters_json']}" for t in tools)
        yield fixture.prompt
        for path, text in sorted(fixture.s0_files.items()):
            yield json.dumps({"path": path})
            yield text
        for step in fixture.plan:
            yield json.dumps({k: v for k, v in vars(step).items() if v is not None})


def corpus(conversations: int = 4000, seed: int = 0) -> Iterator[str]:
    """The whole training corpus, one text per item, in a fixed order."""
    yield from bundled_sample_texts()
    yield from gym_texts()
    rng = random.Random(seed)
    for _ in range(conversations):
        yield from synthetic_conversation(rng)
