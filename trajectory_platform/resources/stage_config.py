"""Dagster run config derived from a stage's settings dataclass (the domain's one source).

:func:`stage_config` builds the ``Config`` class an asset takes from the dataclass's fields,
types, defaults and help, plus any fields that only exist in Dagster (a path of an upstream
artifact, say); :func:`settings_of` turns a run's config back into the dataclass the domain call
takes. The Launchpad, ``run --set`` and the CLI therefore show the same knobs with the same
defaults.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import TYPE_CHECKING, Any, TypeVar

import pydantic
from dagster import Config, DagsterInstance

from trajectory_platform.resources.facts import latest_metadata

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")

SETTINGS_CLASS = "settings_class"
"""Attribute of a ``Config`` class built here naming the settings dataclass it was built from."""

SETTINGS_KEY = "settings"
"""Materialization metadata key holding the settings a stage ran with, so its checks judge the
output by the same settings (a check cannot see its asset's run config)."""


def stage_config(settings: type, **extra: tuple[Any, Any]) -> type[Config]:
    """A ``Config`` class with one field per dataclass field (tuples become lists; a field's
    ``choices`` ride along as JSON-schema extras, so ``run --set`` checks them before launching)
    and the ``extra`` ``(type, default)`` fields.

    An asset's config subclasses it under its own name and docstring, so that the name is a class
    a type checker accepts in the asset's signature (a variable holding a class is not)::

        class ScorecardConfig(stage_config(EvaluationSettings)):  # type: ignore[misc]
            ...  # its docstring: the asset's run config, built from those settings

    The fields only exist at run time, so the checker treats the base as ``Any`` (the ignore is
    its "dynamic base class"): reading a field is unchecked, the rest of the asset is not."""
    hints = typing.get_type_hints(settings)
    definitions: dict[str, Any] = {}
    for field in dataclasses.fields(settings):
        kind = hints[field.name]
        if typing.get_origin(kind) is tuple:
            kind = types.GenericAlias(list, typing.get_args(kind)[:1])
        default: Any = (
            field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default
        )
        if isinstance(default, tuple):
            default = list(default)
        description = field.metadata.get("help")
        choices: dict[str, Any] | None = (
            {"choices": list(field.metadata["choices"])} if "choices" in field.metadata else None
        )
        definitions[field.name] = (
            kind,
            pydantic.Field(default=default, description=description, json_schema_extra=choices),
        )
    definitions.update(extra)
    model = pydantic.create_model(f"{settings.__name__}Fields", __base__=Config, **definitions)
    setattr(model, SETTINGS_CLASS, settings)  # so ``run --set`` runs the dataclass's own checks too
    return model


def settings_of(config: Config, settings: type[T]) -> T:
    """The ``settings`` dataclass holding a run config's values for its fields."""
    return settings_from({f.name: getattr(config, f.name) for f in dataclasses.fields(settings)}, settings)


def settings_from(values: dict[str, Any], settings: type[T]) -> T:
    """``settings`` from the values of those of its fields ``values`` has (JSON lists become the
    tuples the dataclass declares)."""
    hints = typing.get_type_hints(settings)
    names = {f.name for f in dataclasses.fields(settings)}
    return settings(
        **{
            name: tuple(value) if typing.get_origin(hints[name]) is tuple else value
            for name, value in values.items()
            if name in names
        }
    )


def recorded_settings(metadata: dict[str, Any], settings: type[T]) -> T:
    """The settings a materialization with ``metadata`` ran with (the defaults when it recorded none)."""
    return settings_from(dict(metadata.get(SETTINGS_KEY) or {}), settings)


def materialized_settings(
    instance: DagsterInstance, asset: str, settings: type[T], partition: str | None = None
) -> T:
    """The settings ``asset``'s latest materialization (of ``partition``, for a partitioned asset's
    check) ran with (its own checks read them so)."""
    return recorded_settings(latest_metadata(instance, asset, partition), settings)
