"""The per-rule cost view times the rules without changing what they find, and puts them back."""

from redact_rule_cost import REST, RuleClock, instrument, long_line, table

from trajectory_platform.curation.redact import detectors, engine
from trajectory_platform.curation.redact.engine import SCAN_MEMO_CHARS, redact_text

SALT = b"s" * 32


def test_each_rule_is_timed_by_its_self_time_and_the_outputs_stay_as_they_were(monkeypatch):
    text = long_line(600) + "\nexport API_TOKEN=Zq8rT2pLw9Xk4mNb7VcY\n"
    plain = redact_text(text, SALT)
    monkeypatch.setattr(engine, "_SCAN_MEMO", engine._ScanMemo(SCAN_MEMO_CHARS))  # the rules run again
    clock = RuleClock()
    restore = instrument(clock)
    try:
        clock.enter(REST)
        timed = redact_text(text, SALT)
        clock.leave()
    finally:
        restore()
    assert timed == plain
    assert {"find_known_formats", "find_column_credentials", "rewrite"} <= set(clock.seconds)
    assert any(name.startswith("view:") for name in clock.seconds)
    assert all(seconds >= 0 for seconds in clock.seconds.values())
    assert detectors.find_known_formats.__name__ == "find_known_formats"  # the originals are back
    rows = table({"branch": clock.seconds}, 5)
    assert len(rows) == 7 and rows[-1].startswith("total")


def test_the_long_line_is_one_line_that_opens_the_gates():
    line = long_line()
    assert "\n" not in line and 20_000 <= len(line) < 20_100
    assert all(mark in line for mark in ("|", "+", "'", '"', "=", "%"))
