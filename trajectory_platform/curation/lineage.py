"""The lineage envelope: what produced an episode, sealed with the pipeline key.

Seed (curation §Trajectory provenance tracking, table 11):

    H_lineage = HMAC-SHA256(K_pipe,
                            H_model || H_prompt || H_tools || H_env || H_sample || H_verify || H_trajectory)

- ``H_model``: model name, weight digest, adapter digest;
- ``H_prompt``: prompt template digest, tokenizer digest;
- ``H_tools``: tool manifest digest and the tool specifications actually delivered;
- ``H_env``: environment S0 digest (container image / repository state);
- ``H_sample``: sampling parameters (canonical JSON) and sampler policy digest;
- ``H_verify``: verifier suite digest and the verdict it produced (role, sink, turn labels). The
  suite is the judging fixture's sealed oracle (:func:`verifier_suite_digest`): the test files the
  dynamic stage runs, which tests must go from failing to passing and which must keep passing, and
  the oracle's time limit. Editing a sealed test changes the digest, hence every lineage id the
  fixture judged; the cascade's own settings are bound through the verdict (per-stage data) and
  recorded in ``verified_traces``' ``settings`` metadata. ``None`` (bound as ``null``) when no
  fixture judged the episode;
- ``H_trajectory``: Merkle root over the ordered steps (episode identity and task, every event,
  delivered inputs, outcome with its workspace diff), RFC 6962 style (``0x00`` leaf and
  ``0x01`` node prefixes, so a leaf can never pose as a node).

The id is content-addressed: any one-byte change in a bound input or in the stored (redacted)
record changes it, and :func:`verify_lineage` names the component that no longer matches.
Missing values are bound as JSON ``null``, so "unknown" and "empty" never collide. K_pipe is
``derive_key(master, "lineage")`` (:mod:`trajectory_platform.curation.redact.pseudonym`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.traces.record import Episode, canonical_json

COMPONENTS = ("model", "prompt", "tools", "env", "sample", "verify", "trajectory")


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _digest_of(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(value).encode()).hexdigest()


def verifier_suite_digest(fixture: Fixture) -> str:
    """``sha256:<hex>`` of the sealed oracle the cascade judged an episode of ``fixture`` with: the
    test directory and every sealed test file, the fail-to-pass and pass-to-pass test ids, and the
    oracle's own time limit. Workspace, references and prompt are not the suite (they are bound by
    ``H_env`` and the trajectory)."""
    return _digest_of(
        {
            "tests_dir": fixture.tests_dir,
            "sealed_tests": fixture.sealed_tests,
            "fail_to_pass": fixture.fail_to_pass,
            "pass_to_pass": fixture.pass_to_pass,
            "oracle_timeout_s": fixture.oracle_timeout_s,
        }
    )


def merkle_root(leaves: list[bytes]) -> str:
    """Hex Merkle root of ``leaves`` (hash of the empty string for no leaves); odd nodes are promoted."""
    if not leaves:
        return hashlib.sha256(b"").hexdigest()
    level = [_sha256(b"\x00" + leaf) for leaf in leaves]
    while len(level) > 1:
        nxt = [_sha256(b"\x01" + level[i] + level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0].hex()


def trajectory_steps(episode: Episode) -> list[bytes]:
    """The ordered leaves bound by ``H_trajectory``: identity + task, events, delivered inputs, outcome."""
    record = episode.to_dict()
    identity = {key: record[key] for key in ("episode_id", "source_format", "source_file", "source_line")}
    leaves = [canonical_json({"identity": identity, "task": record["task"]}).encode()]
    leaves += [canonical_json({"event": event}).encode() for event in record["events"]]
    leaves += [canonical_json({"delivered": item}).encode() for item in record["delivered_inputs"]]
    leaves.append(canonical_json({"outcome": record["outcome"], "extra": record["extra_json"]}).encode())
    return leaves


@dataclass(frozen=True)
class LineageEnvelope:
    """Component digests, the trajectory Merkle root and the sealed id of one episode."""

    episode_id: str
    components: dict[str, str]
    merkle_root: str
    lineage_id: str

    def to_json(self) -> str:
        return canonical_json(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> LineageEnvelope:
        return cls(**json.loads(text))


def _bound_inputs(
    episode: Episode, verifier_suite_digest: str | None, verdict: Mapping[str, Any] | None
) -> dict:
    lineage = episode.lineage
    return {
        "model": {
            "model": lineage.model,
            "model_digest": lineage.model_digest,
            "adapter_digest": lineage.adapter_digest,
        },
        "prompt": {
            "prompt_template_digest": lineage.prompt_template_digest,
            "tokenizer_digest": lineage.tokenizer_digest,
        },
        "tools": {
            "tool_manifest_digest": lineage.tool_manifest_digest,
            "tools": [asdict(tool) for tool in episode.tools],
        },
        "env": {"environment_digest": lineage.environment_digest},
        "sample": {
            "sampling_params_json": lineage.sampling_params_json,  # raw: every byte is bound
            "sampler_policy_digest": lineage.sampler_policy_digest,
        },
        "verify": {"verifier_suite_digest": verifier_suite_digest, "verdict": dict(verdict or {})},
    }


def lineage_envelope(
    episode: Episode,
    pipeline_key: bytes,
    verifier_suite_digest: str | None = None,
    verdict: Mapping[str, Any] | None = None,
) -> LineageEnvelope:
    """Seal ``episode`` (as stored, i.e. after redaction) with ``H_lineage``.

    ``verdict`` is what the verifier cascade said about the episode (role, sink, labels); it is
    bound so a relabelled record no longer verifies.
    """
    bound = _bound_inputs(episode, verifier_suite_digest, verdict)
    components = {name: _digest_of(bound[name]) for name in COMPONENTS if name != "trajectory"}
    root = merkle_root(trajectory_steps(episode))
    components["trajectory"] = "sha256:" + root
    message = b"".join(bytes.fromhex(components[name].removeprefix("sha256:")) for name in COMPONENTS)
    lineage_id = hmac.new(pipeline_key, message, hashlib.sha256).hexdigest()
    return LineageEnvelope(episode.episode_id, components, root, lineage_id)


@dataclass(frozen=True)
class LineageVerdict:
    """Outcome of :func:`verify_lineage`: ok, and which components differ from the stored envelope."""

    ok: bool
    mismatched: tuple[str, ...]
    expected_id: str
    stored_id: str


def verify_lineage(
    episode: Episode,
    stored: LineageEnvelope | str,
    pipeline_key: bytes,
    verifier_suite_digest: str | None = None,
    verdict: Mapping[str, Any] | None = None,
) -> LineageVerdict:
    """Recompute the envelope of ``episode`` and compare it with the stored envelope (or bare id).

    With a full envelope the verdict names each component that changed (``trajectory`` for an
    edited record); with only an id it can say that something changed, not what.
    """
    fresh = lineage_envelope(episode, pipeline_key, verifier_suite_digest, verdict)
    if isinstance(stored, str):
        ok = hmac.compare_digest(fresh.lineage_id, stored)
        return LineageVerdict(ok, () if ok else ("lineage_id",), fresh.lineage_id, stored)
    mismatched = tuple(
        name for name in COMPONENTS if fresh.components.get(name) != stored.components.get(name)
    )
    if not hmac.compare_digest(fresh.lineage_id, stored.lineage_id) and not mismatched:
        mismatched = ("lineage_id",)  # the seal itself was edited, or a different key was used
    return LineageVerdict(not mismatched, mismatched, fresh.lineage_id, stored.lineage_id)
