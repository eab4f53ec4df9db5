"""A handoff read as one conversation continuing (traces/adapters/call_trace.py): the first agent's
call saw its own instructions, which the episode's log (the last agent's) does not show. Its
delivered input (verbatim) points at its answer, so training places that answer under the
instructions the call was given, not the next agent's."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_jsonl

from trajectory_platform.training.data.serialize import plan_examples, select_targets

ASK = {"role": "user", "content": "I was double charged"}
HANDOFF = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "h1", "type": "function", "function": {"name": "transfer_to_billing", "arguments": "{}"}}
    ],
}
BACK = {"role": "tool", "tool_call_id": "h1", "content": '{"assistant": "Billing"}'}


def test_a_langfuse_handoff_trains_the_first_call_under_its_own_instructions(tmp_path: Path):
    trace = {
        "id": "tr",
        "name": "support",
        "observations": [
            {
                "id": "g1",
                "traceId": "tr",
                "type": "GENERATION",
                "startTime": "2025-01-01T00:00:01Z",
                "input": [{"role": "system", "content": "Triage agent."}, ASK],
                "output": HANDOFF,
            },
            {
                "id": "g2",
                "traceId": "tr",
                "type": "GENERATION",
                "startTime": "2025-01-01T00:00:02Z",
                "input": [{"role": "system", "content": "Billing agent."}, ASK, HANDOFF, BACK],
                "output": {"role": "assistant", "content": "Refunded."},
            },
        ],
    }
    episode = one_episode(write_jsonl(tmp_path, "langfuse.jsonl", [trace]))
    assert [d.response_event_index for d in episode.delivered_inputs] == [2, 4]
    for plan in plan_examples(episode, select_targets(episode)):
        systems = [t.message["content"] for t in plan.turns if t.message["role"] == "system"]
        targets = [str(t.message) for t in plan.turns if t.target]
        if any("transfer_to_billing" in t for t in targets):
            assert systems == ["Triage agent."]
