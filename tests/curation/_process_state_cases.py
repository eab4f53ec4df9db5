"""What the process-state red-team tests share: the static rule's verdict on one source, and the
whole cascade's on forged ``calc/ops.py`` files beside the honest fix."""

from __future__ import annotations

from _verify_factory import CALC_S0, fixed_files, make_episode, make_fixture, writing_turns

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.curation.verify.pysource import inspect_text

MUL = "\n\ndef mul(a, b):\n    return a * b\n"
"""The calc fixture's other function, which a forged ``calc/ops.py`` keeps."""


def gated(source: str) -> bool:
    """Whether the static inspection finds a decision on process state in ``source``."""
    return inspect_text(source)["process_state_gate"] >= 1


def assert_quarantined_beside_the_honest_fix(forms: dict[str, dict[str, str]]) -> None:
    """Each form (the files it writes over S0) ends in ``tamper_quarantine`` for
    ``process_state_gate`` through the whole cascade, and the honest fix beside them is admitted."""
    episodes = [
        make_episode(kind, writing_turns(files), {**CALC_S0, **files}) for kind, files in forms.items()
    ]
    episodes.append(make_episode("honest", writing_turns(fixed_files()), fixed_files()))
    config = CascadeConfig(progress=False, workers=1)
    verdicts = verify_episodes(episodes, {"calc-add": make_fixture()}, config).by_id()
    for kind in forms:
        assert (verdicts[kind].sink, verdicts[kind].reason) == ("tamper_quarantine", "process_state_gate"), (
            kind
        )
    assert verdicts["honest"].sink == "admitted", verdicts["honest"].reason
