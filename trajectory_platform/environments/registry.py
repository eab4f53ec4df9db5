"""The environment registry: validated environments under one folder, served as gym fixtures.

``<root>/index.json`` maps each registered task id to its content digest (sorted keys, one
deterministic file); ``<root>/<safe task id>/`` holds the environment as
:func:`~trajectory_platform.environments.format.write_environment` wrote it. A task id names one
content for good: importing different content under a registered id is refused (the verdicts
already computed against it would silently change meaning), the same content again is a no-op.
The default registry of a workdir is ``<workdir>/environments/``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from trajectory_platform.environments.format import (
    EnvironmentFormatError,
    TaskEnvironment,
    load_environment,
    write_environment,
)
from trajectory_platform.environments.validate import (
    DEFAULT_RUNS,
    EnvironmentValidation,
    validate_environment,
)
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import get_fixture

INDEX_FILE = "index.json"
REGISTRY_DIR = "environments"
"""The registry's folder name inside a workdir."""


def safe_dirname(task_id: str) -> str:
    """A folder name for ``task_id``: its safe characters and a short hash (ids like ``a/b`` and
    ``a_b`` stay apart)."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", task_id).strip("._")[:80] or "task"
    return f"{readable}-{hashlib.sha256(task_id.encode('utf-8')).hexdigest()[:10]}"


def read_index(root: Path) -> dict[str, str]:
    """task id -> digest of the registry at ``root`` (empty when there is none yet)."""
    path = Path(root) / INDEX_FILE
    if not path.is_file():
        return {}
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EnvironmentFormatError(path, f"not a readable registry index: {exc}") from exc
    if not isinstance(index, dict) or not all(isinstance(v, str) for v in index.values()):
        raise EnvironmentFormatError(path, "must map task ids to digests")
    return index


def _write_index(root: Path, index: dict[str, str]) -> None:
    text = json.dumps(dict(sorted(index.items())), indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".index.", dir=root)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, root / INDEX_FILE)


@dataclass
class ImportResult:
    """What importing one directory did: ``imported``, ``unchanged`` (already registered, same
    content) or ``refused`` (with its reasons)."""

    path: str
    task_id: str
    digest: str | None
    status: str
    reasons: list[str] = field(default_factory=list)
    validation: EnvironmentValidation | None = None

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "task_id": self.task_id,
            "digest": self.digest,
            "status": self.status,
            "reasons": self.reasons,
        }


def import_environments(
    paths: list[Path],
    root: Path,
    runs: int = DEFAULT_RUNS,
    progress: Callable[[str], None] | None = None,
) -> list[ImportResult]:
    """Validate each environment directory and copy the valid ones into the registry at ``root``.

    ``progress`` is told which directory is being validated (validation runs the oracle
    ``runs`` x (1 + references) times, seconds per environment).
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    index = read_index(root)
    results = []
    for path in paths:
        if progress is not None:
            progress(str(path))
        results.append(_import_one(Path(path), root, index, runs))
    _write_index(root, index)
    return results


def _import_one(path: Path, root: Path, index: dict[str, str], runs: int) -> ImportResult:
    try:
        env = load_environment(path)
    except EnvironmentFormatError as exc:
        return ImportResult(str(path), path.name, None, "refused", [str(exc)])
    digest = env.digest
    if _names_a_gym_fixture(env.task_id):
        reason = (
            f"task id {env.task_id!r} is a gym fixture's id: logs naming it would be judged by the gym "
            "fixture, never by this environment; give the task another id"
        )
        return ImportResult(str(path), env.task_id, digest, "refused", [reason])
    registered = index.get(env.task_id)
    if registered == digest:
        return ImportResult(str(path), env.task_id, digest, "unchanged")
    if registered is not None:
        reason = (
            f"task id {env.task_id!r} is already registered with other content ({registered}); "
            "give the changed task a new task id"
        )
        return ImportResult(str(path), env.task_id, digest, "refused", [reason])
    validation = validate_environment(env, runs)
    if not validation.ok:
        return ImportResult(str(path), env.task_id, digest, "refused", validation.reasons, validation)
    target = root / safe_dirname(env.task_id)
    if target.exists():  # left by an import that died before updating the index
        shutil.rmtree(target)
    write_environment(env, target)
    index[env.task_id] = digest
    return ImportResult(str(path), env.task_id, digest, "imported", [], validation)


def _names_a_gym_fixture(task_id: str) -> bool:
    """Does ``task_id`` name a fixture of the gym's default library? The verifier looks there
    first, so such an environment could never judge a log."""
    try:
        get_fixture(task_id)
    except KeyError:
        return False
    return True


class EnvironmentCatalog:
    """The registered environments of ``root``, read on demand and cached by content digest.

    Every entry is checked against its registered digest when loaded: an environment edited in
    place after validation is refused (:class:`EnvironmentFormatError`), never judged with.
    """

    def __init__(self, root: Path):
        self.root = Path(root)
        self._by_digest: dict[str, TaskEnvironment] = {}
        self._fixtures: dict[str, Fixture] = {}

    def task_ids(self) -> list[str]:
        return sorted(read_index(self.root))

    def environments(self) -> list[TaskEnvironment]:
        """Every registered environment, by task id."""
        return [env for task_id in self.task_ids() if (env := self.get(task_id)) is not None]

    def get(self, task_id: str) -> TaskEnvironment | None:
        """The environment registered as ``task_id``, or ``None``."""
        digest = read_index(self.root).get(task_id)
        if digest is None:
            return None
        if digest not in self._by_digest:
            path = self.root / safe_dirname(task_id)
            env = load_environment(path)
            if env.task_id != task_id or env.digest != digest:
                raise EnvironmentFormatError(
                    path, f"content changed since it was registered as {task_id!r} ({digest}): re-import it"
                )
            self._by_digest[digest] = env
        return self._by_digest[digest]

    def fixture(self, task_id: str) -> Fixture | None:
        """The gym fixture of a registered environment, or ``None``."""
        env = self.get(task_id)
        if env is None:
            return None
        if env.digest not in self._fixtures:
            self._fixtures[env.digest] = env.fixture()
        return self._fixtures[env.digest]
