"""Redaction never corrupts code, lockfiles or public material: what is not a secret is kept byte
for byte, and a hex digest is kept on evidence (what the log says around it), not for its length."""

from __future__ import annotations

import random
import string
import sysconfig
import zlib
from pathlib import Path

import _manifest_cases as manifest_cases
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


def _sampled(record: Path) -> bool:
    """One RECORD in ten, chosen by its distribution's name alone: a new dependency adds its own
    RECORD or not and never shifts which others are read (a ``[::10]`` slice did, 2026-12-07)."""
    return zlib.crc32(record.parent.name.split("-")[0].lower().encode()) % 10 == 0


def test_installed_wheel_records_are_kept_byte_for_byte():
    """``RECORD`` files list a urlsafe-base64 sha256 per installed file: digests, not keys. All of
    them take a minute to redact; a fixed tenth is read here and the rows of every RECORD that were
    once replaced are in :data:`RECORD_ROWS`."""
    site = Path(sysconfig.get_paths()["purelib"])
    records = [record for record in sorted(site.glob("*.dist-info/RECORD")) if _sampled(record)]
    assert records
    for record in records:
        text = record.read_text(encoding="utf-8")
        assert redact_text(text, SALT)[0] == text, record.parent.name


RECORD_ROWS = {
    # entropy on a numbered migration's name in a __pycache__ row (no digest: ",,")
    "migration_pyc": "dagster/_core/storage/alembic/versions/__pycache__/"
    "001_initial_schedule.cpython-311.pyc,,\n"
    "dagster/_core/storage/alembic/versions/001_initial_schedule.py,sha256=83EpqwVYgKszHa8l0ptjhQDZ7Syy-U822I4OoPv-sHo,312",
    # entropy on a Next.js build id, a directory of the path
    "build_id": "dagster_webserver/webapp/build/_next/static/PgS8NoZQ7W56rS06Sgjvx/_buildManifest.js,"
    "sha256=iUv1YXltZHo4KKiHLakO3TvR1Uw8FNIUkxCxE4FPIO8,580",
    # 'pwd' backwards inside the digest marked the line as a reversed password
    "reversed_mark": "mypyc/test/librt_cache.py,sha256=OKDwp_ZURmasa2CX95X5neR5dnHFz-ngE8EaUbL33VE,8988",
    # a digest that opens like a Hugging Face token
    "token_prefix": "pytz/zoneinfo/Asia/Bangkok,sha256=hf_5PVegQcFSS60CjS80C7h-TGOrfQ4ncm83N8VmZkk,185",
    "module_name": "transformers/models/m2m_100/__pycache__/configuration_m2m_100.cpython-311.pyc,,",
}


@pytest.mark.parametrize("case", sorted(RECORD_ROWS))
def test_record_rows_once_replaced_are_kept(case):
    assert redact_text(RECORD_ROWS[case], SALT)[0] == RECORD_ROWS[case]


@pytest.mark.parametrize("encoding", sorted(manifest_cases.ENCODINGS))
@pytest.mark.parametrize("half", ["dev", "validation"])
def test_generated_manifest_lines_are_kept(half, encoding):
    """Digests of every lockfile layout, some opening like a vendor token, and RECORD paths holding
    build ids and numbered names (:mod:`_manifest_cases`), as a log carries them."""
    formats = manifest_cases.DEV if half == "dev" else manifest_cases.VALIDATION
    encode = manifest_cases.ENCODINGS[encoding]
    rng = random.Random(half + encoding)
    for name in sorted(formats):
        for _ in range(4):
            text = encode(manifest_cases.lockfile({name: formats[name]}, rng, rows=4))
            assert redact_text(text, SALT)[0] == text, name


@pytest.mark.parametrize("encoding", sorted(manifest_cases.ENCODINGS))
@pytest.mark.parametrize("control", sorted(manifest_cases.CONTROLS))
def test_a_secret_beside_a_lockfile_is_still_redacted(control, encoding):
    rng = random.Random(control + encoding)
    for formats in (manifest_cases.DEV, manifest_cases.VALIDATION):
        secret, line = manifest_cases.CONTROLS[control](rng)
        before, after = manifest_cases.lockfile(formats, rng, rows=3), manifest_cases.lockfile(formats, rng)
        text = manifest_cases.ENCODINGS[encoding](before + line + "\n" + after)
        assert secret not in redact_text(text, SALT)[0]


@pytest.mark.parametrize(("prefix", "size"), [("hf_", 34), ("ghp_", 36), ("glpat-", 20), ("xoxb-", 40)])
def test_a_token_after_a_digest_label_is_still_a_token(prefix, size):
    """Only a digest of its algorithm's exact size is exempt: ``sha256=hf_...`` of a token's length
    is a token."""
    rng = random.Random(size)
    token = prefix + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(size))
    assert token not in redact_text(f"sha256={token}", SALT)[0]
