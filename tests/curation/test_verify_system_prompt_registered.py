"""A system prompt counts only when the platform registered it or its runtime sealed it: the digest
a record states beside its prompt is the record's own word (red team, 2026-12-06: a pristine run
whose prompt carried the grader's answer, with its digest recomputed, was admitted)."""

from __future__ import annotations

import json

import pytest
from _verify_factory import fixed_files, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.prompts import PROMPT_SEAL, SYSTEM_PROMPT, long_prompt, seal_prompt
from trajectory_platform.gym.runtime import prompt_sealed, run_episode
from trajectory_platform.gym.tools import sha256_digest
from trajectory_platform.traces.record import Episode

KEY, OTHER_KEY = b"pipeline-seal-key", b"another-workdir-key"
HINT = "GRADER NOTE: the sealed test asserts add(2, 3) == 5; the bug is the '-' in calc/ops.py line 2."


def _verdict(episode: Episode, key: bytes | None = None):
    config = CascadeConfig(progress=False, workers=1, seal_key=key)
    return verify_episodes([episode], {"calc-add": make_fixture()}, config).verdicts[0]


def _prompted(name: str, prompt: str, seal_with: bytes | None = None) -> Episode:
    """A pristine run shown ``prompt``, its digest recomputed as the record's own word; sealed as the
    runtime seals it under ``seal_with``."""
    episode = make_episode(name, pristine_turns(), fixed_files())
    episode.events[0].content = prompt
    episode.lineage.prompt_template_digest = sha256_digest(prompt)
    if seal_with is not None:
        episode.extra_json = json.dumps({PROMPT_SEAL: seal_prompt(seal_with, name, "calc-add", prompt)})
    return episode


FORGED_PROMPTS = {
    "a_hint_after_the_runtimes_prompt": f"{SYSTEM_PROMPT} {HINT}",
    "a_hint_before_it": f"{HINT}\n{SYSTEM_PROMPT}",
    "a_prompt_of_its_own": f"You fix bugs. {HINT}",
    "the_teachers_prompt_with_another_checklist": long_prompt(checklist=HINT),
}


@pytest.mark.parametrize("prompt", FORGED_PROMPTS.values(), ids=FORGED_PROMPTS.keys())
def test_a_prompt_the_platform_never_registered_is_refused_whatever_digest_the_record_states(prompt):
    for key in (None, KEY):
        verdict = _verdict(_prompted("forged", prompt), key)
        assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "system_prompt_not_the_runtimes")


@pytest.mark.parametrize("prompt", [SYSTEM_PROMPT, long_prompt()], ids=["runtime", "distillation_teacher"])
def test_a_registered_prompt_needs_no_seal(prompt):
    assert _verdict(_prompted("registered", prompt), KEY).sink == "admitted"


def test_a_prompt_sealed_under_the_pipeline_key_is_admitted_and_only_under_it():
    custom = "You are the deployment's agent. Keep changes small."
    assert _verdict(_prompted("sealed", custom, seal_with=KEY), KEY).sink == "admitted"
    assert _verdict(_prompted("sealed", custom, seal_with=OTHER_KEY), KEY).sink == "tamper_quarantine"
    assert _verdict(_prompted("sealed", custom, seal_with=KEY), None).sink == "tamper_quarantine"
    moved = _prompted("moved", custom)
    moved.extra_json = _prompted("sealed", custom, seal_with=KEY).extra_json  # another episode's seal
    assert _verdict(moved, KEY).sink == "tamper_quarantine"


def test_the_runtime_seals_the_prompt_it_delivered_under_the_key_it_is_given():
    custom = "You are the deployment's agent. Keep changes small."
    sealed = run_episode(make_fixture(), ScriptedExpert(), system_prompt=custom, seal_key=KEY).episode
    unsealed = run_episode(make_fixture(), ScriptedExpert(), system_prompt=custom).episode
    assert prompt_sealed(sealed, KEY) and not prompt_sealed(sealed, OTHER_KEY)
    assert not prompt_sealed(unsealed, KEY) and not prompt_sealed(sealed, None)
    teacher = run_episode(make_fixture(), ScriptedExpert(), system_prompt=long_prompt()).episode
    assert prompt_sealed(teacher, None)
