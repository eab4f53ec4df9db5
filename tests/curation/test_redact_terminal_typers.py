"""A password prompt answered by a command that types into a terminal (red team rtsec13): an agent
driving a terminal through tmux, screen or a window tool reads ``Password:`` in a pane and types the
answer with a command (``tmux send-keys -t agent 'x' Enter``). Only calls that type into the running
program (``keys``, ``input``, ``is_input``) were read as answers, so the password stayed.

The prompts, commands and values here are not the red team's generators' (those are in its
report)."""

from __future__ import annotations

import json

import pytest

from tests.curation.redact_factory import secret_episode
from trajectory_platform.curation.redact import redact_episode
from trajectory_platform.traces.record import Episode, Event, ToolCall

SALT = b"terminal-typers-salt"
PASSWORD = "Tq7#mVw2Lx9r"


def _answered(prompt: str, command: str) -> Episode:
    """An episode whose last tool output ends with ``prompt`` and whose next call runs ``command``."""
    episode = secret_episode()
    read = ToolCall(id="t1", name="bash", arguments=json.dumps({"command": "tmux capture-pane -p -t ops"}))
    typed = ToolCall(id="t2", name="bash", arguments=json.dumps({"command": command}))
    episode.events = [
        Event(kind="user", content="Rotate the nginx logs on the host."),
        Event(kind="assistant", content="", tool_calls=[read]),
        Event(kind="tool", content=f"$ su - ops\n{prompt}", tool_call_id="t1", status="ok"),
        Event(kind="assistant", content="", tool_calls=[typed]),
        Event(kind="tool", content="", tool_call_id="t2", status="ok"),
    ]
    return episode


def _typed_command(episode: Episode) -> str:
    return str(json.loads(episode.events[3].tool_calls[0].arguments or "{}")["command"])


@pytest.mark.parametrize(
    "command",
    [
        f"tmux send-keys -t ops:2 '{PASSWORD}' KPEnter",
        f'tmux send-keys -t ops -l "{PASSWORD}" ; tmux send-keys -t ops C-m',
        f"kitty @ send-text --match title:ops '{PASSWORD}\\r'",
        f"wezterm cli send-text --pane-id 3 '{PASSWORD}\\n'",
    ],
    ids=["tmux_kpenter", "tmux_literal_then_enter", "kitty_send_text", "wezterm_send_text"],
)
def test_a_password_typed_into_a_terminal_after_its_prompt_is_replaced(command: str) -> None:
    redacted, _ = redact_episode(_answered("Password: ", command), SALT)
    assert PASSWORD not in _typed_command(redacted)


@pytest.mark.parametrize(
    "command",
    [
        "tmux send-keys -t ops C-c",
        "tmux send-keys -t deploy-2 'y' Enter",
        "tmux send-keys -t ops 'sudo -S logrotate -f /etc/logrotate.conf' Enter",
        "screen -S ops -X stuff 'exit\\n'",
        "xdotool key --window 4194307 Return",
        "tmux send-keys -t ops Escape ':q!' Enter",
    ],
    ids=["interrupt", "confirm", "command_line", "exit", "key_only", "editor_quit"],
)
def test_honest_keys_and_lines_after_a_prompt_stay(command: str) -> None:
    redacted, _ = redact_episode(_answered("Password: ", command), SALT)
    assert _typed_command(redacted) == command
