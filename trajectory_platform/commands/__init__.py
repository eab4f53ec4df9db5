"""CLI subcommands, one module each, discovered by :mod:`trajectory_platform.cli`.

A module defines ``register(subparsers)`` which adds its parser and sets ``func`` to a callable
taking the parsed namespace and returning an exit code.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def emit_summary(summary: dict[str, Any]) -> None:
    """Print ``summary`` as one JSON line: the machine-readable last line of every command."""
    sys.stdout.flush()
    print(json.dumps(summary, sort_keys=True, default=str), flush=True)


def fail(message: str, code: int = 2) -> int:
    """Report a user-facing error on stderr and return the exit code to use."""
    print(f"trajectory-platform: error: {message}", file=sys.stderr)
    return code
