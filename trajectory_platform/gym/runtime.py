"""The tool runtime: one episode of a policy acting on a fixture, enforced and logged.

Per turn the runtime (1) applies any scheduled schema drift, (2) compacts the history once the
delivered context crosses the watermark, (3) asks the policy for a turn given exactly the delivered
messages and tools, (4) parses the text with :mod:`trajectory_platform.gym.protocol`, (5) validates
every proposed call against the schema delivered *at that turn* (jsonschema) and refuses invalid or
undeclared calls with an explicit observation before anything reaches a tool, (6) dispatches valid
calls through the fault injector to the workspace (or, for a brought environment, to its own tools
executed live: :class:`ToolSurface`), truncating oversized observations with a marker, and (7) stops
on a final answer, abandonment, or an exhausted step / token / wall budget.

Everything is logged as a native trace :class:`~trajectory_platform.traces.record.Episode`:
delivered-input manifests for every model call (compacted ones carry their exact messages),
lineage digests, task identity and the outcome (terminal status, unified workspace diff, answer).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import hmac
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import jsonschema

from trajectory_platform.gym import protocol
from trajectory_platform.gym.faults import FAULTS_SEAL, FaultInjector, FaultSpec, Observation, seal_faults
from trajectory_platform.gym.judge import run_tests_in
from trajectory_platform.gym.oracle import OracleResult, run_oracle
from trajectory_platform.gym.policy import Policy, PolicyInput, PolicyTurn
from trajectory_platform.gym.prompts import PROMPT_SEAL, REGISTERED_PROMPTS, SYSTEM_PROMPT, seal_prompt
from trajectory_platform.gym.sandbox import (
    SandboxError,
    Workspace,
    derive_schedule_seed,
    shown_text,
    unified_diff,
)
from trajectory_platform.gym.seals import seal
from trajectory_platform.gym.tools import Manifest, drifted, manifest, sha256_digest
from trajectory_platform.traces.record import (
    DeliveredInput,
    Episode,
    Event,
    LineageInputs,
    Outcome,
    ToolCall,
    ToolSpec,
    canonical_json,
)

if TYPE_CHECKING:
    from trajectory_platform.gym.fixtures import Fixture

_TOKEN_RE = re.compile(r"\w+|[^\w\s]")


def approx_tokens(text: str | None) -> int:
    """A tokenizer-free token estimate (words and punctuation) used for budgets and watermarks."""
    return len(_TOKEN_RE.findall(text or ""))


@dataclass
class RuntimeConfig:
    """Budgets and limits of one episode (defaults suit the gym's small fixtures)."""

    max_steps: int = 40
    max_generated_tokens: int = 12_000
    max_observation_chars: int = 2_400
    compaction_watermark_tokens: int = 1_000
    keep_recent_events: int = 6
    test_timeout_s: float = 10.0
    wall_timeout_s: float = 120.0

    def to_dict(self) -> dict:
        """The budgets as recorded in each episode's ``extra_json`` (paired runs share them)."""
        return dict(self.__dict__)


@dataclass
class EpisodeResult:
    """The logged episode plus what the runtime measured around it (not part of the log)."""

    episode: Episode
    final_files: dict[str, str]
    final_answer: str | None
    terminal_status: str
    oracle: OracleResult | None
    reset_s: float
    wall_s: float
    faults: list[dict] = field(default_factory=list)
    tool_calls: int = 0
    refusals: int = 0
    compactions: int = 0


class ToolExecutor:
    """Executes abstract operations on a workspace and phrases the observations."""

    def __init__(self, workspace: Workspace, fixture: Fixture, config: RuntimeConfig):
        self.workspace = workspace
        self.fixture = fixture
        self.config = config
        self.test_runs = 0  # names each of the agent's test runs, for its scheduler seed

    def run(self, op: str, roles: dict[str, str]) -> Observation:
        try:
            if op == "list":
                files = self.workspace.listing(roles["path"])
                return Observation("\n".join(files) if files else "(empty)")
            if op == "read":
                text = _matching(shown_text(self.workspace.read(roles["path"])), roles.get("match"))
                return Observation(_head(text, roles.get("max_lines")))
            if op == "edit":
                text = self.workspace.read(roles["path"])
                count = text.count(roles["old"])
                if count != 1:
                    where = "not found" if count == 0 else f"found {count} times; include more context"
                    return Observation(
                        f"edit failed: the text to replace was {where} in {roles['path']}", "error"
                    )
                self.workspace.write(roles["path"], text.replace(roles["old"], roles["new"], 1))
                return Observation(f"edited {roles['path']}")
            if op == "write":
                self.workspace.write(roles["path"], roles["content"])
                return Observation(f"wrote {len(roles['content'])} characters to {roles['path']}")
            if op == "run_tests":
                return self._run_tests()
        except (FileNotFoundError, SandboxError, IsADirectoryError, UnicodeDecodeError) as exc:
            return Observation(str(exc), "error")
        raise ValueError(f"unknown op {op!r}")

    def _run_tests(self) -> Observation:
        self.test_runs += 1
        run = run_tests_in(
            self.workspace.root,
            tests_dir=self.fixture.tests_dir,
            load_conftest=True,
            guard=False,
            timeout_s=self.config.test_timeout_s,
            schedule_seed=derive_schedule_seed(self.workspace.snapshot(), f"agent:{self.test_runs}"),
        )
        if run.timed_out:
            return Observation(f"test run timed out after {self.config.test_timeout_s:.0f}s", "error", 124)
        counts: dict[str, int] = {}
        lines = []
        for test_id, result in run.results.items():
            status = result["status"]
            counts[status] = counts.get(status, 0) + 1
            detail = f" - {result['message']}" if result["message"] and status != "passed" else ""
            lines.append(f"{test_id} {status.upper()}{detail}")
        summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no tests ran"
        lines.append(f"== {summary} ==")
        bad = counts.get("failed", 0) + counts.get("error", 0) + counts.get("missing", 0)
        return Observation("\n".join(lines), "ok", 1 if bad or not run.results else 0)


class _Schema(Protocol):
    def parameters(self) -> dict[str, Any]: ...


class ToolSurface(Protocol):
    """Tools the runtime dispatches to instead of a gym tool family's operations: a brought task
    environment's own tools, executed live on the episode's workspace. The runtime delivers
    :meth:`specs`, validates each call against :meth:`tool`'s schema exactly as for a tool family,
    and hands a valid call to :meth:`call` with the workspace root. Fault injection and schema drift
    act on tool families' abstract operations, so an episode with a surface has neither."""

    @property
    def tag(self) -> str: ...

    @property
    def digest(self) -> str: ...

    def specs(self) -> list[ToolSpec]: ...

    def tool(self, name: str) -> _Schema | None: ...

    def call(self, name: str, arguments: dict[str, Any], root: Path) -> Observation: ...


REFUSED = "refused: "
"""Prefix of every refusal observation; the reason follows."""


def _matching(text: str, match: str | None) -> str:
    """``read``'s optional ``match``: only the lines containing it, as ``grep -F`` shows them (a
    marker when none does, so an empty observation never reads as an empty file)."""
    if match is None:
        return text
    lines = [line for line in text.splitlines(keepends=True) if match in line]
    return "".join(lines) if lines else f"(no line contains {match!r})"


def _head(text: str, max_lines: str | None) -> str:
    """``read``'s optional ``max_lines``: the first lines and a marker saying how many were left
    out; absent (the default), or when the file is no longer, the whole text."""
    if max_lines is None:
        return text
    limit = int(max_lines)
    lines = text.splitlines(keepends=True)
    if len(lines) <= limit:
        return text
    return "".join(lines[:limit]) + f"[... {len(lines) - limit} more lines not shown (max_lines={limit}) ...]"


def _validate(call: ToolCall, manifest: Manifest | ToolSurface) -> tuple[str, dict] | str:
    """``(tool name, arguments)`` when ``call`` is valid for ``manifest``, else the refusal reason."""
    name = call.name
    tool = manifest.tool(name) if name else None
    if tool is None or name is None:  # no name, no tool
        declared = ", ".join(t.name for t in manifest.specs())
        return f"undeclared tool {call.name!r}; the tools delivered now ({manifest.tag}) are: {declared}"
    try:
        args = json.loads(call.arguments or "{}")
    except json.JSONDecodeError as exc:
        return f"arguments of {call.name} are not valid JSON ({exc.msg})"
    if not isinstance(args, dict):
        return f"arguments of {call.name} must be a JSON object"
    schema = tool.parameters()
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(args), key=lambda e: e.message)
    if errors:
        detail = "; ".join(e.message for e in errors)
        delivered = canonical_json(schema)
        return f"schema violation for {call.name} ({manifest.tag}): {detail}. Delivered schema: {delivered}"
    return name, args


def summary_lines(event: Event) -> list[str]:
    """The lines a compaction summary gives one event (a derived record that changes an event
    rewrites these lines in step, so its summaries stay true to its own events)."""
    if event.kind == "assistant":
        return [f"- called {c.name} {c.arguments}" for c in event.tool_calls]
    if event.kind in ("tool", "refusal"):
        first = (event.content or "").strip().splitlines()[:1]
        return [f"  -> {event.status or event.kind}: {first[0][:120] if first else ''}"]
    if event.kind == "system":
        return [f"- note: {(event.content or '')[:160]}"]
    return []


class _Log:
    """Event list with deterministic timestamps."""

    def __init__(self, start: dt.datetime):
        self.events: list[Event] = []
        self.clock = start

    def add(self, event: Event) -> int:
        event.timestamp = self.clock.strftime("%Y-%m-%dT%H:%M:%SZ")
        self.clock += dt.timedelta(seconds=2)
        self.events.append(event)
        return len(self.events) - 1


def _last_compaction(events: Sequence[Event]) -> int | None:
    return next((i for i in range(len(events) - 1, -1, -1) if events[i].kind == "compaction"), None)


def delivered_indices(events: Sequence[Event]) -> list[int]:
    """Indices of what the runtime delivers to the next model call of a log holding ``events``: the
    whole log until a compaction; after one, the system prompt and task, the latest summary, then
    the turns it kept. A function of the log alone, so curation re-derives every recorded delivered
    input from the events it trains on (the runtime itself calls it before each model call)."""
    last = _last_compaction(events)
    through = events[last].replaces_through if last is not None else None
    if last is None or through is None:
        return [i for i, e in enumerate(events) if e.kind != "compaction"]
    tail = range(through + 1, len(events))
    return [0, 1, last, *[i for i in tail if events[i].kind != "compaction"]]


def delivered_messages_json(events: Sequence[Event], indices: Sequence[int]) -> str:
    """The ``messages_json`` a compacted call's delivered input records: the delivered events verbatim."""
    return canonical_json([dataclasses.asdict(events[i]) for i in indices])


def compaction_due(events: Sequence[Event], config: RuntimeConfig) -> Event | None:
    """The compaction the runtime adds to a log holding ``events`` before its next model call, or
    ``None``: once the delivered context crosses the watermark, older turns are replaced by a
    summary (:func:`summary_lines`, after the previous summary) and the cut always falls just
    before an assistant turn outside the kept tail (``None`` too when no turn can be cut). A
    function of the log and the recorded budgets alone, so curation re-derives every compaction."""
    delivered = sum(approx_tokens(events[i].content) for i in delivered_indices(events))
    if delivered <= config.compaction_watermark_tokens:
        return None
    last = _last_compaction(events)
    floor = ((events[last].replaces_through if last is not None else None) or 1) + 1
    cut = next(
        (
            i
            for i in range(len(events) - config.keep_recent_events, floor, -1)
            if events[i].kind == "assistant"
        ),
        None,
    )
    if cut is None:
        return None
    lines = [events[last].content] if last is not None else []
    for event in events[floor:cut]:
        lines.extend(summary_lines(event))
    summary = "Summary of earlier turns (compacted):\n" + "\n".join(line for line in lines if line)
    return Event(kind="compaction", content=summary, replaces_through=cut - 1)


def drift_notice(drifted_manifest: Manifest | ToolSurface) -> str:
    """The system message the runtime logs when a scheduled schema drift delivers a new manifest."""
    tools = protocol.render_tools(drifted_manifest.specs())
    return f"The tool manifest was updated to {drifted_manifest.tag}. Tools now:\n{tools}"


POLICY_ERROR = "policy error: "
"""Prefix of the note the runtime logs when the policy raised (the log's last event)."""
FABRICATION_REFUSAL = (
    "the assistant turn contains a tool result it wrote itself; tool results come only from the "
    "runtime, so it was ignored"
)
"""Why the runtime refuses a turn that wrote its own tool result (after :data:`REFUSED`)."""
TRUNCATION_REFUSAL = (
    "truncated proposal: the turn hit the output limit before its end token; no call was dispatched"
)
"""Why the runtime refuses a turn cut off at the length limit (after :data:`REFUSED`)."""


class _Episode:
    """The mutable state of one episode: log, delivered manifest, injector, workspace, counters."""

    def __init__(
        self,
        fixture: Fixture,
        config: RuntimeConfig,
        faults: list[FaultSpec],
        ws: Workspace,
        log: _Log,
        surface: ToolSurface | None = None,
    ):
        self.fixture = fixture
        self.config = config
        self.log = log
        self.ws = ws
        self.manifest: Manifest | ToolSurface = surface or fixture.manifest
        self.delivered_specs = {(s.name, s.version): s for s in self.manifest.specs()}
        self.injector = FaultInjector(faults, fixture)
        self.executor = ToolExecutor(ws, fixture, config)
        self.delivered_inputs: list[DeliveredInput] = []
        self.generated = self.tool_calls = self.refusals = self.compactions = 0

    def prepare(self, step: int) -> list[int]:
        """Apply scheduled drift and compaction; the event indices the next model call sees."""
        current = self.manifest  # a tool surface never drifts (see ToolSurface)
        drifted = self.injector.manifest_for_turn(current, step) if isinstance(current, Manifest) else current
        if drifted is not current:
            self.manifest = drifted
            self.delivered_specs.update({(s.name, s.version): s for s in drifted.specs()})
            self.log.add(Event(kind="system", content=drift_notice(drifted)))
        compaction = compaction_due(self.log.events, self.config)
        if compaction is not None:
            self.log.add(compaction)
            self.compactions += 1
        return delivered_indices(self.log.events)

    def record_turn(
        self, step: int, indices: list[int], turn: PolicyTurn, parsed: protocol.ParsedTurn
    ) -> list[ToolCall]:
        """Log the assistant event and the delivered-input manifest of the call that produced it."""
        messages = [self.log.events[i] for i in indices]
        compacted = _last_compaction(self.log.events) is not None
        out_tokens = turn.output_tokens if turn.output_tokens is not None else approx_tokens(turn.text)
        self.generated += out_tokens
        calls = parsed.calls.calls if isinstance(parsed.calls, protocol.ParseError) else parsed.calls
        fabricated = parsed.fabricated_observation
        content = parsed.content + (protocol.TOOL_OPEN + fabricated if fabricated is not None else "")
        index = self.log.add(
            Event(
                kind="assistant",
                content=content or None,
                reasoning=parsed.reasoning,
                tool_calls=calls,
                input_tokens=sum(approx_tokens(e.content) for e in messages),
                output_tokens=out_tokens,
                finish_reason=turn.finish_reason,
            )
        )
        self.delivered_inputs.append(
            DeliveredInput(
                call_index=step,
                response_event_index=index,
                event_indices=list(indices),
                messages_json=delivered_messages_json(self.log.events, indices) if compacted else None,
                compacted=compacted,
                tools_version=self.manifest.tag,
            )
        )
        return calls

    def refuse(self, call: ToolCall | None, reason: str) -> None:
        self.refusals += 1
        self.log.add(
            Event(
                kind="refusal",
                content=REFUSED + reason,
                tool_call_id=call.id if call else None,
                tool_name=call.name if call else None,
                status="refused",
            )
        )

    def settle(self, parsed: protocol.ParsedTurn, calls: list[ToolCall], truncated: bool) -> bool:
        """Refuse or dispatch the turn's calls; ``True`` when the turn is a final answer."""
        final = False
        refused: Sequence[ToolCall | None] = calls or [None]  # every call gets its answer
        if truncated:
            for call in refused:
                self.refuse(call, TRUNCATION_REFUSAL)
        elif isinstance(parsed.calls, protocol.ParseError):
            for call in refused:
                self.refuse(call, f"{parsed.calls.category} tool call: {parsed.calls.reason}")
        elif not calls:
            final = parsed.fabricated_observation is None
        for call in [] if truncated or isinstance(parsed.calls, protocol.ParseError) else calls:
            self.dispatch(call)
        if parsed.fabricated_observation is not None:
            self.refuse(None, FABRICATION_REFUSAL)
        return final

    def dispatch(self, call: ToolCall) -> None:
        """Validate against the schema delivered now; refuse, or run it through the fault injector."""
        checked = _validate(call, self.manifest)
        if isinstance(checked, str):
            self.refuse(call, checked)
            return
        self.tool_calls += 1
        name, args = checked
        if isinstance(self.manifest, Manifest):
            obs = _perform(self.injector, self.executor, self.manifest.interpret(name, args))
        else:
            obs = self.manifest.call(name, args, self.ws.root)
        self.log.add(_tool_event(call, obs, self.config.max_observation_chars))


def _perform(
    injector: FaultInjector, executor: ToolExecutor, interpreted: tuple[str, dict[str, str]]
) -> Observation:
    """One dispatched operation: the fault the schedule injects here, else the tool's own result."""
    op, roles = interpreted
    obs = injector.intercept(op, roles, executor.workspace) or executor.run(op, roles)
    injector.observe(op)
    return obs


def run_episode(
    fixture: Fixture,
    policy: Policy,
    *,
    seed: int = 0,
    config: RuntimeConfig | None = None,
    faults: list[FaultSpec] | tuple[FaultSpec, ...] = (),
    episode_id: str | None = None,
    partition_date: dt.date | None = None,
    source_file: str = "gym",
    source_line: int | None = None,
    verify: bool = True,
    record_verifier: bool = False,
    tools: ToolSurface | None = None,
    system_prompt: str = SYSTEM_PROMPT,
    seal_key: bytes | None = None,
) -> EpisodeResult:
    """Run ``policy`` on a fresh copy of ``fixture``'s S0 and return the logged episode.

    ``verify`` runs the sealed oracle on the final workspace (for the caller; curation replays it
    independently). ``record_verifier`` also writes the oracle result into the log's outcome,
    which a rollout meant for curation leaves off so the pipeline has to earn its verdicts.
    ``tools``: act through this surface instead of the fixture's tool family (a brought
    environment's own tools); it takes no fault schedule. ``system_prompt``: the instructions the
    policy is given (a longer procedural prompt for context distillation); the log records it and
    its digest, so an episode always shows the prompt its policy saw. ``seal_key``: the pipeline's
    seal key; with it, the episode records the seal of its system prompt (:func:`prompt_sealed`)
    and a faulted one the seal of its schedule (:func:`faults_sealed`).
    """
    if tools is not None and faults:
        raise ValueError(
            "faults act on a gym tool family's operations; an episode with a tool surface has none"
        )
    config = config or RuntimeConfig()
    date = partition_date or dt.date(2026, 11, 1)
    start_wall = time.perf_counter()
    log = _Log(dt.datetime(date.year, date.month, date.day, 9) + dt.timedelta(seconds=seed % 21_600))
    policy.start(fixture, seed)
    log.add(Event(kind="system", content=system_prompt))
    log.add(Event(kind="user", content=fixture.prompt))
    final_answer: str | None = None
    terminal = "truncated"
    with Workspace(fixture.s0_files) as ws:
        run = _Episode(fixture, config, list(faults), ws, log, tools)
        for step in range(config.max_steps):
            if time.perf_counter() - start_wall > config.wall_timeout_s:
                terminal = "timeout"
                break
            indices = run.prepare(step)
            inp = PolicyInput(
                messages=copy.deepcopy([log.events[i] for i in indices]),
                tools=run.manifest.specs(),
                tools_version=run.manifest.tag,
                step=step,
            )
            try:
                turn = policy.act(inp)
            except Exception as exc:  # noqa: BLE001 - a crashing policy ends the episode as an error
                log.add(Event(kind="system", content=f"{POLICY_ERROR}{type(exc).__name__}: {exc}"))
                terminal = "error"
                break
            if turn.abandon:
                terminal = "abandoned"
                break
            truncated = turn.finish_reason == "length"
            parsed = protocol.parse_turn(turn.text, id_prefix=f"call_{step}", truncated=truncated)
            calls = run.record_turn(step, indices, turn, parsed)
            if run.settle(parsed, calls, truncated):
                final_answer = parsed.content
                terminal = "completed"
                break
            if run.generated > config.max_generated_tokens:
                break
        final_files = ws.snapshot()
        reset_s = ws.reset_s
    oracle = (
        run_oracle(
            fixture, final_files, final_answer, timeout_s=fixture.oracle_timeout_s or config.test_timeout_s
        )
        if verify
        else None
    )
    episode_id = episode_id or f"gym-{sha256_digest(fixture.fixture_id)[7:19]}-{seed}"
    inputs: dict[str, Any] = {}  # what the run was given that no replay re-derives, sealed
    if faults:
        inputs["faults"] = [f.to_dict() for f in faults]
        if seal_key is not None:
            inputs[FAULTS_SEAL] = seal_faults(seal_key, episode_id, fixture.fixture_id, faults)
    if seal_key is not None:
        inputs[PROMPT_SEAL] = seal_prompt(seal_key, episode_id, fixture.fixture_id, system_prompt)
    episode = Episode(
        episode_id=episode_id,
        source_format="native",
        source_file=source_file,
        source_line=source_line,
        source_path=None,
        partition_date=date,
        task=fixture.task_identity,
        lineage=LineageInputs(
            model=policy.name,
            prompt_template_digest=sha256_digest(system_prompt),
            tool_manifest_digest=run.manifest.digest if tools else fixture.manifest.digest,
            environment_digest=fixture.s0_digest,
            sampling_params_json=canonical_json(policy.sampling_params()),
            sampler_policy_digest=sha256_digest(canonical_json(policy.describe())),
        ),
        tools=list(run.delivered_specs.values()),
        events=log.events,
        delivered_inputs=run.delivered_inputs,
        outcome=Outcome(
            terminal_status=terminal,
            final_answer=final_answer,
            workspace_diff=unified_diff(fixture.s0_files, final_files),
            verifier_results_json=canonical_json(oracle.to_dict()) if (oracle and record_verifier) else None,
        ),
    )
    if seal_key is not None:  # over the episode as logged: how it ended and the run that ended so
        inputs[END_SEAL] = seal_end(seal_key, episode)
    episode.extra_json = canonical_json({"runtime": config.to_dict(), **inputs})
    return EpisodeResult(
        episode=episode,
        final_files=final_files,
        final_answer=final_answer,
        terminal_status=terminal,
        oracle=oracle,
        reset_s=reset_s,
        wall_s=time.perf_counter() - start_wall,
        faults=list(run.injector.injected),
        tool_calls=run.tool_calls,
        refusals=run.refusals,
        compactions=run.compactions,
    )


def _tool_event(call: ToolCall, obs: Observation, limit: int) -> Event:
    content, status = obs.content, obs.status
    if len(content) > limit:
        content = (
            content[:limit] + f"\n[... output truncated: {len(obs.content) - limit} more characters ...]"
        )
        status = "truncated"
    return Event(
        kind="tool",
        content=content,
        tool_call_id=call.id,
        tool_name=call.name,
        status=status,
        exit_code=obs.exit_code,
    )


@dataclass
class Replay:
    """Fresh execution evidence: the tool event the runtime logs for each replayed call, in order,
    and the workspace they leave."""

    observations: list[Event]
    final_files: dict[str, str]


def replay_calls(
    fixture: Fixture,
    calls: list[tuple[str, ToolCall]],
    config: RuntimeConfig | None = None,
    faults: list[FaultSpec] | tuple[FaultSpec, ...] = (),
) -> Replay:
    """Re-execute dispatched calls, in order, on a fresh copy of ``fixture``'s S0.

    Each call comes with the manifest tag (``family@version``) delivered when it was made, so a
    replay crosses schema drift as the episode did. Validation, interpretation, execution, the
    fault schedule ``faults`` (the episode's own, :func:`recorded_faults`; none for a derived
    record) and observation truncation are the runtime's own, with no policy: what the episode
    must have shown, or what a derived record that changed a call must show instead of the stale
    historical result. A call that does not validate raises ``ValueError`` naming it.
    """
    config = config or RuntimeConfig()
    observations: list[Event] = []
    with Workspace(fixture.s0_files) as ws:
        executor = ToolExecutor(ws, fixture, config)
        injector = FaultInjector(list(faults), fixture)
        for tag, call in calls:
            delivered = _tagged(tag)
            checked = _validate(call, delivered)
            if isinstance(checked, str):
                raise ValueError(f"replayed call {call.id} is refused: {checked}")
            obs = _perform(injector, executor, delivered.interpret(*checked))
            observations.append(_tool_event(call, obs, config.max_observation_chars))
        final_files = ws.snapshot()
    return Replay(observations=observations, final_files=final_files)


def _recorded(episode: Episode) -> dict[str, Any]:
    extra = json.loads(episode.extra_json) if episode.extra_json else {}
    return extra if isinstance(extra, dict) else {}


def recorded_config(episode: Episode) -> RuntimeConfig:
    """The runtime configuration a gym episode records (budgets, observation limit), else the default."""
    recorded = _recorded(episode).get("runtime")
    return RuntimeConfig(**recorded) if isinstance(recorded, dict) else RuntimeConfig()


def recorded_faults(episode: Episode) -> list[FaultSpec]:
    """The fault schedule a gym episode records: what its runtime injected, so a replay does too."""
    faults = _recorded(episode).get("faults") or []
    return [FaultSpec(**fault) for fault in faults]


def faults_sealed(episode: Episode, key: bytes) -> bool:
    """Is the fault schedule ``episode`` records the one its runtime injected? True for a log that
    records none; otherwise its seal must be the runtime's under ``key`` (:func:`seal_faults`)."""
    faults = recorded_faults(episode)
    if not faults:
        return True
    seal = _recorded(episode).get(FAULTS_SEAL)
    expected = seal_faults(key, episode.logged_id(), episode.task.fixture_id or "", faults)
    return isinstance(seal, str) and hmac.compare_digest(seal, expected)


END_SEAL = "end_seal"
"""``extra_json`` key of the runtime's seal over how it ended the episode (:func:`seal_end`)."""


def last_finish(events: Sequence[Event]) -> str | None:
    """Why the last assistant turn stopped (``stop``, ``length``...), as the policy reported it."""
    return next((e.finish_reason for e in reversed(events) if e.kind == "assistant"), None)


def run_digest(episode: Episode) -> str:
    """What an end describes, as a digest: the episode's events as logged (every field but the
    empty ones), its final answer and its workspace diff.

    Bound whole, so no call, answer, observation or turn can be replaced under a genuine end, and
    kept stable where an honest log passes: the native writer and reader (one
    :meth:`Episode.to_dict` per line, :meth:`Episode.from_dict`) and the Parquet tables between
    ingest and the verifier carry every event field as it is, and ingest repairs nothing in a
    record the runtime can write (its only repair, lone surrogates, cannot be written as UTF-8 at
    all). Empty fields are left out, so a field a later record schema adds does not break the seals
    of logs written before it. What the pipeline writes into an episode after its run (the
    lineage a round stamps, ``extra_json``, the task fields the cascade adopts) is not the run's
    and is not bound."""
    events = [{k: v for k, v in dataclasses.asdict(e).items() if v not in (None, [])} for e in episode.events]
    outcome = episode.outcome
    run = {"events": events, "final_answer": outcome.final_answer, "workspace_diff": outcome.workspace_diff}
    return sha256_digest(canonical_json(run))


def seal_end(key: bytes, episode: Episode) -> str:
    """The runtime's seal (:func:`gym.seals.seal`) of how one episode ended: its terminal status
    (a wall-clock ``timeout`` no replay re-derives; ``error`` when the policy crashed), its last
    turn's finish reason, and the run that ended so (:func:`run_digest`). Triage reads an end as the
    runtime's only under this seal (:func:`end_sealed`): a log stating ``timeout`` beside a wrong fix
    made a policy failure a ``runtime_defect``, and so did a genuine timeout's seal kept over other
    events (red team, 2026-12-06)."""
    end = {
        "terminal_status": episode.outcome.terminal_status or "",
        "finish_reason": last_finish(episode.events),
        "run": run_digest(episode),
    }
    return seal(key, episode.logged_id(), episode.task.fixture_id or "", "end", end)


def end_sealed(episode: Episode, key: bytes | None) -> bool:
    """Are ``episode``'s end (terminal status, last finish reason) and the run it describes the ones
    its runtime sealed under ``key``? Never without a key: the record's own word is not the runtime's."""
    if key is None:
        return False
    recorded = _recorded(episode).get(END_SEAL)
    return isinstance(recorded, str) and hmac.compare_digest(recorded, seal_end(key, episode))


def prompt_sealed(episode: Episode, key: bytes | None) -> bool:
    """Is the system prompt ``episode`` opens with one a runtime of the platform delivered? One it
    registers (:data:`~trajectory_platform.gym.prompts.REGISTERED_PROMPTS`), or one sealed by the
    runtime under ``key`` (:func:`~trajectory_platform.gym.prompts.seal_prompt`); with no key, only a
    registered one. The digest the record states beside its prompt is the record's own word."""
    first = episode.events[0] if episode.events else None
    prompt = first.content if first is not None and first.kind == "system" else None
    if prompt is None:
        return False
    if prompt in REGISTERED_PROMPTS:
        return True
    if key is None:
        return False
    seal = _recorded(episode).get(PROMPT_SEAL)
    expected = seal_prompt(key, episode.logged_id(), episode.task.fixture_id or "", prompt)
    return isinstance(seal, str) and hmac.compare_digest(seal, expected)


def call_tags(episode: Episode) -> dict[str | None, str | None]:
    """Call id -> the manifest tag (``family@version``) delivered to the turn that made it."""
    tags = {d.response_event_index: d.tools_version for d in episode.delivered_inputs}
    return {c.id: tags[i] for i, e in enumerate(episode.events) if i in tags for c in e.tool_calls}


def dispatched_calls(episode: Episode, untagged: str | None = None) -> list[tuple[int, str, ToolCall]]:
    """``(tool event index, delivered manifest tag, call)`` for each observation, in arrival order:
    the calls the runtime dispatched, as a replay must re-execute them. ``untagged``: the tag of the
    manifest an episode that records no delivered input at all started under (a stream of a gym
    episode logs none), moved on to the next version where its recorded schema drift fired, as the
    runtime does at the start of a turn. An observation no call of the episode made, or one made by
    a turn delivered no manifest tag, raises ``ValueError``."""
    tags = delivered_tags(episode, untagged)
    calls = {c.id: c for e in episode.events for c in e.tool_calls}
    out = []
    for index, event in enumerate(episode.events):
        if event.kind == "tool":
            tag = tags.get(event.tool_call_id)
            if event.tool_call_id not in calls or tag is None:
                raise ValueError(f"the observation at event {index} answers no call delivered a manifest tag")
            out.append((index, tag, calls[event.tool_call_id]))
    return out


def delivered_tags(episode: Episode, untagged: str | None = None) -> dict[str | None, str | None]:
    """Call id -> the manifest tag its turn was delivered: as recorded, or, for an episode that
    records no delivered input, as :func:`dispatched_calls` assumes from ``untagged``."""
    return call_tags(episode) if episode.delivered_inputs else _assumed_tags(episode, untagged)


def _assumed_tags(episode: Episode, untagged: str | None) -> dict[str | None, str | None]:
    """Call id -> the tag an untagged episode's turn was under: ``untagged``, then its drifted
    version from the first turn after ``at_call - 1`` dispatched calls (:class:`FaultInjector`)."""
    if untagged is None:
        return {}
    drifts = [f.at_call for f in recorded_faults(episode) if f.kind == "schema_drift"]
    later = drifted(_tagged(untagged)).tag
    tags: dict[str | None, str | None] = {}
    dispatched = 0
    for event in episode.events:
        if event.kind == "assistant":
            tag = later if any(dispatched >= at_call - 1 for at_call in drifts) else untagged
            tags.update((call.id, tag) for call in event.tool_calls)
        dispatched += event.kind == "tool"
    return tags


def _tagged(tools_version: str) -> Manifest:
    family, _, version = tools_version.partition("@")
    return manifest(family, version)


def refusal_reason(call: ToolCall, tools_version: str) -> str | None:
    """Why the runtime's validation refuses ``call`` under the manifest tagged ``tools_version``
    (``family@version``, as delivered-input manifests record it), or ``None`` when it would
    dispatch it. A refusal observation reads :data:`REFUSED` followed by this reason."""
    checked = _validate(call, _tagged(tools_version))
    return checked if isinstance(checked, str) else None
