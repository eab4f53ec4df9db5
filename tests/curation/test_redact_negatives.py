"""Redaction never corrupts code, lockfiles or public material: what is not a secret is kept byte
for byte, and a hex digest is kept on evidence (what the log says around it), not for its length."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"negatives-salt!!"
RANDOM_40_HEX = "5e0c3f9a7d21b84e6c0f93a1d57b2e48c9f016ad"
RANDOM_64_HEX = "b7e23ec29af22b0b4e41da31e868d57226121c84a1c6e2b0d7e3f9b8a4c5d6e7"

KEPT = {
    "comparison_then_block": "if password == confirm_password:\n    return True\n",
    "sri_integrity": '"integrity": "sha512-9Qh5K2p1Oo8Tl6sYr0W3D5E8xVrFqA4nJw7cBLm1ZtX0aHd6uIe'
    'Gk2PsRf3vYo9CqTb8NjWl4MhUz7KxSy1g=="',
    "go_sum": "github.com/stretchr/testify v1.8.4 h1:CcVxjf3Q8PM0mHUKJCdn+eZZtm5yQwehR5yeSVQQcUk=",
    "shared_object": "Successfully built _pickle.cpython-311-x86_64-linux-gnu.so",
    "pod_name": "pod/api-server-7d9f8b6c5d-x2k9p   1/1   Running",
    "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGpK3q8Xc0XhZV9l1Tg2bRmYw5oQ7sF4nLd6eUaPjHk2"
    " deploy@host",
    "arn": "arn:aws:iam::123456789012:role/service-role/MyLambdaRole",
    "git_commit": f"commit {RANDOM_40_HEX}\nAuthor: dev",
    "git_log_line": f"{RANDOM_40_HEX} Fix the parser",
    "sha256sum_output": f"{RANDOM_64_HEX}  dist/app.tar.gz",
    "pip_hash": f"requests==2.32.3 --hash=sha256:{RANDOM_64_HEX}",
    "commit_url": f"https://github.com/org/repo/commit/{RANDOM_40_HEX}",
    "docker_digest": f"Digest: sha256:{RANDOM_64_HEX}",
    # Ids and CI cache keys, named so by a label, a constructor or their own shape (red team rtsec10 FI).
    "ci_cache_key": f"Cache restored from key: Linux-pip-{RANDOM_64_HEX}\n"
    f"Cache key: macOS-gradle-{RANDOM_64_HEX}",
    "ci_cache_key_entry": f"  key: Windows-cargo-{RANDOM_64_HEX}",
    "mongo_object_id": '{ _id: ObjectId("65a1f2c3d4e5f60718293a4b"), name: "alice" }',
    "mongo_extended_json": '{"_id": {"$oid": "65a1f2c3d4e5f60718293a4b"}}',
    "ray_node_id": f"NodeID: {RANDOM_64_HEX[:56]}",
    "aws_resource_ids": "aws_vpc.main: Refreshing state... [id=vpc-0c64aa2f99dbce38b]\n"
    "ami-0f3e9a1b2c4d5e6f7\tavailable",
    "poetry_virtualenv": "Creating virtualenv ml_pipeline-X0vZORfx-py3.11 in /root/.cache/pypoetry",
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_not_a_secret_is_kept_byte_for_byte(case):
    assert redact_text(KEPT[case], SALT)[0] == KEPT[case]


@pytest.mark.parametrize(
    "text",
    [
        f"stdout: {RANDOM_40_HEX}",
        f"export DEPLOY_TOKEN={RANDOM_64_HEX}",
        f"value {RANDOM_64_HEX} ok",
        f"session_id: {RANDOM_40_HEX}",  # an id that grants is no object's id
        f"SECRET_ID={RANDOM_64_HEX}",
    ],
)
def test_a_hex_token_without_evidence_of_being_a_digest_is_redacted(text):
    redacted, _ = redact_text(text, SALT)
    assert RANDOM_40_HEX not in redacted and RANDOM_64_HEX not in redacted


LOCKFILES = sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "negatives" / "lockfiles").iterdir())


@pytest.mark.parametrize("path", LOCKFILES, ids=lambda p: p.name)
def test_real_lockfile_excerpts_are_kept_byte_for_byte(path):
    text = path.read_text(encoding="utf-8")
    assert redact_text(text, SALT)[0] == text


def test_installed_wheel_records_are_kept_byte_for_byte():
    """``RECORD`` files list a urlsafe-base64 sha256 per installed file: digests, not keys."""
    site = Path(sysconfig.get_paths()["purelib"])
    records = sorted(site.glob("*.dist-info/RECORD"))[::10]
    assert records
    for record in records:
        text = record.read_text(encoding="utf-8")
        assert redact_text(text, SALT)[0] == text, record.parent.name
