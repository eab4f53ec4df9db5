"""Recognize well-known files that sit next to agent logs but are not trajectories.

Benchmarks ship task sets, ground truth, tool documentation and prediction files beside their
logs. None of them records an agent acting (no model turns, no observations), so they cannot
become episodes; naming what they are makes the reject actionable ("this is BFCL ground truth")
instead of a bare "unrecognized format".
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.base import first_record

NOT_A_TRAJECTORY = "not a trajectory"
JSON_RPC = "2.0"
"""The ``jsonrpc`` version every MCP message names (a bare one, or under an inspector's ``message``)."""


def is_json_rpc(item: Any) -> bool:
    """A JSON-RPC message (an MCP client's request or a server's result), bare or under a logger's
    ``message`` beside its ``direction`` and time (the MCP Inspector's history): a protocol message
    between a client and a tool server, never a chat message, whatever speaker its envelope names."""
    if not isinstance(item, dict):
        return False
    wrapped = item.get("message")
    return (wrapped if isinstance(wrapped, dict) else item).get("jsonrpc") == JSON_RPC


def is_crewai_output(item: Any) -> bool:
    """A CrewAI result: a ``CrewOutput`` (``raw`` beside ``tasks_output``) or a ``TaskOutput``
    (``expected_output`` beside ``raw`` or ``agent``; or ``agent`` beside ``output_format``). Such a
    record names the framework whose executor appends each tool's output to the acting text."""
    if not isinstance(item, dict):
        return False
    keys = item.keys()
    return (
        {"raw", "tasks_output"} <= keys
        or ("expected_output" in keys and bool(keys & {"raw", "agent"}))
        or {"agent", "output_format"} <= keys
    )


def describe_non_trajectory(sample: Any) -> str | None:
    """What kind of non-trajectory file ``sample`` (its document or first line) is, or ``None``."""
    item = first_record(sample)
    if not isinstance(item, dict):
        return None
    if "$schema" in item or "$defs" in item:
        return "a JSON Schema document (format specification, no recorded run)"
    if "question" in item and "id" in item:
        return "a BFCL question set: prompts and function schemas without model output"
    if "ground_truth" in item:
        return "BFCL ground truth (possible answers), not a recorded run"
    if {"name", "description", "parameters"} <= item.keys():
        return "tool documentation (function schemas), not a recorded run"
    if "query" in item and ("api_list" in item or "query_id" in item):
        return "ToolBench instruction queries: tasks without model output"
    if "problem_statement" in item and "instance_id" in item:
        return "SWE-bench task instances: tasks and reference patches without a recorded run"
    if "fix_patch" in item:
        return "reference fix patches for benchmark tasks, not a recorded run"
    if {"task", "agent", "status"} <= item.keys() and "messages" not in item:
        return (
            "a CrewAI task output log: each task's description and final output, no model turns or tool calls"
        )
    if is_crewai_output(item):
        return "CrewAI task outputs (a crew's or a task's final output), no model turns or tool calls"
    if is_json_rpc(item):
        return (
            "an MCP (JSON-RPC) message log: the requests a client sent a tool server and their "
            "results, no model turns"
        )
    nested = next(iter(item.values()), None) if item else None
    if "model_patch" in item or (isinstance(nested, dict) and "model_patch" in nested):
        return "a predictions file (final patches only, no steps)"
    return None
