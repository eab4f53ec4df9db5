"""The gates of the other-line readings over a decoded view (positional.find_other_line_credentials
with the view's changed ``lines``): a reading whose mark stands on its value's own line (a
truncation mark, a pipe after a producer, a here-string) runs only where the changed lines hold
that mark. They are exact: for every choice of changed lines, what the gated readings find on
those lines is what the ungated ones find there. Generated: tables with cut cells, pipelines,
here-strings and here-documents, each line in turn the only changed one."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact.positional import find_other_line_credentials

TEXTS = {
    "cut_cell": "service,owner,db_password,rotated\nbilling,ops,Harborfalcon4172!...",
    "cut_cell_marked": "| id | password |\n|----|----------|\n| 1 | Copperwinter88#x [truncated]",
    "pipeline": "$ ls\nfiles\n$ echo 'Meadowrocket915!' | passwd --stdin deploy\nChanging password.",
    "here_string": "$ whoami\nroot\n$ chpasswd <<< 'ops:Silverlantern62%'\n$ echo done",
    "here_document": "$ passwd ops <<'END'\nOrchidmaple4410#\nOrchidmaple4410#\nEND\n",
    "sibling_name": "env:\n  - name: DB_PASSWORD\n    value: Falconharbor903!\n  - name: LOG\n    value: on",
    "mixed": "$ echo 'Winterorchid21#' | chpasswd\nuser,api_secret\nops,Lanternmeadow7!...\n",
}


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for line in text.split("\n"):
        spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans


def _on(findings: list, low: int, high: int) -> set:
    return {(f.start, f.end, f.kind, f.detector) for f in findings if low <= f.start and f.end <= high}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_gated_readings_find_on_the_changed_lines_what_ungated_ones_do(name: str) -> None:
    text = TEXTS[name]
    everything = list(find_other_line_credentials(text, text))
    assert everything  # each text holds a value some reading finds
    for low, high in _line_spans(text):
        gated = list(find_other_line_credentials(text, text[low:high]))
        assert _on(gated, low, high) == _on(everything, low, high)
