"""CLI flags derived from a stage's settings dataclass, so a flag cannot drift from the setting.

Each field becomes ``--field-name`` (plus any aliases a command keeps for compatibility) with the
dataclass default, its type, and the help and choices from the field's metadata; booleans get a
``--name/--no-name`` pair. :func:`settings_from_args` builds the dataclass back from the parsed
namespace.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import typing
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import pydantic

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")


def add_set_option(parser: argparse.ArgumentParser, metavar: str, help: str, dest: str = "settings") -> None:
    """The repeatable ``--set KEY.FIELD=VALUE`` option of ``run``, ``round`` and ``curate``."""
    parser.add_argument("--set", dest=dest, action="append", default=[], metavar=metavar, help=help)


def field_default(field: dataclasses.Field) -> Any:
    """A dataclass field's default value (calling its factory when it has one)."""
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def add_settings_arguments(
    parser: argparse.ArgumentParser,
    settings: type,
    aliases: dict[str, tuple[str, ...]] | None = None,
    skip: tuple[str, ...] = (),
) -> None:
    """Add one flag per field of the ``settings`` dataclass (except ``skip``)."""
    hints = typing.get_type_hints(settings)
    for field in dataclasses.fields(settings):
        if field.name in skip:
            continue
        default = field_default(field)
        names = [f"--{field.name.replace('_', '-')}", *(aliases or {}).get(field.name, ())]
        kwargs: dict[str, Any] = {"dest": field.name, "default": default}
        help_text = field.metadata.get("help", "")
        kwargs["help"] = f"{help_text} (default: {default!r})" if help_text else f"default: {default!r}"
        kind = hints[field.name]
        if kind is bool:
            kwargs["action"] = argparse.BooleanOptionalAction
        elif typing.get_origin(kind) in (list, tuple):
            kwargs["nargs"] = "*"
            kwargs["type"] = typing.get_args(kind)[0]
        else:
            kwargs["type"] = kind
            if "choices" in field.metadata:
                kwargs["choices"] = field.metadata["choices"]
        parser.add_argument(*names, **kwargs)


def settings_from_args(settings: type[T], args: argparse.Namespace) -> T:
    """The ``settings`` dataclass with every field taken from the parsed flags."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(settings) if hasattr(args, f.name)}
    hints = typing.get_type_hints(settings)
    for name, value in values.items():
        if typing.get_origin(hints[name]) in (list, tuple) and isinstance(value, list | tuple):
            # "--augment rename reorder" and "--augment rename,reorder" mean the same
            items = [part for item in value for part in str(item).split(",") if part]
            values[name] = tuple(items) if typing.get_origin(hints[name]) is tuple else items
    return settings(**values)


class SettingError(ValueError):
    """A setting a user typed that names nothing or holds a value its field refuses."""


def unknown_key(kind: str, name: str, valid: Iterable[str]) -> str:
    """The one message for a name that is not one of ``valid``: a close match when there is one,
    then every valid name, so a typo is fixed from the message alone."""
    choices = sorted(set(valid))
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else ""
    return f"unknown {kind} {name}{hint} (valid: {', '.join(choices)})"


def field_choices(model: type) -> dict[str, tuple[Any, ...]]:
    """The allowed values of each field of ``model`` that declares ``choices``: in its metadata
    (a settings dataclass) or its JSON-schema extras (the ``Config`` built from one)."""
    if dataclasses.is_dataclass(model):
        declared = {f.name: f.metadata.get("choices") for f in dataclasses.fields(model)}
    else:
        declared = {
            name: info.json_schema_extra.get("choices") if isinstance(info.json_schema_extra, dict) else None
            for name, info in getattr(model, "model_fields", {}).items()
        }
    return {name: tuple(allowed) for name, allowed in declared.items() if allowed is not None}


def model_fields(model: type) -> list[str]:
    """The field names of a settings dataclass or a pydantic (Dagster ``Config``) model."""
    if dataclasses.is_dataclass(model):
        return [f.name for f in dataclasses.fields(model)]
    return list(getattr(model, "model_fields", {}))


def checked_values(where: str, values: Mapping[str, Any], model: type) -> dict[str, Any]:
    """``values`` checked against ``model`` (a settings dataclass or a Dagster ``Config`` class)
    before any work: an unknown name fails with a suggestion, a value of the wrong type or outside
    the field's choices (or refused by the dataclass itself) fails naming ``where.field``.

    Returns the values as the model holds them (``"4"`` for an ``int`` field becomes ``4``)."""
    names = model_fields(model)
    choices = field_choices(model)
    for name in values:
        if name not in names:
            raise SettingError(unknown_key("setting", f"{where}.{name}", (f"{where}.{n}" for n in names)))
    for name, allowed in choices.items():
        if name not in values:
            continue
        given = values[name]
        if any(item not in allowed for item in (given if isinstance(given, list | tuple) else [given])):
            raise SettingError(f"{where}.{name}={given!r}: not one of {', '.join(map(repr, allowed))}")
    try:
        built: Any = pydantic.TypeAdapter(model).validate_python(dict(values))
    except pydantic.ValidationError as exc:
        raise SettingError("; ".join(_problem(where, error) for error in exc.errors())) from None
    return {name: getattr(built, name) for name in values}


def _problem(where: str, error: Any) -> str:
    """One pydantic error as ``where.field=value: why`` (``where: why`` for the dataclass's own
    check, which names no single field)."""
    why = str(error["msg"]).removeprefix("Value error, ")
    if not error["loc"]:
        return f"{where}: {why}"
    return f"{where}.{'.'.join(map(str, error['loc']))}={error.get('input')!r}: {why}"


def parse_settings(settings: list[str]) -> dict[str, dict]:
    """``["checkpoint.max_steps=4"]`` -> ``{"checkpoint": {"max_steps": 4}}`` (JSON or string values):
    the ``--set TARGET.FIELD=VALUE`` items of ``run`` and ``curate``."""
    config: dict[str, dict] = {}
    for item in settings:
        target, sep, raw = item.partition("=")
        asset, dot, name = target.partition(".")
        if not sep or not dot or not asset or not name:
            raise SettingError(f"--set {item!r}: expected ASSET.FIELD=VALUE")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        config.setdefault(asset, {})[name] = value
    return config
