"""CLI flags derived from a stage's settings dataclass, so a flag cannot drift from the setting.

Each field becomes ``--field-name`` (plus any aliases a command keeps for compatibility) with the
dataclass default, its type, and the help and choices from the field's metadata; booleans get a
``--name/--no-name`` pair. :func:`settings_from_args` builds the dataclass back from the parsed
namespace.
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from typing import Any, TypeVar

T = TypeVar("T")


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
