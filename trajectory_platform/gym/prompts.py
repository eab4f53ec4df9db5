"""The system prompts the platform runs episodes under, and the seal of any other one.

A gym episode's first event is the system prompt its runtime delivered, and training conditions
every target on it. The record also states the prompt's digest (``lineage.prompt_template_digest``),
but a record's statement about itself ties nothing: a red team rewrote the prompt of a pristine run
to carry the grader's answer ("the sealed test asserts add(2, 3) == 5; the bug is the '-' on line
2"), recomputed the digest, and the run was admitted (2026-12-06), teaching the policy to act on a
hint it never gets. So a prompt counts only when the platform registered it
(:data:`REGISTERED_PROMPTS`: the runtime's own, which every sampler and the evaluation harness run
under by default, and the context-distillation teacher's) or when the runtime that delivered it
sealed it under the pipeline's seal key (:func:`seal_prompt`; ``run_episode(seal_key=...)``): a
deployment's own prompt, a teacher with another checklist.
"""

from __future__ import annotations

from trajectory_platform.gym.seals import seal
from trajectory_platform.gym.tools import sha256_digest

SYSTEM_PROMPT = (
    "You are a software agent working in a sandboxed repository. Act only through the tools you are "
    "given, one tool call at a time; tool results arrive as separate messages. When the task is done, "
    "reply with a short final answer and no tool call."
)
"""The runtime's system prompt: what a sampler, the evaluation harness and a student run under."""

PROCEDURE_CHECKLIST = (
    "Procedure (follow it in order):\n"
    "1. Read the file the task names before changing anything.\n"
    "2. Make the smallest edit that fixes the described behaviour; do not touch the tests.\n"
    "3. Run the tests after the edit and read their output.\n"
    "4. If a test still fails, read the failing file again before editing it again.\n"
    "5. Answer only after the tests pass, in one short sentence that says what changed."
)
"""The procedural guidance context distillation's long prompt adds (``rounds.distill``): a
checklist, the kind 16.9.1 moves into weights (never a contract such as tool schemas or
authorization rules, which stay in context)."""


def long_prompt(checklist: str = PROCEDURE_CHECKLIST, short: str = SYSTEM_PROMPT) -> str:
    """The teacher's system prompt: the student's short prompt with the checklist after it."""
    return f"{short}\n\n{checklist}"


REGISTERED_PROMPTS = frozenset({SYSTEM_PROMPT, long_prompt()})
"""The prompts a gym episode may open with unsealed: the platform's own, exactly (a registered
prompt with anything added or changed is another prompt)."""

PROMPT_SEAL = "prompt_seal"
"""``extra_json`` key of the runtime's seal over the system prompt it delivered (:func:`seal_prompt`)."""


def seal_prompt(key: bytes, episode_id: str, fixture_id: str, prompt: str) -> str:
    """The runtime's seal (:func:`gym.seals.seal`) of the system prompt it delivered to one episode."""
    return seal(key, episode_id, fixture_id, "system_prompt", sha256_digest(prompt))
