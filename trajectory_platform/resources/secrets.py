"""The pipeline key ``K_pipe`` for HMAC seals and syntax-preserving pseudonyms.

Production sets ``$TRAJECTORY_PLATFORM_SALT`` (from a secret store). Without it the embedded
default creates a random 32-byte key once per working directory (file mode 0600) so pseudonyms
stay consistent across runs of that workdir. The key is never logged, printed or shown in
resource config: the config holds only the *name* of the environment variable.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from dagster import ConfigurableResource

from trajectory_platform.curation.keys import seal_key

SALT_ENV = "TRAJECTORY_PLATFORM_SALT"


class SecretsSaltResource(ConfigurableResource):
    """Hands the pipeline key to redaction and lineage code; see the module docstring."""

    env_var: str = SALT_ENV
    fallback_file: str

    def key(self) -> bytes:
        """The key bytes: the environment variable if set, else the per-workdir key file."""
        value = os.environ.get(self.env_var)
        if value:
            return value.encode("utf-8")
        return _read_or_create_key(Path(self.fallback_file))

    def seal_key(self) -> bytes:
        """The key the gym runtime seals each injected fault schedule and system prompt with, the
        one the verifier checks them by (:func:`~trajectory_platform.curation.keys.seal_key` of
        :meth:`key`: one derivation for the sealer and the checker)."""
        return seal_key(self.key())

    @property
    def source(self) -> str:
        """Where the key comes from (safe to show: names, never the value)."""
        return f"env:{self.env_var}" if os.environ.get(self.env_var) else f"file:{self.fallback_file}"

    def __repr__(self) -> str:  # never leak the key through a repr in logs
        return f"SecretsSaltResource(source={self.source!r})"


def _read_or_create_key(path: Path) -> bytes:
    """Read the key file, creating it atomically (0600) on first use."""
    if path.exists():
        return path.read_bytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(secrets.token_hex(32).encode("ascii"))
    try:
        os.link(tmp, path)  # first writer wins when two processes race
    except FileExistsError:
        pass
    finally:
        tmp.unlink()
    return path.read_bytes()


def workdir_salt(workdir: Path) -> SecretsSaltResource:
    """The salt resource of ``workdir``: ``$TRAJECTORY_PLATFORM_SALT``, else the workdir's
    ``secrets/pipeline.key``; the one place that names the key file, for the Dagster resources and
    the CLIs that run outside them."""
    return SecretsSaltResource(fallback_file=str(Path(workdir) / "secrets" / "pipeline.key"))
