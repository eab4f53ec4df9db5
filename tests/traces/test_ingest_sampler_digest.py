"""The sampler-policy digest is written by whatever produced a trajectory: the gym's runtime for its
rollouts, the log's declared agent / model identity for an imported log, nothing when undeclared."""

from __future__ import annotations

from trajectory_platform.traces.ingest import declared_sampler_digest, ingest_paths, sample_logs_root
from trajectory_platform.traces.record import LineageInputs


def test_an_imported_log_gets_the_digest_of_its_declared_model_identity():
    [episode] = ingest_paths([sample_logs_root() / "2026-11-01" / "anthropic_messages.jsonl"]).episodes
    assert episode.lineage.model == "claude-sonnet-4-5"
    assert episode.lineage.sampler_policy_digest == declared_sampler_digest(
        LineageInputs(model="claude-sonnet-4-5", sampling_params_json=episode.lineage.sampling_params_json)
    )
    assert episode.lineage.sampler_policy_digest.startswith("sha256:")


def test_digest_binds_model_and_sampling_and_keeps_what_the_producer_wrote():
    def digest(model: str, temperature: int) -> str | None:
        return declared_sampler_digest(
            LineageInputs(model=model, sampling_params_json=f'{{"temperature":{temperature}}}')
        )

    assert digest("m", 0) == digest("m", 0)
    assert digest("m", 0) != digest("m", 1) and digest("m", 0) != digest("m2", 0)
    written = LineageInputs(model="m", sampler_policy_digest="sha256:gym-policy")
    assert declared_sampler_digest(written) == "sha256:gym-policy"  # the gym runtime's own digest wins
    assert declared_sampler_digest(LineageInputs(sampling_params_json="{}")) is None  # nothing declared
