"""The policy interface: what a policy is given for one model call, and what it returns.

The runtime, every scripted policy and the model-backed policy import this one module, so the
interface sits below all of them (the runtime never imports a policy implementation, and a
policy never imports the runtime).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trajectory_platform.gym import protocol
from trajectory_platform.traces.record import Event, ToolSpec

if TYPE_CHECKING:
    from trajectory_platform.gym.fixtures import Fixture


@dataclass
class PolicyInput:
    """What a policy sees for one model call: the delivered messages and tools, nothing else."""

    messages: list[Event]
    tools: list[ToolSpec]
    tools_version: str
    step: int


@dataclass
class PolicyTurn:
    """One generated assistant turn.

    ``finish_reason`` is ``stop`` when the model emitted its end token and ``length`` when the
    output limit cut it; ``abandon`` ends the session without a reply (a user walked away).
    """

    text: str = ""
    finish_reason: str = "stop"
    abandon: bool = False
    output_tokens: int | None = None

    @classmethod
    def structured(
        cls,
        content: str = "",
        calls: Sequence[tuple[str, dict | str]] = (),
        reasoning: str | None = None,
        finish_reason: str = "stop",
    ) -> PolicyTurn:
        """A turn given as parts (prose, ``(name, arguments)`` calls, reasoning) instead of raw
        text; it is rendered to the wire format so the runtime parses it like any model output."""
        return cls(protocol.render_turn(content, list(calls), reasoning), finish_reason=finish_reason)


class Policy(ABC):
    """Given the delivered messages and tools, produce the next assistant turn."""

    name = "policy"

    def start(self, fixture: Fixture, seed: int) -> None:  # noqa: B027 - optional hook
        """Called once per episode before the first turn (scripted policies read their plan)."""

    @abstractmethod
    def act(self, inp: PolicyInput) -> PolicyTurn:
        """The next turn for exactly what was delivered."""

    def sampling_params(self) -> dict:
        """Decoding settings recorded in the lineage (scripted policies are deterministic)."""
        return {"decoding": "scripted", "temperature": 0.0}

    def describe(self) -> dict:
        """Identity and configuration hashed into ``sampler_policy_digest``."""
        return {"policy": self.name}
