"""The shipped Kubernetes/Postgres deployment configuration (deploy/k8s) validates against
Dagster's own config schemas: the instance file (storage, run launcher, coordinator,
concurrency) and the run config of the project's jobs under the ``k8s_job_executor``. A key
Dagster does not know, or a value of the wrong type, fails here rather than in a rollout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from dagster import Definitions, validate_run_config
from dagster._config import validate_config
from dagster._core.errors import DagsterInvalidConfigError
from dagster._core.instance.config import dagster_instance_config
from dagster_k8s import K8sRunLauncher, k8s_job_executor

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "k8s"


def _yaml(name: str) -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / name).read_text())


def _run_launcher_errors(instance: dict[str, Any]) -> list[str]:
    launcher = instance["run_launcher"]
    assert (launcher["module"], launcher["class"]) == ("dagster_k8s", "K8sRunLauncher")
    result = validate_config(K8sRunLauncher.config_type(), launcher["config"])
    return [error.message for error in result.errors or []]


def test_instance_file_validates_against_dagsters_schema(tmp_path: Path) -> None:
    (tmp_path / "dagster.yaml").write_text((DEPLOY / "dagster.yaml").read_text())
    config, _ = dagster_instance_config(str(tmp_path))
    assert "postgres" in config["storage"]
    assert _run_launcher_errors(_yaml("dagster.yaml")) == []


def test_a_misspelt_instance_key_is_refused(tmp_path: Path) -> None:
    instance = _yaml("dagster.yaml")
    instance["storage"]["postgres"]["postgres_db"]["hostnme"] = instance["storage"]["postgres"][
        "postgres_db"
    ].pop("hostname")
    (tmp_path / "dagster.yaml").write_text(yaml.safe_dump(instance))
    with pytest.raises(DagsterInvalidConfigError):
        dagster_instance_config(str(tmp_path))
    instance = _yaml("dagster.yaml")
    instance["run_launcher"]["config"]["job_imag"] = instance["run_launcher"]["config"].pop("job_image")
    assert _run_launcher_errors(instance)


def _k8s_job() -> Any:
    from trajectory_platform.definitions import defs

    k8s_defs = Definitions(
        assets=list(defs.assets or []),
        asset_checks=list(defs.asset_checks or []),
        resources=dict(defs.resources or {}),
        executor=k8s_job_executor,
    )
    return k8s_defs.resolve_implicit_global_asset_job_def()


def test_run_config_validates_for_the_projects_jobs_on_k8s() -> None:
    job = _k8s_job()
    validate_run_config(job, _yaml("run_config.yaml"))
    wrong = _yaml("run_config.yaml")
    wrong["execution"]["config"]["max_concurrent"] = "eight"
    with pytest.raises(DagsterInvalidConfigError):
        validate_run_config(job, wrong)
