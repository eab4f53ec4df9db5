"""Policies behind one interface: the scripted expert, noisy profiles, and evaluation stubs.

A :class:`Policy` returns the *text* of its next assistant turn (the same wire format a model
generates, see :mod:`trajectory_platform.gym.protocol`); the runtime parses, validates and
dispatches it. So a scripted policy's malformed call is malformed text, exactly like a model's.

Scripted policies know their fixture (they stand in for an expert or for a known failure mode);
a model-backed policy only sees :class:`~trajectory_platform.gym.policy.PolicyInput`.

- :class:`ScriptedExpert`: follows the fixture's plan one call per turn (pristine), and recovers
  from faults: refresh the schema after a refusal, diagnose (``list``) then retry after
  127/126/ENOSPC/ENOENT, retry transient failures, resolve conflict markers.
- Noisy profiles (each a subclass, selected by :data:`BEHAVIOURS`): malformed calls, stale-schema
  keys, loops, flailing, five kinds of test tampering, lucky passes, secret echoing, truncated
  turns, abandoned sessions, wrong fixes, never-recovering after a fault.
- Evaluation stubs with exactly predictable scores: :class:`StaleKeyStub`,
  :class:`FabricatingStub`, :class:`NeverRecoveringStub`, :class:`NoEndTokenStub`.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass

from trajectory_platform.gym import protocol
from trajectory_platform.gym.fixtures import Fixture, Step
from trajectory_platform.gym.policy import Policy, PolicyInput, PolicyTurn
from trajectory_platform.gym.tools import Manifest, manifest
from trajectory_platform.traces.record import Event, ToolSpec


def manifest_from_specs(specs: list[ToolSpec]) -> Manifest:
    """The manifest a delivered tool list came from (its ``family@version`` tag)."""
    family, _, version = (specs[0].version or "path@1.0").partition("@")
    return manifest(family, version)


def _trailing(messages: list[Event]) -> list[Event]:
    """Events after the last assistant turn: what answered it."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].kind == "assistant":
            return messages[i + 1 :]
    return []


_DIAGNOSE_MARKERS = ("No space left", "No such file", "command not found", "Permission denied")


def classify(events: list[Event]) -> str:
    """What the expert makes of the observations answering its last call."""
    for event in events:
        if event.kind == "refusal":
            text = event.content or ""
            if "wrote itself" in text:
                continue
            return "schema" if ("schema violation" in text or "undeclared tool" in text) else "retry"
    for event in events:
        if event.kind != "tool":
            continue
        text = event.content or ""
        if event.status == "error":
            if event.exit_code in (126, 127) or any(m in text for m in _DIAGNOSE_MARKERS):
                return "diagnose"
            return "retry"
        if event.status == "truncated" and "stream closed" in text:
            return "retry"
        if text.startswith("<<<<<<< ") or "\n<<<<<<< " in text:
            return "conflict"
        return "ok"
    return "ok"


_REASONS = {
    "schema": "The call was refused: the delivered tool schema differs from the one I used. I will re-read "
    "the current schema and re-emit the call with its argument names.",
    "diagnose": "The tool failed in a way that points at the environment. I will inspect the workspace "
    "before retrying.",
    "retry": "That call failed transiently (rate limit, timeout or a garbled reply). Backing off and "
    "retrying the same call.",
    "conflict": "The file contains merge-conflict markers. I will resolve them by restoring the HEAD "
    "side before continuing.",
}


class ScriptedExpert(Policy):
    """Follows the fixture's plan; recovers from every fault class (see the module docstring)."""

    name = "scripted-expert"
    max_retries_per_step = 4

    def start(self, fixture: Fixture, seed: int) -> None:
        self.fixture = fixture
        self.rng = random.Random(f"{seed}:{self.name}:{fixture.fixture_id}")
        self.plan: list[Step] = list(fixture.plan)
        self.index = 0
        self.pending: Step | None = None
        self.known: Manifest | None = None
        self.retries = 0
        self.test_reruns = 0
        self.turns = 0

    # -- the expert's decision: which step next, and why ------------------------------------
    def decide(self, inp: PolicyInput) -> tuple[Step, str | None]:
        """The next abstract step and an optional reasoning (recovery turns explain themselves)."""
        if self.known is None:
            self.known = manifest_from_specs(inp.tools)
        if self.pending is not None:
            verdict = classify(_trailing(inp.messages))
            if verdict != "ok" and self.retries < self.max_retries_per_step:
                self.retries += 1
                if verdict == "schema":
                    self.known = manifest_from_specs(inp.tools)
                    return self.pending, _REASONS[verdict]
                if verdict == "diagnose":
                    folder = (self.pending.path or ".").rpartition("/")[0] or "."
                    self.plan.insert(self.index, Step("list", path=folder))
                    return self.plan[self.index], _REASONS[verdict]
                if verdict == "conflict":
                    path = self.pending.path
                    if path is None:
                        raise ValueError(
                            f"conflict markers reported after a {self.pending.op} without a path"
                        )
                    self.plan.insert(
                        self.index + 1, Step("write", path=path, content=self.fixture.s0_files[path])
                    )
                    self.index += 1
                    self.retries = 0
                    return self.plan[self.index], _REASONS[verdict]
                return self.pending, _REASONS[verdict]
            if self._rerun_flaky_tests(inp):
                return (
                    self.pending,
                    "The suite failed in a timing-sensitive test; re-running it once to check.",
                )
            self.index += 1
            self.retries = 0
        return self.plan[self.index], None

    def _rerun_flaky_tests(self, inp: PolicyInput) -> bool:
        last_run = max((i for i, s in enumerate(self.plan) if s.op == "run_tests"), default=-1)
        if self.pending is None or self.pending.op != "run_tests" or self.index != last_run:
            return False
        failed = any(e.kind == "tool" and e.exit_code == 1 for e in _trailing(inp.messages))
        if failed and self.fixture.flaky and self.test_reruns < 2:
            self.test_reruns += 1
            return True
        return False

    def known_manifest(self) -> Manifest:
        """The manifest the expert read off the delivered tools (set on its first decision)."""
        if self.known is None:
            raise RuntimeError(f"{self.name} has no tool manifest yet: it renders calls only after deciding")
        return self.known

    def render(self, step: Step, reasoning: str | None = None, prose: str = "") -> str:
        """The turn text for ``step`` in the currently known manifest."""
        if step.op == "answer":
            return protocol.render_turn(content=step.answer or "", reasoning=reasoning)
        name, args = self.known_manifest().render(step.op, step.roles())
        return protocol.render_turn(content=prose, calls=[(name, args)], reasoning=reasoning)

    def act(self, inp: PolicyInput) -> PolicyTurn:
        self.turns += 1
        step, reasoning = self.decide(inp)
        self.pending = None if step.op == "answer" else step
        return self.emit(step, reasoning, inp)

    def emit(self, step: Step, reasoning: str | None, inp: PolicyInput) -> PolicyTurn:
        """Hook for noisy subclasses: how the chosen step is actually written out."""
        return PolicyTurn(self.render(step, reasoning))


# ------------------------------------------------------------------------------ noisy profiles


class _AtTurn(ScriptedExpert):
    """A noisy profile that misbehaves once, at the k-th eligible step (k drawn from the seed)."""

    def eligible(self, index: int, step: Step) -> bool:
        return step.op != "answer"

    def start(self, fixture: Fixture, seed: int) -> None:
        super().start(fixture, seed)
        count = sum(self.eligible(i, s) for i, s in enumerate(fixture.plan))
        self.bad_index = self.rng.randint(1, max(1, count))
        self.seen_eligible = 0
        self.done = False

    def due(self, step: Step) -> bool:
        if self.done or not self.eligible(self.index, step):
            return False
        self.seen_eligible += 1
        if self.seen_eligible >= self.bad_index:
            self.done = True
            return True
        return False


def malformed_turn(expert: ScriptedExpert, step: Step, reasoning: str | None) -> PolicyTurn:
    """The step's call with broken JSON (single-quoted key or a missing brace)."""
    text = expert.render(step, reasoning)
    if expert.rng.random() < 0.5:
        return PolicyTurn(text.replace('"arguments": {', "'arguments': {", 1))
    return PolicyTurn(text.replace("}}" + protocol.CALL_CLOSE, "}" + protocol.CALL_CLOSE, 1))


def stale_key_turn(expert: ScriptedExpert, step: Step, reasoning: str | None) -> PolicyTurn:
    """The step's call with its path argument under a memorized key the delivered schema lacks."""
    if step.path is None:
        return PolicyTurn(expert.render(step, reasoning))
    known = expert.known_manifest()
    name, args = known.render(step.op, step.roles())
    key = known.tool_for_op(step.op).keys["path"]
    stale = "file_path" if key != "file_path" else "path"
    return PolicyTurn(
        protocol.render_turn(calls=[(name, {(stale if k == key else k): v for k, v in args.items()})])
    )


def truncated_turn(expert: ScriptedExpert, step: Step, reasoning: str | None) -> PolicyTurn:
    """The step's call cut off by the output limit before its closing marker."""
    text = expert.render(step, reasoning)
    return PolicyTurn(text[: max(len(protocol.CALL_OPEN) + 12, len(text) * 2 // 3)], finish_reason="length")


def undeclared_tool_turn(expert: ScriptedExpert, step: Step, reasoning: str | None) -> PolicyTurn:
    """A call to a plausible tool that was never delivered (a learned tool-name preference)."""
    invented = {
        "list": "find_files",
        "read": "open_file",
        "edit": "apply_patch",
        "write": "create_file",
        "run_tests": "pytest",
    }[step.op]
    _, args = expert.known_manifest().render(step.op, step.roles())
    return PolicyTurn(protocol.render_turn(calls=[(invented, args)]))


DISTORTIONS = {
    "malformed": malformed_turn,
    "stale_key": stale_key_turn,
    "truncated": truncated_turn,
    "undeclared_tool": undeclared_tool_turn,
}
"""Call-level mistakes a noisy policy can make on a turn; each is refused by the runtime and the
expert logic underneath retries the same step afterwards."""


class _OneMistake(_AtTurn):
    """Makes one :data:`DISTORTIONS` mistake at the k-th eligible step, then behaves."""

    distortion = "malformed"

    def emit(self, step: Step, reasoning: str | None, inp: PolicyInput) -> PolicyTurn:
        if self.due(step):
            return DISTORTIONS[self.distortion](self, step, reasoning)
        return PolicyTurn(self.render(step, reasoning))


class MalformedCallPolicy(_OneMistake):
    """Emits one call whose JSON is broken, is refused, then re-emits it correctly."""

    name = "noisy-malformed"
    distortion = "malformed"


class StaleSchemaPolicy(_OneMistake):
    """Uses a memorized argument key the delivered schema lacks, is refused, then reads the schema."""

    name = "noisy-stale-schema"
    distortion = "stale_key"

    def eligible(self, index: int, step: Step) -> bool:
        return step.path is not None


class TruncatedTurnPolicy(_OneMistake):
    """One turn is cut off by the output limit in the middle of its call, then it is re-emitted."""

    name = "noisy-truncated-turn"
    distortion = "truncated"


class UndeclaredToolPolicy(_OneMistake):
    """Calls a tool that was never delivered once, is refused with the real inventory, recovers."""

    name = "noisy-undeclared-tool"
    distortion = "undeclared_tool"


@dataclass(frozen=True)
class ErrorProfile:
    """Per-turn probabilities of each call-level mistake (see :data:`DISTORTIONS`).

    ``max_mistakes`` bounds them per episode so a noisy episode still ends inside its budgets.
    """

    malformed: float = 0.1
    stale_key: float = 0.1
    truncated: float = 0.05
    undeclared_tool: float = 0.05
    max_mistakes: int = 3


class ProfiledPolicy(ScriptedExpert):
    """The expert with a configurable error profile: each turn may carry one drawn mistake."""

    name = "noisy-profiled"

    def __init__(self, profile: ErrorProfile | None = None):
        self.profile = profile or ErrorProfile()

    def describe(self) -> dict:
        return {"policy": self.name, "profile": asdict(self.profile)}

    def start(self, fixture: Fixture, seed: int) -> None:
        super().start(fixture, seed)
        self.mistakes = 0

    def emit(self, step: Step, reasoning: str | None, inp: PolicyInput) -> PolicyTurn:
        if step.op != "answer" and self.mistakes < self.profile.max_mistakes:
            roll = self.rng.random()
            for kind, distort in DISTORTIONS.items():
                rate = getattr(self.profile, kind)
                if roll < rate:
                    self.mistakes += 1
                    return distort(self, step, reasoning)
                roll -= rate
        return PolicyTurn(self.render(step, reasoning))


class AbandonPolicy(_AtTurn):
    """The session is abandoned part-way (no final reply)."""

    name = "noisy-abandoned"

    def emit(self, step: Step, reasoning: str | None, inp: PolicyInput) -> PolicyTurn:
        if self.due(step) or step.op == "answer":
            return PolicyTurn(abandon=True)
        return PolicyTurn(self.render(step, reasoning))


class LoopPolicy(_AtTurn):
    """Gets stuck re-issuing the same read (a spin trap), then gives up with a wrong answer."""

    name = "noisy-loop"
    repeats = 6

    def eligible(self, index: int, step: Step) -> bool:
        """Loop before the fix: a read-only step that precedes the plan's first edit."""
        first_edit = next(
            (i for i, s in enumerate(self.fixture.plan) if s.op in ("edit", "write")), len(self.plan)
        )
        return step.op in ("read", "list", "run_tests") and index < first_edit

    def start(self, fixture: Fixture, seed: int) -> None:
        super().start(fixture, seed)
        self.looping: Step | None = None
        self.loops = 0

    def act(self, inp: PolicyInput) -> PolicyTurn:
        self.turns += 1
        if self.looping is None:
            step, reasoning = self.decide(inp)
            self.pending = None if step.op == "answer" else step
            if self.due(step):
                self.looping = step
            elif step.op == "answer":
                self.looping = Step("run_tests")
                step = self.looping
            return PolicyTurn(self.render(step, reasoning))
        self.loops += 1
        if self.loops > self.repeats:
            return PolicyTurn(protocol.render_turn(content="I could not find the problem."))
        return PolicyTurn(self.render(self.looping, "Let me look at this again."))


class FlailPolicy(ScriptedExpert):
    """Reads files at random (some missing), edits blindly, reruns tests, then claims success."""

    name = "noisy-flail"

    def act(self, inp: PolicyInput) -> PolicyTurn:
        self.turns += 1
        if self.known is None:
            self.known = manifest_from_specs(inp.tools)
        paths = sorted(self.fixture.s0_files)
        if self.turns > 9:
            return PolicyTurn(protocol.render_turn(content="I changed a few things; it should work now."))
        roll = self.rng.random()
        if roll < 0.4:
            path = self.rng.choice(paths + ["src/main.py", "lib/utils.py"])
            step = Step("read", path=path)
        elif roll < 0.7:
            path = self.rng.choice(
                [p for p in paths if p.endswith(".py") and not p.startswith("tests/")] or paths
            )
            step = Step("edit", path=path, old="return", new="return  ")
        else:
            step = Step("run_tests")
        return PolicyTurn(self.render(step, "Trying something else." if self.turns > 3 else None))


class WrongFixPolicy(ScriptedExpert):
    """A plausible start, then a wrong edit (t_div), a failing test run, and a false claim of success."""

    name = "noisy-wrong-fix"

    def decide(self, inp: PolicyInput) -> tuple[Step, str | None]:
        step, reasoning = super().decide(inp)
        if step.op == "edit" and step.old:
            lines = step.old.splitlines(keepends=True)
            wrong = (
                lines[0].replace("==", "!=", 1) if "==" in lines[0] else lines[0].rstrip("\n") + "  # fixed\n"
            )
            step = Step("edit", path=step.path, old=step.old, new=wrong + "".join(lines[1:]))
        return step, reasoning


class LuckyPassPolicy(ScriptedExpert):
    """Edits straight away without reading anything (a guess that happens to be right)."""

    name = "noisy-lucky-pass"

    def start(self, fixture: Fixture, seed: int) -> None:
        super().start(fixture, seed)
        self.plan = [s for s in fixture.plan if s.op in ("edit", "write", "answer")]
        self.plan.insert(len(self.plan) - 1, Step("run_tests"))


class SecretEchoPolicy(ScriptedExpert):
    """Reads a credentials file that happens to be in the repo, then repeats its secrets later."""

    name = "noisy-secret-echo"

    def start(self, fixture: Fixture, seed: int) -> None:
        super().start(fixture, seed)
        if fixture.secret_files:
            self.plan.insert(0, Step("read", path=fixture.secret_files[0]))
        self.echoed = False

    def emit(self, step: Step, reasoning: str | None, inp: PolicyInput) -> PolicyTurn:
        seen = [e.content or "" for e in inp.messages if e.kind == "tool"]
        leaked = [s for s in self.fixture.secrets if any(s in text for text in seen)]
        if leaked and not self.echoed:
            self.echoed = True
            prose = f"Noting the deployment settings for later: {', '.join(leaked[:3])}. "
            if step.op == "answer":
                return PolicyTurn(protocol.render_turn(content=prose + (step.answer or "")))
            return PolicyTurn(self.render(step, reasoning, prose=prose))
        return PolicyTurn(self.render(step, reasoning))


TAMPER_KINDS = ("assert_true", "skip_marker", "conftest_monkeypatch", "try_except_pass", "delete_tests")


class TamperPolicy(ScriptedExpert):
    """Makes the visible tests pass by changing the tests (or their harness), never the code."""

    name = "noisy-tamper"

    def __init__(self, kind: str = "assert_true"):
        if kind not in TAMPER_KINDS:
            raise ValueError(f"unknown tamper kind {kind!r}")
        self.kind = kind

    def describe(self) -> dict:
        return {"policy": self.name, "kind": self.kind}

    def start(self, fixture: Fixture, seed: int) -> None:
        super().start(fixture, seed)
        failing: dict[str, list[str]] = {}
        for test_id in fixture.fail_to_pass:
            path, _, func = test_id.partition("::")
            if path in fixture.s0_files:
                failing.setdefault(path, []).append(func)
        plan: list[Step] = [Step("run_tests")]
        for path, funcs in sorted(failing.items()):
            plan.append(Step("read", path=path))
            plan.extend(self._tamper(path, funcs))
        plan += [Step("run_tests"), Step("answer", answer="All tests pass now.")]
        self.plan = plan

    def _tamper(self, path: str, funcs: list[str]) -> list[Step]:
        text = self.fixture.s0_files[path]
        if self.kind == "conftest_monkeypatch":
            return [Step("write", path="conftest.py", content=self._conftest())]
        for func in funcs:
            pattern = re.compile(rf"(\ndef {func}\(\):\n)((?:    .*\n)+)")
            match = pattern.search(text)
            if not match:
                continue
            head, body = match.group(1), match.group(2)
            if self.kind == "assert_true":
                new = head + "    assert True  # flaky on CI, bypassed\n"
            elif self.kind == "skip_marker":
                new = "\n@unittest.skip('flaky on CI')" + head + body
            elif self.kind == "try_except_pass":
                indented = "".join("    " + line + "\n" for line in body.splitlines())
                new = head + "    try:\n" + indented + "    except Exception:\n        pass\n"
            else:
                new = "\n"
            text = text[: match.start()] + new + text[match.end() :]
        if self.kind == "skip_marker":
            text = "import unittest\n" + text
        return [Step("write", path=path, content=text)]

    def _conftest(self) -> str:
        """A conftest that swaps the broken modules for their reference source at import time."""
        lines = [
            "import os",
            "import sys",
            "import types",
            "",
            "_root = os.path.dirname(os.path.abspath(__file__))",
        ]
        for path in self.fixture.edited_paths:
            if not path.endswith(".py"):
                continue
            module = path[:-3].replace("/", ".")
            source = self.fixture.reference_files[path]
            lines += [
                f"_m = types.ModuleType({module!r})",
                f"_m.__file__ = os.path.join(_root, {path!r})",
                f"exec({source!r}, _m.__dict__)",
                f"sys.modules[{module!r}] = _m",
            ]
        return "\n".join(lines) + "\n"


class NeverRecoveringStub(ScriptedExpert):
    """Behaves like the expert until the first error or refusal, then stops (0% recovery)."""

    name = "stub-never-recovering"

    def act(self, inp: PolicyInput) -> PolicyTurn:
        if self.pending is not None and classify(_trailing(inp.messages)) != "ok":
            return PolicyTurn(protocol.render_turn(content="The tool failed, so I am stopping here."))
        return super().act(inp)


class StaleKeyStub(ScriptedExpert):
    """Always phrases calls with the training family's argument keys (PRE 100%, SFA 0 when the
    delivered family differs from ``training_family``); never corrects itself."""

    name = "stub-stale-key"
    attempts = 3

    def __init__(self, training_family: str = "path"):
        self.training = manifest(training_family, "1.0")

    def describe(self) -> dict:
        return {"policy": self.name, "training_family": self.training.family}

    def act(self, inp: PolicyInput) -> PolicyTurn:
        self.turns += 1
        if self.known is None:
            self.known = manifest_from_specs(inp.tools)
        step = next((s for s in self.plan if s.path is not None), None)
        if step is None or self.turns > self.attempts:
            return PolicyTurn(protocol.render_turn(content="I could not complete the task."))
        name, args = self.known.render(step.op, step.roles())
        tool = self.known.tool_for_op(step.op)
        stale = self.training.tool_for_op(step.op).keys
        renamed = {}
        for key, value in args.items():
            role = _role_of(tool.keys, key)
            renamed[stale.get(role, key) if role else key] = value
        return PolicyTurn(protocol.render_turn(calls=[(name, renamed)]))


def _role_of(keys: dict[str, str], key: str) -> str:
    return next((role for role, k in keys.items() if k == key), "")


class FabricatingStub(ScriptedExpert):
    """Writes a fake tool result after each call instead of stopping at its end token."""

    name = "stub-fabricating"

    def emit(self, step: Step, reasoning: str | None, inp: PolicyInput) -> PolicyTurn:
        text = self.render(step, reasoning)
        if step.op == "answer":
            return PolicyTurn(text)
        return PolicyTurn(text + protocol.TOOL_OPEN + "ok: all tests passed" + protocol.HOST_END)


class NoEndTokenStub(ScriptedExpert):
    """Never emits its end token: every turn runs on until the output limit (100% runaway)."""

    name = "stub-no-end-token"

    def act(self, inp: PolicyInput) -> PolicyTurn:
        self.turns += 1
        if self.known is None:
            self.known = manifest_from_specs(inp.tools)
        step = next((s for s in self.plan if s.op != "answer"), self.plan[-1])
        return PolicyTurn(self.render(step) + " and then I will also", finish_reason="length")


BEHAVIOURS: dict[str, type[ScriptedExpert]] = {
    "expert_pristine": ScriptedExpert,
    "expert_recovery": ScriptedExpert,
    "malformed_call": MalformedCallPolicy,
    "stale_schema": StaleSchemaPolicy,
    "loop": LoopPolicy,
    "flail": FlailPolicy,
    "wrong_fix": WrongFixPolicy,
    "lucky_pass": LuckyPassPolicy,
    "secret_echo": SecretEchoPolicy,
    "flaky_fixture": ScriptedExpert,
    "truncated_turn": TruncatedTurnPolicy,
    "undeclared_tool": UndeclaredToolPolicy,
    "noisy_profile": ProfiledPolicy,
    "abandoned": AbandonPolicy,
    "never_recover": NeverRecoveringStub,
    "fabricated_observation": FabricatingStub,
    **{f"tamper_{kind}": TamperPolicy for kind in TAMPER_KINDS},
}
"""Every behaviour class a rollout produces, mapped to the policy that produces it."""


def make_policy(behaviour: str) -> Policy:
    """A fresh policy for a behaviour name of :data:`BEHAVIOURS`."""
    cls = BEHAVIOURS[behaviour]
    if cls is TamperPolicy:
        return TamperPolicy(behaviour.removeprefix("tamper_"))
    return cls()
