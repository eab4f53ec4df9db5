"""Every adapter against the real public files in ../shared/data/real (see PROVENANCE.md).

Each test names a real file and asserts values read from it by hand: the calls, observations,
errors, truncation markers and final status must survive normalization.
"""

from __future__ import annotations

import json
from collections import Counter

from trajectory_platform.traces.ingest import ingest_paths

SWE_FC = (
    "swe-agent/trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__"
    "function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj"
)
SWE_PYDICOM = (
    "swe-agent/tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__"
    "p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj"
)
OH_MULTI = "openhands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl"
FIREACT = (
    "fireact/trajs/hotpotqa_dev_0_500_ft_gpt-3.5-turbo-0613_princeton-nlp__7woQRsdi_0.0_"
    "2023-09-21-16-19-51.json"
)
INSPECT_ERRORS = "format-fixtures/inspect-ai/tests/log/test_eval_log/log_tool_call_error.json"


def test_every_real_trajectory_ingests_without_rejects(real_corpus):
    """Only files that are not trajectories are rejected, each with a reason naming what it is."""
    assert real_corpus.records_in == len(real_corpus.episodes) + len(real_corpus.rejects)
    unexpected = [
        r
        for r in real_corpus.rejects
        if r.reason != "not a trajectory" and not r.source_file.endswith(INSPECT_ERRORS)
    ]
    assert unexpected == []
    kinds = Counter(r.detail for r in real_corpus.rejects if r.reason == "not a trajectory")
    assert kinds["a BFCL question set: prompts and function schemas without model output"] == 14
    assert kinds["BFCL ground truth (possible answers), not a recorded run"] == 12
    assert real_corpus.counts_by_format == {
        "claude-code": 1,
        "fireact": 465,
        "inspect": 1,
        "mini-swe-agent": 2,
        "openhands": 9,
        "swe-agent": 22,
        "tau-bench": 200,
        "tau-bench-fewshot": 19,
        "toolbench": 38,
    }


def test_synthetic_inspect_error_catalogue_is_rejected_as_orphan_results(real_corpus):
    """PROVENANCE marks it a SYNTHETIC placeholder: tool results answering calls never made."""
    (reject,) = [r for r in real_corpus.rejects if r.source_file.endswith(INSPECT_ERRORS)]
    assert reject.reason == "orphan tool result"
    assert "bash_1" in reject.detail and reject.source_path == "samples[0]"


def test_tau_bench_calls_errors_and_rewards(real_file):
    episodes = real_file("tau-bench/historical_trajectories/gpt-4o-airline.json")
    assert len(episodes) == 200
    assert Counter(e.outcome.reward for e in episodes) == {0.0: 116, 1.0: 84}
    first = next(e for e in episodes if e.episode_id == "tau-bench:airline/0/trial-0")
    call = next(c for ev in first.events for c in ev.tool_calls)
    assert (call.id, call.name, call.arguments) == (
        "call_oIHazX6yQrB8hUwl4cRilFKj",
        "get_user_details",
        '{"user_id":"mia_li_3668"}',
    )
    answer = next(ev for ev in first.events if ev.tool_call_id == call.id)
    assert answer.kind == "tool" and answer.status == "ok" and '"first_name": "Mia"' in answer.content
    errors = [ev for e in episodes for ev in e.events if ev.status == "error"]
    assert len(errors) == 73 and all(ev.content.startswith("Error:") for ev in errors)
    assert any(
        ev.content == "Error: payment amount does not add up, total price is 305, but paid 255"
        for ev in errors
    )
    assert first.task.domain == "airline" and first.task.prompt.startswith("You are mia_li_3668.")
    assert json.loads(first.outcome.verifier_results_json)["info"]["r_actions"] == 0.0


def test_tau_bench_few_shot_transcripts(real_file):
    episodes = real_file("tau-bench/few_shot_data/MockAirlineDomainEnv-few_shot.jsonl")
    assert len(episodes) == 19
    first = min(episodes, key=lambda e: e.source_line)
    assert first.source_line == 1
    kinds = [e.kind for e in first.events]
    assert kinds[:5] == ["user", "assistant", "user", "assistant", "tool"]
    assert first.events[3].content is None  # "assistant: None": the call was not recorded
    assert (first.events[4].content, first.events[4].status) == ("Error: user not found", "error")
    assert (first.events[-1].content, first.events[-1].status) == ("Transfer successful", "ok")


def test_swe_agent_function_calling_and_history_compaction(real_file):
    (episode,) = real_file(SWE_FC)
    assert episode.outcome.terminal_status == "completed"
    assert episode.outcome.workspace_diff.lstrip().startswith("diff --git a/src/marshmallow/fields.py")
    assert episode.events[1].kind == "user" and episode.events[1].content.startswith(
        "We're currently solving"
    )
    call = episode.events[2].tool_calls[0]
    assert (call.id, call.name, call.arguments) == (
        "call_9diWc1DYm4RLmPfHgIaP2wd",
        "bash",
        '{"command":"ls -F"}',
    )
    assert episode.events[3].tool_call_id == call.id and "RELEASING.md" in episode.events[3].content
    # step i records the processed history after it: the input of call i + 1 (13 steps, 12 inputs)
    manifests = episode.delivered_inputs
    assert [m.call_index for m in manifests] == list(range(1, 13))
    assert [m.compacted for m in manifests] == [False] * 5 + [True] * 7
    assert manifests[0].event_indices == [0, 1, 2, 3] and manifests[0].response_event_index == 4
    delivered = json.loads(manifests[5].messages_json)
    assert delivered[3]["content"] == "Old environment output: (7 lines omitted)"
    assert delivered[3]["tool_call_id"] == "call_9diWc1DYm4RLmPfHgIaP2wd"
    assert delivered[5]["content"] == episode.events[5].content  # newer observations are kept whole
    assert manifests[5].call_index == 6 and manifests[5].response_event_index == 14


def test_swe_agent_text_actions_keep_the_recorded_command(real_file):
    (episode,) = real_file(SWE_PYDICOM)
    assert episode.episode_id == "swe-agent:pydicom__pydicom-1458"
    assert episode.events[1].name == "demonstration"
    assert episode.task.prompt.startswith("We're currently solving the following issue")
    first_call = next(ev for ev in episode.events if ev.kind == "assistant").tool_calls[0]
    assert (first_call.id, first_call.name, first_call.arguments) == (
        None,
        "create",
        "create reproduce_bug.py\n",
    )
    assert Counter(ev.kind for ev in episode.events)["assistant"] == 12
    assert Counter(ev.kind for ev in episode.events)["tool"] == 11  # submit's output is the diff, not history
    assert episode.outcome.workspace_diff.lstrip().startswith(
        "diff --git a/pydicom/pixel_data_handlers/numpy_handler.py"
    )
    assert json.loads(episode.extra_json)["model_stats"]["tokens_sent"] == 122612


def test_all_swe_agent_runs_submitted(real_file, real_corpus):
    episodes = [e for e in real_corpus.episodes if e.source_format == "swe-agent"]
    statuses = Counter(e.outcome.terminal_status for e in episodes)
    assert statuses == {"completed": 21, None: 1}  # function_calling_simple.traj has no info: unknown
    (bare,) = real_file("swe-agent/trajectories/demonstrations/function_calling_simple.traj")
    assert bare.outcome.terminal_status is None and bare.delivered_inputs == []
    ids = [e.episode_id for e in episodes]
    assert len(set(ids)) == len(ids)  # eight replays of marshmallow-1867 get digest suffixes
    assert sum(i.startswith("swe-agent:marshmallow-code__marshmallow-1867~") for i in ids) == 8


def test_mini_swe_agent_exit_codes_and_submission(real_file):
    (episode,) = real_file("mini-swe-agent/tests/test_data/github_issue.traj.json")
    failed = episode.events[3]
    assert (failed.kind, failed.exit_code, failed.status) == ("tool", 1, "error")
    assert "No such file or directory" in failed.content
    assert episode.events[2].tool_calls[0].arguments == (
        "cat /Users/fuchur/Documents/24/git_sync/swe-agent-test-repo/tests/./missing_colon.py"
    )
    assert [e.exit_code for e in episode.events if e.kind == "tool"][:8] == [1, 0, 0, 0, 0, 0, 0, 1]
    assert episode.outcome.terminal_status == "completed"
    assert 'raise ValueError("Cannot divide by zero")' in episode.outcome.workspace_diff


def test_openhands_exit_codes_truncation_refusal_and_limit(real_file):
    episodes = {e.episode_id: e for e in real_file(OH_MULTI)}
    limit = episodes["openhands:ponylang__ponyc-4588"]
    assert limit.outcome.terminal_status == "truncated"  # "Agent reached maximum iteration"
    refusal = next(ev for ev in limit.events if ev.kind == "refusal")
    assert refusal.status == "refused" and refusal.content.startswith("Parameter 'command' is expected")
    clipped = [ev for e in episodes.values() for ev in e.events if ev.status == "truncated"]
    assert len(clipped) == 4 and all("<response clipped>" in ev.content for ev in clipped)
    codes = Counter(ev.exit_code for e in episodes.values() for ev in e.events if ev.exit_code is not None)
    assert codes == {0: 30, 2: 9, 1: 5, 127: 3, 100: 2}
    done = episodes["openhands:ponylang__ponyc-4595"]
    assert done.outcome.terminal_status == "completed" and done.task.repo_family == "ponylang/ponyc"
    first_call = next(ev for ev in done.events if ev.tool_calls).tool_calls[0]
    assert (first_call.id, first_call.name) == ("toolu_01", "execute_bash")
    assert json.loads(first_call.arguments) == {"command": "ls -l /workspace/ponylang__ponyc__0.1"}
    answer = next(ev for ev in done.events if ev.tool_call_id == "toolu_01")
    assert answer.exit_code == 0 and answer.status == "ok" and answer.content.startswith("total 300")


def test_openhands_resolver_output_and_event_lists(real_file):
    resolver = {e.episode_id: e for e in real_file("openhands/tests/unit/resolver/mock_output/output.jsonl")}
    license_run = resolver["openhands:neubig/pr-viewer#5"]
    assert json.loads(license_run.outcome.verifier_results_json)["success"] is True
    assert license_run.events[0].kind == "user"  # no "source" in this older layout: the instruction
    assert license_run.events[2].exit_code == 0 and license_run.events[1].tool_calls[0].name == "run"
    assert license_run.outcome.workspace_diff.startswith("diff --git a/LICENSE b/LICENSE")
    (state,) = real_file("openhands/tests/runtime/trajs/wrong_initial_state.json")
    run = next(ev for ev in state.events if ev.tool_calls and ev.tool_calls[0].name == "execute_bash")
    assert run.tool_calls[0].id == "toolu_01PuY3mXrE6fm3j52GscR4rj" and run.input_tokens == 3616
    assert state.outcome.terminal_status == "completed"


def test_openhands_keeps_the_working_dir_its_first_command_observation_records(real_file, tmp_path):
    """The event stream's ``extras.metadata.working_dir`` (where the evaluation runtime held the
    repository) is kept for replay; the older resolver layout records none and keeps none."""
    for episode in real_file(OH_MULTI):
        assert json.loads(episode.extra_json)["working_dir"] == "/workspace/ponylang__ponyc__0.1"
    (state,) = real_file("openhands/tests/runtime/trajs/wrong_initial_state.json")
    assert json.loads(state.extra_json)["working_dir"] == "/workspace"
    for episode in real_file("openhands/tests/unit/resolver/mock_output/output.jsonl"):
        assert "working_dir" not in json.loads(episode.extra_json or "{}")

    bad = [
        {"id": 1, "action": "run", "args": {"command": "pwd"}},
        {"id": 2, "observation": "run", "content": "/x", "extras": {"metadata": {"working_dir": ["/x"]}}},
    ]
    (tmp_path / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    result = ingest_paths([tmp_path / "bad.json"])
    assert [(r.reason, r.detail) for r in result.rejects] == [
        ("wrong type", "history[1].extras.metadata.working_dir is list, expected string")
    ]


def test_toolbench_train_messages_are_delivered_inputs(real_file):
    (episode,) = real_file("toolbench/data_example/answer/G1_answer/57_ChatGPT_DFS_woFilter_w2.json")
    assert episode.outcome.terminal_status == "completed"
    assert [m.event_indices[-1] + 1 for m in episode.delivered_inputs] == [2, 4, 7, 9, 10]
    assert all(m.response_event_index == m.event_indices[-1] + 1 for m in episode.delivered_inputs)
    failing = next(ev for ev in episode.events if ev.status == "error")
    assert failing.tool_name == "news_for_seo_api" and '"error": "Message error..."' in failing.content
    assert episode.events[2].tool_calls[0].name == "products_for_seo_api"
    (gave_up,) = real_file("toolbench/data_example/answer/G2_answer/10_ChatGPT_DFS_woFilter_w2.json")
    assert gave_up.outcome.terminal_status == "abandoned"


def test_toolbench_search_tree_becomes_one_episode_per_attempt(real_file):
    attempts = real_file("toolbench/data_example/answer/G1_answer/69_ChatGPT_DFS_woFilter_w2.json")
    assert len(attempts) == 9 and len({a.source_path for a in attempts}) == 9
    refused = [ev for a in attempts for ev in a.events if ev.status == "refused"]
    assert refused and all("No such function name" in ev.content for ev in refused)
    first = min(attempts, key=lambda a: a.episode_id)
    assert first.events[1].tool_calls[0].name == "latest_news_for_currents_news"


def test_fireact_actions_and_rewards(real_file):
    episodes = {e.episode_id: e for e in real_file(FIREACT)}
    assert len(episodes) == 465
    episode = episodes["fireact:6238"]
    assert episode.outcome.final_answer == "Seth MacFarlane" and episode.outcome.reward == 1.0
    assert json.loads(episode.outcome.verifier_results_json)["gt"] == "seth macfarlane"
    assert episode.events[1].tool_calls[0].name == "finish"
    assert episode.events[2].kind == "tool" and episode.source_path == "['6238']"
    searched = [c for e in episodes.values() for ev in e.events for c in ev.tool_calls if c.name == "search"]
    assert searched


def test_inspect_log_and_claude_code_session(real_file):
    (sample,) = real_file("format-fixtures/inspect-ai/tests/log/test_eval_log/log_read_sample.json")
    assert [e.kind for e in sample.events] == ["system", "user", "assistant"]
    (call,) = sample.delivered_inputs
    assert call.event_indices == [0, 1] and call.response_event_index == 2 and not call.compacted
    assert sample.outcome.final_answer == "Yes\n" and sample.outcome.terminal_status == "completed"
    (session,) = real_file("format-fixtures/claude-code/test/test_data/representative_messages.jsonl")
    assert [c.id for ev in session.events for c in ev.tool_calls] == ["tool_001", "tool_002"]
    assert [ev.tool_call_id for ev in session.events if ev.kind == "tool"] == ["tool_001", "tool_002"]
    # its summary line is the session's /resume title (naming the last entry): metadata, not a turn
    assert "compaction" not in [ev.kind for ev in session.events]
    assert json.loads(session.extra_json)["titles"][0]["leafUuid"] == "msg_011"
    assert session.events[0].timestamp == "2025-06-14T10:00:00Z"
