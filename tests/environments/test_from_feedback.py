"""From a failure to a fixture: an edit becomes a validated candidate environment, a correction a
reported t_div, and ratings only an order. The cascade, not the feedback, decides every sink."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from trajectory_platform.curation.redact import redact_episode
from trajectory_platform.curation.redact.feedback import FeedbackRedactor, redact_feedback
from trajectory_platform.curation.redact.pseudonym import PSEUDONYM_RE
from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.environments.format import TaskEnvironment, load_environment, write_environment
from trajectory_platform.environments.from_feedback import (
    CANDIDATE_REFUSALS,
    LINK_DROP_REASONS,
    FeedbackCandidate,
    candidates_from_feedback,
    validate_candidates,
    write_validated,
)
from trajectory_platform.gym.sandbox import apply_diff, unified_diff
from trajectory_platform.traces.feedback import FEEDBACK_TEXT_FIELDS, FeedbackRecord
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity

OPS = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
S0 = {"calc/__init__.py": "", "calc/ops.py": OPS}
SEALED = {
    "tests/test_ops.py": "from calc.ops import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n"
}
SECRET = "sk-live-DO-NOT-LEAK-0123456789"
SALT = b"test-redaction-salt"
REDACTION = FeedbackRedactor(SALT)


def ops(add_body: str) -> dict[str, str]:
    return {**S0, "calc/ops.py": OPS.replace("return a - b", add_body)}


def make_env() -> TaskEnvironment:
    return TaskEnvironment(
        task_id="calc-add",
        statement="add() subtracts; fix it.",
        repo_family="calc",
        domain="bug_repair",
        license="MIT",
        tool_family="calc-tools",
        tools=[{"name": "edit_file", "description": "edit a file", "parameters": {"type": "object"}}],
        s0_files=dict(S0),
        sealed_tests=dict(SEALED),
        tests_dir="tests",
        fail_to_pass=["tests/test_ops.py::test_add"],
        pass_to_pass=["tests/test_ops.py::test_mul"],
        oracle_timeout_s=10.0,
        references=[unified_diff(S0, ops("return a + b"))],
        python=">=3.11",
    )


def episode(episode_id: str, final: dict[str, str], fixture_id: str | None = "calc-add") -> Episode:
    """A deployed agent's episode: a prompt, two assistant turns (events 2 and 3), a final diff."""
    return Episode(
        episode_id=episode_id,
        source_format="native",
        source_file="prod.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        task=TaskIdentity(fixture_id=fixture_id, repo_family="calc", domain="bug_repair"),
        events=[
            Event("system", content="you fix bugs"),
            Event("user", content="add() subtracts; fix it."),
            Event("assistant", content="looking at calc/ops.py"),
            Event("assistant", content="done"),
        ],
        outcome=Outcome(
            terminal_status="completed", final_answer="done", workspace_diff=unified_diff(S0, final)
        ),
    )


def record(episode_id: str, kind: str, line: int, **fields: object) -> FeedbackRecord:
    values: dict = {"turn_index": None, "edit_diff": None, "rating": None, "timestamp": None, **fields}
    return FeedbackRecord(
        episode_id=episode_id, kind=kind, source_file="fb.jsonl", source_line=line, **values
    )


def edit(before: dict[str, str], after: dict[str, str]) -> str:
    return unified_diff(before, after)


WRONG = ops("return a - b  # checked")
"""What the agent delivered: a no-op change that leaves the bug."""


@pytest.fixture(scope="module")
def scenario():
    env = make_env()
    episodes = {
        "ep-fixed-by-user": episode("ep-fixed-by-user", WRONG),
        "ep-preference": episode("ep-preference", WRONG),
        "ep-no-env": episode("ep-no-env", WRONG, fixture_id="someone-elses-task"),
        "ep-bad-edit": episode("ep-bad-edit", WRONG),
        "ep-reverted": episode("ep-reverted", WRONG),
        "ep-known": episode("ep-known", WRONG),
        "ep-same-fix": episode("ep-same-fix", ops("return a - b  # other")),
        "ep-runtime-defect": episode("ep-runtime-defect", WRONG),
    }
    user_fix = ops("return b + a")
    not_applying = edit({**S0, "calc/ops.py": f"# {SECRET}\n" + OPS}, {**S0, "calc/ops.py": OPS})
    feedback = [
        record("ep-fixed-by-user", "edited", 1, edit_diff=edit(WRONG, user_fix)),
        record("ep-preference", "edited", 2, edit_diff=edit(WRONG, ops("return a + b + 1"))),
        record("ep-no-env", "edited", 3, edit_diff=edit(WRONG, user_fix)),
        record("ep-bad-edit", "edited", 4, edit_diff=not_applying),
        record("ep-reverted", "reverted", 5, edit_diff=edit(WRONG, S0)),
        record("ep-known", "edited", 6, edit_diff=edit(WRONG, ops("return a + b"))),
        record("ep-same-fix", "edited", 7, edit_diff=edit(ops("return a - b  # other"), user_fix)),
        record("ep-runtime-defect", "edited", 12, edit_diff=edit(WRONG, ops("return a * 1 + b"))),
        record("ep-fixed-by-user", "correction", 8, turn_index=3),
        record("ep-fixed-by-user", "correction", 9, turn_index=1),
        record("ep-missing", "accepted", 10),
        record("ep-reverted", "reverted", 11),
    ]
    lookup = {"calc-add": env}.get
    triage = {"ep-fixed-by-user": "policy_incapability", "ep-runtime-defect": "runtime_defect"}
    outcome = validate_candidates(
        candidates_from_feedback(feedback, episodes, lookup, triage, redaction=REDACTION), runs=2
    )
    return env, episodes, feedback, lookup, outcome


def test_an_edit_on_a_known_environment_becomes_a_validated_candidate(scenario) -> None:
    env, _, _, _, outcome = scenario
    by_episode = {c.episode_id: c for c in outcome.candidates}
    candidate = by_episode["ep-fixed-by-user"]
    assert candidate.status == "validated", candidate.refusal
    assert candidate.validation is not None and candidate.validation.ok
    derived = candidate.environment
    assert derived is not None and candidate.task_id == derived.task_id
    assert derived.task_id.startswith("calc-add+edit-") and len(derived.task_id) == len("calc-add+edit-") + 8
    assert (derived.s0_files, derived.sealed_tests, derived.tools) == (
        env.s0_files,
        env.sealed_tests,
        env.tools,
    )
    assert (derived.fail_to_pass, derived.pass_to_pass) == (env.fail_to_pass, env.pass_to_pass)
    assert len(derived.references) == 1
    assert apply_diff(S0, derived.references[0]) == ops("return b + a")
    assert derived.fixture().source == "environment"


def test_each_edit_that_cannot_be_a_fixture_says_why(scenario) -> None:
    _, _, _, _, outcome = scenario
    reasons = {c.episode_id: c.refusal.reason for c in outcome.candidates if c.refusal is not None}
    assert reasons == {
        "ep-preference": "not_validated",
        "ep-no-env": "no_environment",
        "ep-bad-edit": "edit_does_not_apply",
        "ep-reverted": "empty_reference",
        "ep-known": "known_reference",
        "ep-same-fix": "duplicate_candidate",
        "ep-runtime-defect": "not_a_policy_gap",
    }
    assert set(reasons.values()) <= set(CANDIDATE_REFUSALS)
    preference = next(c for c in outcome.candidates if c.episode_id == "ep-preference")
    assert preference.refusal is not None and "rejects references[0]" in preference.refusal.detail
    for candidate in outcome.candidates:
        if candidate.refusal is not None:
            assert candidate.refusal.detail.startswith("fb.jsonl:")
            assert SECRET not in candidate.refusal.detail
    assert outcome.candidate_counts()["validated"] == 1
    assert outcome.candidate_counts()["refused:not_validated"] == 1


def test_the_review_folder_mirrors_the_outcome_and_stale_candidates_go(scenario, tmp_path: Path) -> None:
    """A candidate written before its text changed (say, before a redaction fix) must not stay in the
    folder with the text the corpus no longer holds; what a person put there that is not an
    environment stays."""
    env, _, _, _, outcome = scenario
    root = tmp_path / "feedback_candidates"
    stale = write_environment(
        dataclasses.replace(env, task_id="calc-add+edit-0badcafe", statement=f"raw {SECRET}"),
        root / "calc-add+edit-0badcafe",
    )
    (root / "notes.txt").write_text("reviewed on Monday\n")
    (root / "drafts").mkdir()
    folder = write_validated(outcome, root)
    [validated] = [c for c in outcome.candidates if c.status == "validated"]
    assert [load_environment(p).task_id for p in folder.written] == [validated.task_id]
    assert folder.removed == [stale] and not stale.exists()
    assert sorted(p.name for p in root.iterdir()) == sorted([folder.written[0].name, "notes.txt", "drafts"])
    again = write_validated(outcome, root)
    assert (again.written, again.removed) == (folder.written, [])


def test_a_correction_is_a_reported_t_div_and_bad_links_are_counted(scenario) -> None:
    _, episodes, _, _, outcome = scenario
    assert [(d.episode_id, d.turn_index, d.source) for d in outcome.divergences] == [
        ("ep-fixed-by-user", 3, "fb.jsonl:8")
    ]
    assert sorted(d.reason for d in outcome.drops) == ["turn_out_of_range", "unknown_episode"]
    assert {d.reason for d in outcome.drops} <= set(LINK_DROP_REASONS)
    tally = outcome.tally()
    assert tally.balanced and tally.records_in == 12 and tally.kept == 10
    assert "ep-missing" not in outcome.ranking()
    assert episodes["ep-fixed-by-user"].events[1].kind == "user"  # the episode itself is untouched


def test_the_outcome_does_not_depend_on_the_order_of_the_feedback(scenario) -> None:
    _, episodes, feedback, lookup, _ = scenario
    shuffled = list(feedback)
    random.Random(7).shuffle(shuffled)
    once, again = (
        candidates_from_feedback(f, episodes, lookup, redaction=REDACTION) for f in (feedback, shuffled)
    )
    assert [(c.episode_id, c.task_id, c.refusal) for c in again.candidates] == [
        (c.episode_id, c.task_id, c.refusal) for c in once.candidates
    ]
    assert (again.scores, again.divergences, again.drops) == (once.scores, once.divergences, once.drops)


def test_ratings_and_acceptance_only_order_episodes_and_never_change_a_sink() -> None:
    """The best-rated, accepted episode without an oracle stays unverifiable; the best-rated one
    whose oracle fails stays a hard negative. Feedback has no input into the cascade at all."""
    env = make_env()
    loved_no_oracle = episode("loved-no-oracle", ops("return a + b"), fixture_id="not-a-known-task")
    loved_failing = episode("loved-failing", WRONG)
    disliked_correct = episode("disliked-correct", ops("return a + b"))
    episodes = {e.episode_id: e for e in (loved_no_oracle, loved_failing, disliked_correct)}
    feedback = [
        record("loved-no-oracle", "accepted", 1),
        record("loved-no-oracle", "rating", 2, rating=1.0),
        record("loved-failing", "accepted", 3),
        record("loved-failing", "rating", 4, rating=1.0),
        record("disliked-correct", "rating", 5, rating=0.0),
        record("disliked-correct", "abandoned", 6),
        record("disliked-correct", "retry", 7),
    ]
    outcome = candidates_from_feedback(feedback, episodes, {"calc-add": env}.get, redaction=REDACTION)
    assert outcome.ranking() == ["loved-failing", "loved-no-oracle", "disliked-correct"]
    best = outcome.scores[0]
    assert best.score == 1.0 and best.signals == {"accepted": 1, "rating": 1}
    assert outcome.scores[-1].score == pytest.approx((-1.0 - 1.0 - 0.5) / 3)
    assert not outcome.candidates and not outcome.divergences
    result = verify_episodes(
        list(episodes.values()), {"calc-add": env.fixture()}, CascadeConfig(progress=False)
    )
    sinks = {v.episode_id: v.sink for v in result.verdicts}
    assert sinks == {
        "loved-no-oracle": "unverifiable",
        "loved-failing": "hard_negative",
        "disliked-correct": "admitted",
    }


# Candidates are built from redacted text only: the agent's workspace diff as the redacted corpus
# holds it, and the user's edit redacted with that episode under the corpus's salt, so a secret in
# either never reaches a reference, and one in both keeps one pseudonym and the edit still applies.
# A pseudonym that breaks the task's tests drops the candidate with its own reason.

AWS_KEY = "AKIA" + "Z2X7C4V5B6N3M2K7"  # built at run time: no credential-shaped literal in the repository
GITHUB_TOKEN = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zA7bC"
SECRETS = (AWS_KEY, GITHUB_TOKEN)

AGENT = {**ops("return a - b  # checked"), "deploy.env": f"AWS_ACCESS_KEY_ID={AWS_KEY}\n"}
"""The agent's final workspace: the bug left in place, its AWS key written into deploy.env."""
FIXED = ops("return b + a")["calc/ops.py"]


def corpus_episode(episode_id: str, final: dict[str, str]) -> Episode:
    """The episode as ``redacted_corpus`` stores it (redacted under the same salt)."""
    redacted, _ = redact_episode(episode(episode_id, final), SALT)
    return redacted


def one_candidate(
    final: dict[str, str], edited: dict[str, str], env=None, raw_episode: bool = False
) -> FeedbackCandidate:
    env = env or make_env()
    ep = episode("ep", final) if raw_episode else corpus_episode("ep", final)
    feedback = [record("ep", "edited", 1, edit_diff=unified_diff(final, edited))]
    outcome = candidates_from_feedback(feedback, {"ep": ep}, {env.task_id: env}.get, redaction=REDACTION)
    [candidate] = validate_candidates(outcome, runs=1).candidates
    return candidate


def leaked(text: str | None) -> list[str]:
    return [secret for secret in SECRETS if secret in (text or "")]


def test_a_secret_the_agent_wrote_into_the_workspace_becomes_a_pseudonym_and_the_task_validates() -> None:
    edited = {**AGENT, "calc/ops.py": FIXED}
    for raw_episode in (False, True):
        candidate = one_candidate(AGENT, edited, raw_episode=raw_episode)
        assert candidate.status == "validated", candidate.refusal
        assert candidate.environment is not None
        [reference] = candidate.environment.references
        assert leaked(reference) == [] and leaked(candidate.task_id) == []
        built = apply_diff(S0, reference)
        assert built["calc/ops.py"] == FIXED
        assert PSEUDONYM_RE.fullmatch(built["deploy.env"].removeprefix("AWS_ACCESS_KEY_ID=").strip())


def test_a_secret_in_the_users_edit_is_redacted_whatever_the_episode() -> None:
    final = ops("return a - b  # checked")
    edited = {**final, "calc/ops.py": FIXED, "NOTES.md": f"reviewed; token {GITHUB_TOKEN}\n"}
    for raw_episode in (False, True):
        candidate = one_candidate(final, edited, raw_episode=raw_episode)
        assert candidate.status == "validated", candidate.refusal
        assert candidate.environment is not None
        assert leaked(candidate.environment.references[0]) == []
        assert "<REDACTED_GITHUB_TOKEN:" in apply_diff(S0, candidate.environment.references[0])["NOTES.md"]


def test_a_secret_in_both_diffs_keeps_one_pseudonym_and_the_edit_still_applies() -> None:
    """The user's edit touches deploy.env next to the agent's key (its context line quotes the key)
    and pastes the key into a note: the edit must apply to the redacted final state."""
    edited = {
        **AGENT,
        "calc/ops.py": FIXED,
        "deploy.env": f"AWS_ACCESS_KEY_ID={AWS_KEY}\nAWS_REGION=eu-west-1\n",
        "NOTES.md": f"rotate {AWS_KEY} next week\n",
    }
    for raw_episode in (False, True):
        candidate = one_candidate(AGENT, edited, raw_episode=raw_episode)
        assert candidate.status == "validated", candidate.refusal
        assert candidate.environment is not None
        built = apply_diff(S0, candidate.environment.references[0])
        assert leaked(unified_diff({}, built)) == []
        pseudonyms = {m.group(0) for m in PSEUDONYM_RE.finditer(built["deploy.env"] + built["NOTES.md"])}
        assert len(pseudonyms) == 1 and built["deploy.env"].endswith("\nAWS_REGION=eu-west-1\n")
        [stored] = PSEUDONYM_RE.findall(corpus_episode("ep", AGENT).outcome.workspace_diff or "")
        assert pseudonyms == {f"<REDACTED_{stored[0]}:{stored[1]}>"}  # the corpus's own pseudonym


def test_a_value_the_corpus_replaced_is_found_where_the_user_echoes_it_without_its_label() -> None:
    """The agent wrote a password under its label; the user's note repeats it bare, where no detector
    reads it. The corpus's episode holds only the pseudonym, so the note's copy is found by its keyed
    digest and gets that pseudonym; the rest of the edit is left byte for byte."""
    password = "Tr1cky-" + "Walrus-2024"
    final = {**ops("return a - b  # checked"), "settings.py": f'DB_PASSWORD = "{password}"\n'}
    note = f"the old one ({password}) is rotated; see settings.py\n"
    edited = {**final, "calc/ops.py": FIXED, "NOTES.md": note}
    for raw_episode in (False, True):
        candidate = one_candidate(final, edited, raw_episode=raw_episode)
        assert candidate.status == "validated", candidate.refusal
        assert candidate.environment is not None
        built = apply_diff(S0, candidate.environment.references[0])
        assert password not in unified_diff({}, built)
        [label] = PSEUDONYM_RE.findall(built["settings.py"])
        assert built["NOTES.md"] == note.replace(password, f"<REDACTED_{label[0]}:{label[1]}>")


def test_a_default_password_that_reads_as_a_name_keeps_its_echoes_in_code_as_the_engine_does() -> None:
    """``postgres`` is redacted under its label only (the engine's plain-word rule): the image line
    the user's edit quotes as context keeps it, so the edit still applies to the corpus's state."""
    compose = (
        "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: postgres\n"
    )
    final = {**ops("return a - b  # checked"), "compose.yaml": compose}
    edited = {**final, "calc/ops.py": FIXED, "compose.yaml": compose.replace("postgres:16", "postgres:17")}
    for raw_episode in (False, True):
        candidate = one_candidate(final, edited, raw_episode=raw_episode)
        assert candidate.status == "validated", candidate.refusal
        assert candidate.environment is not None
        built = apply_diff(S0, candidate.environment.references[0])["compose.yaml"]
        assert "image: postgres:17\n" in built and "POSTGRES_PASSWORD: <REDACTED_PASSWORD:" in built


def test_a_pseudonym_that_breaks_the_tests_drops_the_candidate_with_its_own_reason() -> None:
    """The task's test reads the key the agent wrote: with the pseudonym it fails, and the candidate
    is dropped as redacted_not_validated, never rebuilt from the raw value."""
    env = make_env()
    checks_key = (
        "import re\n\n\ndef test_key():\n"
        "    line = open('deploy.env').read()\n"
        "    assert re.fullmatch(r'AWS_ACCESS_KEY_ID=AKIA[0-9A-Z]{16}\\n', line)\n"
    )
    env = dataclasses.replace(
        env,
        sealed_tests={**env.sealed_tests, "tests/test_key.py": checks_key},
        fail_to_pass=[*env.fail_to_pass, "tests/test_key.py::test_key"],
        references=[unified_diff(S0, {**AGENT, "calc/ops.py": ops("return a + b")["calc/ops.py"]})],
    )
    candidate = one_candidate(AGENT, {**AGENT, "calc/ops.py": FIXED}, env=env)
    assert candidate.status == "refused" and candidate.refusal is not None
    assert candidate.refusal.reason == "redacted_not_validated" in CANDIDATE_REFUSALS
    assert "1 redacted value" in candidate.refusal.detail and leaked(candidate.refusal.detail) == []
    assert candidate.environment is not None and leaked(candidate.environment.references[0]) == []


class _EngineFailsOn(FeedbackRedactor):
    """The real redactor, failing on one episode as the engine does on text it cannot encode."""

    def redact(
        self, episode: Episode, records: Sequence[FeedbackRecord]
    ) -> tuple[Episode, list[FeedbackRecord]]:
        if episode.episode_id == "ep-unencodable":
            raise UnicodeEncodeError("utf-16-le", "\ud800", 0, 1, "surrogates not allowed")
        return super().redact(episode, records)


def test_an_edit_the_engine_cannot_redact_is_refused_and_the_rest_goes_on() -> None:
    env = make_env()
    final = ops("return a - b  # checked")
    edit_diff = unified_diff(final, {**final, "calc/ops.py": FIXED})
    episodes = {name: episode(name, final) for name in ("ep-unencodable", "ep-fine")}
    feedback = [record(name, "edited", i, edit_diff=edit_diff) for i, name in enumerate(episodes, 1)]
    outcome = candidates_from_feedback(
        feedback, episodes, {env.task_id: env}.get, redaction=_EngineFailsOn(SALT)
    )
    refused = {c.episode_id: c.refusal for c in outcome.candidates if c.refusal is not None}
    assert list(refused) == ["ep-unencodable"] and refused["ep-unencodable"].reason == "not_redactable"
    assert refused["ep-unencodable"].detail == "fb.jsonl:1: redaction failed (UnicodeEncodeError)"
    assert [c.status for c in outcome.candidates if c.episode_id == "ep-fine"] == ["unvalidated"]
    assert outcome.candidate_counts()["refused:not_redactable"] == 1


def test_feedback_on_an_episode_redaction_left_out_is_counted_with_that_reason() -> None:
    env = make_env()
    feedback = [record("ep-blocked", "accepted", 1), record("ep-nowhere", "accepted", 2)]
    outcome = candidates_from_feedback(
        feedback, {}, {env.task_id: env}.get, redaction=REDACTION, left_out={"ep-blocked": "license_blocked"}
    )
    assert [(d.reason, d.detail) for d in outcome.drops] == [
        ("left_out_by_redaction", "fb.jsonl:1: the redaction stage left the episode out (license_blocked)"),
        ("unknown_episode", "fb.jsonl:2: no such episode_id"),
    ]
    assert outcome.tally().balanced and {d.reason for d in outcome.drops} <= set(LINK_DROP_REASONS)


def test_every_free_text_field_of_a_feedback_record_is_redacted_with_its_episode() -> None:
    """A field added to FeedbackRecord must be declared a locator here or a text to redact there."""
    not_text = {"episode_id", "kind", "timestamp", "source_file"}
    strings = {f.name for f in dataclasses.fields(FeedbackRecord) if "str" in str(f.type)}
    assert strings - not_text == set(FEEDBACK_TEXT_FIELDS)
    records = [record("ep", "edited", 1, edit_diff=f"--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+{GITHUB_TOKEN}\n")]
    raw = episode("ep", AGENT)
    redacted, out, findings = redact_feedback(raw, records, SALT)
    assert leaked(out[0].edit_diff) == [] and leaked(redacted.outcome.workspace_diff) == []
    assert {f.field for f in findings} == {"outcome.workspace_diff", "feedback[0].edit_diff"}
    assert leaked(records[0].edit_diff) == [GITHUB_TOKEN] and leaked(raw.outcome.workspace_diff) == [AWS_KEY]


def test_a_redacted_candidate_is_the_same_for_a_salt_and_another_for_another_salt() -> None:
    final = ops("return a - b  # checked")
    edited = {**final, "calc/ops.py": FIXED, "NOTES.md": f"token {GITHUB_TOKEN}\n"}
    env = make_env()
    feedback = [record("ep", "edited", 1, edit_diff=unified_diff(final, edited))]

    def task_id(salt: bytes) -> str | None:
        outcome = candidates_from_feedback(
            feedback, {"ep": episode("ep", final)}, {env.task_id: env}.get, redaction=FeedbackRedactor(salt)
        )
        return outcome.candidates[0].task_id

    assert task_id(b"one") == task_id(b"one") != task_id(b"two")
