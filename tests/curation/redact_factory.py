"""A realistic episode full of secrets, shared by the redaction / lineage / license tests."""

from __future__ import annotations

import datetime as dt
import json

from trajectory_platform.traces.record import (
    DeliveredInput,
    Episode,
    Event,
    LineageInputs,
    Outcome,
    TaskIdentity,
    ToolCall,
    ToolSpec,
    canonical_json,
)

GITHUB_TOKEN = "ghp_" + "9AxL002KzQ891mB18vTq7RsWpYc3NdEf6Gh2"
AWS_KEY = "AKIAQWADE5R42RDZ4JEM"
DB_PASSWORD = "s3cr3t-Pa55!"
API_SECRET = "sec_live_99814421bfae7Qm2"
COMMIT_SHA = "9356f54a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e"
SHA256 = "sha256:" + "3f7a" * 16
EMAIL = "dana.kowalski@acme-robotics.com"
SALT = b"test-salt"


def secret_episode(episode_id: str = "ep-secret-1") -> Episode:
    """An episode whose prompt, tool calls, observations, schemas, manifests and outcome carry secrets."""
    command = f"curl -H 'Authorization: Bearer {GITHUB_TOKEN}' https://api.github.com/user && echo {AWS_KEY}"
    arguments = json.dumps({"command": command})
    observation = json.dumps({"status": "success", "api_key": API_SECRET, "commit": COMMIT_SHA})
    events = [
        Event(kind="system", content="You are a coding agent."),
        Event(
            kind="user",
            content=f"Deploy using DATABASE_URL=postgres://app:{DB_PASSWORD}@10.240.0.12:5432/prod",
        ),
        Event(
            kind="assistant",
            content="Checking the token.",
            reasoning=f"Mail {EMAIL} if {AWS_KEY} fails.",
            tool_calls=[
                ToolCall(id="call_8fJk2LmN9pQrStUvWxYz0123", name="execute_bash", arguments=arguments)
            ],
        ),
        Event(kind="tool", content=observation, tool_call_id="call_8fJk2LmN9pQrStUvWxYz0123", status="ok"),
        Event(
            kind="assistant",
            content=f"Done; repo at /home/dkowalski/src on build-7.corp, image {SHA256}, "
            f"commit {COMMIT_SHA}.",
            tool_calls=[
                ToolCall(
                    id="call_2",
                    name="execute_bash",
                    arguments=f"git push https://x:{GITHUB_TOKEN}@github.com",
                )
            ],
        ),
    ]
    delivered = [
        DeliveredInput(
            call_index=0,
            response_event_index=2,
            messages_json=canonical_json([{"kind": e.kind, "content": e.content} for e in events[:2]]),
        )
    ]
    return Episode(
        episode_id=episode_id,
        source_format="native",
        source_file="fixtures/secret.jsonl",
        source_line=1,
        source_path=None,
        partition_date=dt.date(2026, 1, 5),
        task=TaskIdentity(
            fixture_id="fx-1",
            prompt=f"Rotate the key {AWS_KEY} for {EMAIL}",
            repo_family="acme/robots",
            license="MIT",
        ),
        lineage=LineageInputs(
            model="tiny",
            model_digest="sha256:" + "11" * 32,
            tokenizer_digest="sha256:" + "22" * 32,
            tool_manifest_digest="sha256:" + "33" * 32,
            environment_digest="sha256:" + "44" * 32,
            sampling_params_json=canonical_json({"temperature": 0.2, "seed": 7}),
        ),
        tools=[
            ToolSpec(
                name="execute_bash",
                description=f"Runs commands; default token {GITHUB_TOKEN}",
                parameters_json=canonical_json(
                    {"type": "object", "properties": {"command": {"type": "string"}}}
                ),
            )
        ],
        events=events,
        delivered_inputs=delivered,
        outcome=Outcome(
            terminal_status="completed",
            final_answer=f"Used password {DB_PASSWORD}",
            workspace_diff=f'+API_KEY = "{API_SECRET}"\n',
            verifier_results_json=canonical_json({"tests": "passed"}),
        ),
    )


def with_shell_calls(episode: Episode, *calls: tuple[str, str]) -> Episode:
    """``episode`` with each ``(command, output)`` appended as a shell call and the answer it drew:
    the one builder of the tests that redact what a command printed or wrote."""
    for index, (command, output) in enumerate(calls):
        call = ToolCall(id=f"sh{index}", name="execute_bash", arguments=json.dumps({"command": command}))
        episode.events += [
            Event(kind="assistant", content="", tool_calls=[call]),
            Event(kind="tool", content=output, tool_call_id=f"sh{index}", status="ok"),
        ]
    return episode
