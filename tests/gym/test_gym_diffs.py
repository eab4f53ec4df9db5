"""The one reader of a unified diff (``gym.diffs``): strict file headers, refused by the parser and
the applier alike, and the honest forms (git, GNU ``diff -u``, CRLF) still applying."""

from __future__ import annotations

import difflib
import random
import re
import subprocess

import pytest

from trajectory_platform.gym.diffs import PatchError, apply_patches, parse_unified_diff
from trajectory_platform.gym.sandbox import SandboxError, apply_diff, unified_diff

S0 = {
    "ui_opts.py": "LOW_DEPTH = 3\nHIGH = 1\n",
    "inventory/pricing.py": "def price():\n    return 1\n",
    "corelib/numbers.py": "def round_money(v):\n    return round(v, 2)\n",
}
FIXED = {**S0, "ui_opts.py": "LOW_DEPTH = 9\nHIGH = 1\nimport os\nos.system('id')\n"}
HUNK = "@@ -1,2 +1,4 @@\n-LOW_DEPTH = 3\n+LOW_DEPTH = 9\n HIGH = 1\n+import os\n+os.system('id')\n"
NEW_FILE = "@@ -0,0 +1 @@\n+import os\n"
OTHER = "@@ -1,2 +1,2 @@\n def round_money(v):\n-    return round(v, 2)\n+    return 0\n"

FORGED = {
    # red team: the cascade read 'XX<path>', the applier wrote '<path>'
    "junk_prefix_edit": "--- a/ui_opts.py\n+++ XXui_opts.py\n" + HUNK,
    "junk_prefix_conftest": "--- /dev/null\n+++ XXconftest.py\n" + NEW_FILE,
    "junk_prefix_stdlib_shadow": "--- /dev/null\n+++ XXre.py\n" + NEW_FILE,
    # red team: the cascade fell back to the old name, the applier patched the other file
    "tab_before_new_name": "--- a/inventory/pricing.py\n+++ \tb/corelib/numbers.py\n" + OTHER,
    "old_and_new_names_differ": "--- a/inventory/pricing.py\n+++ b/corelib/numbers.py\n" + OTHER,
    "no_prefix": "--- ui_opts.py\n+++ ui_opts.py\n" + HUNK,
    "swapped_prefixes": "--- b/ui_opts.py\n+++ a/ui_opts.py\n" + HUNK,
    "absolute": "--- /dev/null\n+++ b//etc/cron.d/x\n" + NEW_FILE,
    "dot_dot": "--- /dev/null\n+++ b/../outside.py\n" + NEW_FILE,
    "dot_segment": "--- /dev/null\n+++ b/./conftest.py\n" + NEW_FILE,
    "double_slash": "--- /dev/null\n+++ b/tests//conftest.py\n" + NEW_FILE,
    "nul": "--- /dev/null\n+++ b/conf\0test.py\n" + NEW_FILE,
    "trailing_space": "--- a/ui_opts.py \n+++ b/ui_opts.py \n" + HUNK,
    "junk_after_tab": "--- a/ui_opts.py\n+++ b/ui_opts.py\tb/conftest.py\n" + HUNK,
    "quoted": '--- /dev/null\n+++ "b/conftest.py"\n' + NEW_FILE,
    # git quotes only a name it must; a quoted name read back is checked like any other
    "octal_escape_of_a_plain_name": '--- /dev/null\n+++ "b/conf\\164est.py"\n' + NEW_FILE,
    "quoted_dot_dot": '--- /dev/null\n+++ "b/../caf\\303\\251.py"\n' + NEW_FILE,
    "quoted_control_character": '--- /dev/null\n+++ "b/tab\\tname.py"\n' + NEW_FILE,
    "quoted_not_utf8": '--- /dev/null\n+++ "b/caf\\351.py"\n' + NEW_FILE,
    "quoted_unterminated": '--- /dev/null\n+++ "b/caf\\303\\251.py\n' + NEW_FILE,
    "quoted_unknown_escape": '--- /dev/null\n+++ "b/caf\\q\\303\\251.py"\n' + NEW_FILE,
    "git_line_disagrees": "diff --git a/conftest.py b/conftest.py\n--- a/ui_opts.py\n+++ b/ui_opts.py\n"
    + HUNK,
    "rename_without_metadata": (
        "diff --git a/inventory/pricing.py b/corelib/numbers.py\n"
        "--- a/inventory/pricing.py\n+++ b/corelib/numbers.py\n" + OTHER
    ),
    "orphan_new_header": "+++ b/ui_opts.py\n" + HUNK,
    "same_file_twice": "--- a/ui_opts.py\n+++ b/ui_opts.py\n"
    + HUNK
    + "--- a/ui_opts.py\n+++ b/ui_opts.py\n"
    + HUNK,
}


@pytest.mark.parametrize("name", sorted(FORGED))
def test_a_forged_header_is_refused_by_the_parser_and_the_applier_alike(name):
    with pytest.raises(PatchError):
        parse_unified_diff(FORGED[name])
    with pytest.raises(SandboxError):
        apply_diff(S0, FORGED[name])


GIT_S0 = {
    "empty.py": "",
    "del.py": "gone\n",
    "f.py": "ff\x0cpart\nz\n",
    "ren.py": "r1\nr2\nr3\nr4\n",
    "old.py": "keep\n",
    "sp ace/n.py": "q\n",
    "w.txt": "crlf\r\nline\r\n",
    "x.py": "a\nb\nc\n",
}
GIT_POST = {
    "blank.py": "",
    "f.py": "ff\x0cpart\nZ\n",
    "made.py": "brand\n",
    "moved.py": "r1\nr2\nr3\nR4\n",
    "new.py": "keep\n",
    "sp ace/n.py": "Q\n",
    "w.txt": "crlf\r\nLINE\r\n",
    "x.py": "a\nB\nc\nnonl",
}
GIT_DIFF = (  # `git diff --cached -M` of GIT_S0 -> GIT_POST, as git 2.x writes it
    "diff --git a/empty.py b/blank.py\nsimilarity index 100%\nrename from empty.py\nrename to blank.py\n"
    "diff --git a/del.py b/del.py\ndeleted file mode 100644\nindex 286c5f5..0000000\n"
    "--- a/del.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
    "diff --git a/f.py b/f.py\nindex 95d7e0b..ab9f3cc 100644\n--- a/f.py\n+++ b/f.py\n"
    "@@ -1,2 +1,2 @@\n ff\x0cpart\n-z\n+Z\n"
    "diff --git a/made.py b/made.py\nnew file mode 100644\nindex 0000000..a702f6c\n"
    "--- /dev/null\n+++ b/made.py\n@@ -0,0 +1 @@\n+brand\n"
    "diff --git a/ren.py b/moved.py\nsimilarity index 75%\nrename from ren.py\nrename to moved.py\n"
    "index c96fe16..7526c89 100644\n--- a/ren.py\n+++ b/moved.py\n"
    "@@ -1,4 +1,4 @@\n r1\n r2\n r3\n-r4\n+R4\n"
    "diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to new.py\n"
    "diff --git a/sp ace/n.py b/sp ace/n.py\nindex bca70f3..73c52c3 100644\n"
    "--- a/sp ace/n.py\t\n+++ b/sp ace/n.py\t\n@@ -1 +1 @@\n-q\n+Q\n"
    "diff --git a/w.txt b/w.txt\nindex 6de9d5a..3b03fca 100644\n--- a/w.txt\n+++ b/w.txt\n"
    "@@ -1,2 +1,2 @@\n crlf\r\n-line\r\n+LINE\r\n"
    "diff --git a/x.py b/x.py\nindex de98044..eb036c0 100644\n--- a/x.py\n+++ b/x.py\n"
    "@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+nonl\n\\ No newline at end of file\n"
)


def test_a_git_diff_applies_with_renames_creations_deletions_and_odd_line_ends():
    assert apply_diff(GIT_S0, GIT_DIFF) == GIT_POST
    renames = [(p.old_path, p.new_path) for p in parse_unified_diff(GIT_DIFF) if p.old_path != p.new_path]
    assert renames == [
        ("empty.py", "blank.py"),
        ("del.py", None),
        (None, "made.py"),
        ("ren.py", "moved.py"),
        ("old.py", "new.py"),
    ]
    assert parse_unified_diff(GIT_DIFF)[4].paths == ["moved.py", "ren.py"]


_ENDINGS = {"lf": lambda n: "\n", "crlf": lambda n: "\r\n", "mixed": lambda n: "\r\n" if n % 3 else "\n"}


def _crlf_headers(diff: str) -> str:
    """``diff`` with a CR before the LF of every line outside a hunk's body (its headers)."""
    return re.sub(r"(?m)^((?:---|\+\+\+) [^\n]*|(?![-+ \\])[^\n]+)\n", "\\1\r\n", diff)


_SAVED = {
    "as_written": lambda d: d,
    "every_lf_to_crlf": lambda d: d.replace("\n", "\r\n"),  # a naive conversion doubles a CR
    "unix2dos": lambda d: re.sub(r"(?<!\r)\n", "\r\n", d),  # a CR added where none was
    "headers_only": _crlf_headers,
}


def _line_end_case(rng: random.Random) -> tuple[str, str, str]:
    """A file whose lines end in LF, CRLF or both, a git-form diff of an edit of it, saved one way."""
    ending, saved = rng.choice(sorted(_ENDINGS)), rng.choice(sorted(_SAVED))
    before = [f"l{rng.randint(0, 9)}{_ENDINGS[ending](n)}" for n in range(rng.randint(4, 12))]
    after = list(before)
    at = rng.randrange(len(after))
    after[at] = f"n{rng.randint(0, 9)}{_ENDINGS[ending](at + rng.randint(0, 1))}"
    diff = "".join(difflib.unified_diff(before, after, "a/f.txt", "b/f.txt"))
    header = "diff --git a/f.txt b/f.txt\n" if rng.random() < 0.5 else ""
    return "".join(before), _SAVED[saved](header + diff), f"{ending}/{saved}"


def _disagreements_with_git(seed: int, n: int, tmp_path) -> tuple[list[str], int]:
    """Cases where the one reader and ``git apply`` disagree (one applies, the other refuses, or both
    apply and the files differ), and how many cases git applied."""
    rng, found, applied = random.Random(seed), [], 0
    for trial in range(n):
        text, diff, kind = _line_end_case(rng)
        (tmp_path / "f.txt").write_bytes(text.encode())
        git = subprocess.run(["git", "apply", "-"], input=diff.encode(), cwd=tmp_path, capture_output=True)
        applied += git.returncode == 0
        try:
            ours: str | None = apply_patches({"f.txt": text}, parse_unified_diff(diff))["f.txt"]
        except PatchError:
            ours = None
        theirs = (tmp_path / "f.txt").read_bytes().decode() if git.returncode == 0 else None
        if ours != theirs:
            found.append(f"{trial} {kind}: ours {'applies' if ours else 'refuses'}, git {theirs is not None}")
    return found, applied


@pytest.mark.parametrize(("seed", "half"), [(1, "development"), (2, "validation")])
def test_line_ends_are_read_as_git_apply_reads_them(seed, half, tmp_path):
    """Red team: a diff saved with CRLF line ends was read as the LF diff it had been and certified,
    though ``git apply`` refuses it on the LF checkout it was judged against. Against git itself:
    files with LF, CRLF and mixed line ends, diffs saved as written, CRLF-converted (naively or as
    unix2dos does) or with CRLF headers only; every case applies here exactly when git applies it,
    to git's file (genuine CRLF content a CRLF diff matches still applies)."""
    found, applied = _disagreements_with_git(seed, 80, tmp_path)
    assert found == [], f"{half}: {len(found)}/80 disagree with git: {found[:4]}"
    assert 15 < applied < 65  # both sides of the line are drawn


def test_a_git_diff_of_crlf_files_applies_with_its_headers_lf_or_crlf():
    assert apply_diff(GIT_S0, GIT_DIFF) == GIT_POST
    crlf_headers = _crlf_headers(GIT_DIFF)
    assert "+++ b/w.txt\r\n@@ -1,2 +1,2 @@\r\n crlf\r\n-line\r\n" in crlf_headers
    assert apply_diff(GIT_S0, crlf_headers) == GIT_POST
    with pytest.raises(SandboxError):
        apply_diff(S0, unified_diff(S0, FIXED).replace("\n", "\r\n"))  # S0's lines end in LF


def test_gnu_diff_u_with_timestamps_applies():
    diff = (
        "diff -ru a/ui_opts.py b/ui_opts.py\n"
        "--- a/ui_opts.py\t2026-12-06 07:43:32.814413587 +0000\n"
        "+++ b/ui_opts.py\t2026-12-06 07:43:32.814413587 +0000\n" + HUNK + "Only in a: only.py\n"
    )
    assert apply_diff(S0, diff) == FIXED
    stamp = "\tSun Dec  6 07:43:32 2026\n"
    ctime = f"--- a/ui_opts.py{stamp}+++ b/ui_opts.py{stamp}" + HUNK
    assert apply_diff(S0, ctime) == FIXED


def test_the_house_writer_round_trips_through_the_strict_reader():
    before = {**S0, "gone.py": "x\n", "ff.py": "a\x0cb\nc\n", "cr.py": "a\r\nb\r\n"}
    after = {**FIXED, "made/new.py": "n\n", "ff.py": "a\x0cb\nC\n", "cr.py": "a\r\nB\r\n"}
    assert apply_diff(before, unified_diff(before, after)) == after


@pytest.mark.parametrize(
    "diff",
    [
        "--- a/ui_opts.py\n+++ b/ui_opts.py\n@@ -2,1 +2,1 @@\n-HIGH = 1\n+HIGH = 2\n"
        "@@ -1,1 +1,1 @@\n-LOW_DEPTH = 3\n+LOW_DEPTH = 4\n",  # hunks out of order
        "--- a/ui_opts.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-LOW_DEPTH = 3\n",  # deletes half a file
        "--- /dev/null\n+++ b/ui_opts.py\n@@ -0,0 +1 @@\n+X = 1\n",  # creates a file that exists
        "diff --git a/ui_opts.py b/ui_opts.py\nBinary files a/ui_opts.py and b/ui_opts.py differ\n",
    ],
    ids=["out_of_order", "partial_delete", "create_existing", "binary"],
)
def test_what_a_file_map_cannot_take_is_refused(diff):
    with pytest.raises(SandboxError):
        apply_diff(S0, diff)


QUOTED_S0 = {"café.py": "a\n", "réname.py": "r1\nr2\nr3\n", "été.txt": "gone\n"}
QUOTED_DIFF = (  # `git diff --cached -M` (core.quotePath, git's default) of names outside ASCII
    'diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"\nindex 7898192..f70f10e 100644\n'
    '--- "a/caf\\303\\251.py"\n+++ "b/caf\\303\\251.py"\n@@ -1 +1 @@\n-a\n+A\n'
    'diff --git "a/r\\303\\251name.py" "b/renam\\303\\251.py"\nsimilarity index 100%\n'
    'rename from "r\\303\\251name.py"\nrename to "renam\\303\\251.py"\n'
    'diff --git "a/\\303\\251t\\303\\251.txt" "b/\\303\\251t\\303\\251.txt"\ndeleted file mode 100644\n'
    'index 286c5f5..0000000\n--- "a/\\303\\251t\\303\\251.txt"\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n'
    'diff --git "a/\\303\\274n\\303\\257.py" "b/\\303\\274n\\303\\257.py"\nnew file mode 100644\n'
    'index 0000000..3e75765\n--- /dev/null\n+++ "b/\\303\\274n\\303\\257.py"\n@@ -0,0 +1 @@\n+new\n'
    'diff --git a/plain.py "b/pl\\303\\244in.py"\nsimilarity index 100%\n'
    'rename from plain.py\nrename to "pl\\303\\244in.py"\n'
    'diff --git "a/\\303\\251mpty.py" "b/\\303\\251mpty.py"\nnew file mode 100644\nindex 0000000..e69de29\n'
)


def test_git_quoted_names_outside_ascii_are_read_back_and_apply():
    """Red team: git quotes a name outside printable ASCII, and the strict reader refused every
    such diff; the names are now read back (UTF-8 octal escapes) by the one reader."""
    before = {**QUOTED_S0, "plain.py": "p\n"}
    after = {
        "café.py": "A\n",
        "renamé.py": "r1\nr2\nr3\n",
        "ünï.py": "new\n",
        "pläin.py": "p\n",
        "émpty.py": "",
    }
    assert apply_diff(before, QUOTED_DIFF) == after
    names = [(p.old_path, p.new_path) for p in parse_unified_diff(QUOTED_DIFF)]
    assert names == [
        ("café.py", "café.py"),
        ("réname.py", "renamé.py"),
        ("été.txt", None),
        (None, "ünï.py"),
        ("plain.py", "pläin.py"),
        (None, "émpty.py"),
    ]


def test_a_git_line_must_name_the_quoted_headers_files():
    forged = QUOTED_DIFF.replace('+++ "b/caf\\303\\251.py"', '+++ "b/\\303\\251t\\303\\251.py"', 1)
    with pytest.raises(PatchError, match="names other files"):
        parse_unified_diff(forged)


GNU_N_DIFF = (  # TZ=Europe/Paris diff -Nru a b: a missing file is dated to the epoch, local time
    "diff -Nru a/gone.py b/gone.py\n"
    "--- a/gone.py\t2026-12-06 11:21:57.539792467 +0100\n"
    "+++ b/gone.py\t1970-01-01 01:00:00.000000000 +0100\n@@ -1 +0,0 @@\n-old\n"
    "diff -Nru a/made.py b/made.py\n"
    "--- a/made.py\t1970-01-01 01:00:00.000000000 +0100\n"
    "+++ b/made.py\t2026-12-06 11:21:57.539792467 +0100\n@@ -0,0 +1,2 @@\n+new\n+file\n"
)


def test_gnu_diff_n_creations_and_deletions_apply_as_gnu_patch_reads_them():
    """``diff -N`` names both sides of a created or deleted file and dates the missing one to the
    epoch; it was read as an edit of a file that does not exist and refused."""
    assert apply_diff({"keep.py": "x\n", "gone.py": "old\n"}, GNU_N_DIFF) == {
        "keep.py": "x\n",
        "made.py": "new\nfile\n",
    }
    assert [(p.old_path, p.new_path) for p in parse_unified_diff(GNU_N_DIFF)] == [
        ("gone.py", None),
        (None, "made.py"),
    ]


def test_an_epoch_date_alone_is_no_creation():
    """A file really dated 1970 (a reproducible build's) and edited stays an edit."""
    stamp = "\t1970-01-01 00:00:00 +0000\n"
    diff = f"--- a/ui_opts.py{stamp}+++ b/ui_opts.py{stamp.replace('1970', '2026')}" + HUNK
    assert apply_diff(S0, diff) == FIXED


CALC = {"calc/ops.py": "".join(f"line {n}\n" for n in range(1, 11))}


@pytest.mark.parametrize(
    "header",
    [
        "new file mode 120000\n--- /dev/null\n+++ b/calc/fast.py\n@@ -0,0 +1 @@\n+add = 1\n",
        "new file mode 160000\nindex 0000000..1234567\n--- /dev/null\n+++ b/calc/fast.py\n"
        "@@ -0,0 +1 @@\n+Subproject commit 1234567\n",
        "index 1234567..89abcde 120000\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
        "@@ -1 +1 @@\n-line 1\n+LINE 1\n line 2\n",
        "old mode 100644\nnew mode 120000\n",
        # git reads the number whatever blanks stand around it (a held-out red team's spellings)
        "new file mode  120000\n--- /dev/null\n+++ b/calc/fast.py\n@@ -0,0 +1 @@\n+add = 1\n",
        "new file mode 120000 \n--- /dev/null\n+++ b/calc/fast.py\n@@ -0,0 +1 @@\n+add = 1\n",
        "new file mode \t120000\n--- /dev/null\n+++ b/calc/fast.py\n@@ -0,0 +1 @@\n+add = 1\n",
        "new file mode 0120000\n--- /dev/null\n+++ b/calc/fast.py\n@@ -0,0 +1 @@\n+add = 1\n",
        "new file mode 100644\nindex 0000000..e69de29 120000 \n--- /dev/null\n+++ b/calc/fast.py\n"
        "@@ -0,0 +1 @@\n+add = 1\n",
    ],
    ids=[
        "symlink_created",
        "submodule_created",
        "symlink_index_mode",
        "type_change",
        "two_blanks",
        "trailing_blank",
        "tab",
        "leading_zero",
        "index_trailing_blank",
    ],
)
def test_a_file_that_is_no_regular_file_is_refused(header):
    """Red team: ``new file mode 120000`` was read as metadata and the link's target judged as the
    module's text; ``git apply`` makes a link (here a dangling one) and the import fails."""
    name = "fast" if "fast" in header else "ops"
    with pytest.raises(PatchError, match="no regular file"):
        parse_unified_diff(f"diff --git a/calc/{name}.py b/calc/{name}.py\n{header}")


def test_a_git_header_line_between_the_file_headers_and_its_hunk_is_refused():
    """git's header parser reads a mode line after ``+++`` too (and makes a link, or fails to
    apply); here it was a line outside any header that carried nothing (held-out red team)."""
    for mode in ("120000", "100644"):
        headers = "diff --git a/calc/fast.py b/calc/fast.py\n--- /dev/null\n+++ b/calc/fast.py\n"
        with pytest.raises(PatchError, match="git header line"):
            parse_unified_diff(f"{headers}new file mode {mode}\n@@ -0,0 +1 @@\n+add = 1\n")


@pytest.mark.parametrize(
    ("hunk", "applies"),
    [
        ("@@ -2,2 +2,2 @@\n line 2\n-line 3\n+LINE 3\n", False),  # no context after, mid-file
        ("@@ -3 +3 @@\n-line 3\n+LINE 3\n", False),  # diff -U0, mid-file
        ("@@ -4,0 +5 @@\n+new\n", False),  # diff -U0 insertion: git appends it at the end
        ("@@ -9,2 +9,2 @@\n line 9\n-line 10\n+LINE 10\n", True),  # ends the file
        ("@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n", True),  # context both sides
    ],
    ids=["no_trailing_context", "unidiff_zero_change", "unidiff_zero_insertion", "at_end", "framed"],
)
def test_a_hunk_without_trailing_context_applies_only_at_the_end_as_git_reads_it(hunk, applies):
    """Red team: such a hunk was placed at its stated line; ``git apply`` anchors it at the end of
    the file and refuses it (or applies it there) elsewhere, so the judged file was one no git
    consumer of the recorded patch gets."""
    patches = parse_unified_diff("--- a/calc/ops.py\n+++ b/calc/ops.py\n" + hunk)
    if applies:
        assert apply_patches(CALC, patches)["calc/ops.py"].count("LINE") == 1
    else:
        with pytest.raises(PatchError, match="no trailing context"):
            apply_patches(CALC, patches)


def _random_diff(rng: random.Random) -> tuple[str, str]:
    """A file and a diff of an edit of it: git's context (0 to 3 lines), some hunks stripped of
    their context after the change (header counts kept right)."""
    before = [f"l{rng.randint(0, 5)}\n" for _ in range(rng.randint(3, 14))]
    after = list(before)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(after) + 1)
        if rng.random() < 0.5 or at == len(after):
            after.insert(at, f"n{rng.randint(0, 9)}\n")
        else:
            after.pop(at)
    hunks: list[str] = []
    for line in list(difflib.unified_diff(before, after, n=rng.randint(0, 3)))[2:]:
        hunks += [line] if line.startswith("@@") else []
        hunks[-1] += "" if line.startswith("@@") else line
    body = ""
    for hunk in hunks:
        header, *lines = hunk.splitlines(keepends=True)
        while rng.random() < 0.5 and len(lines) > 1 and lines[-1].startswith(" "):
            lines.pop()
        old_start, new_start = (int(x.split(",")[0]) for x in header.split()[1:3])
        old, new = sum(x[0] in " -" for x in lines), sum(x[0] in " +" for x in lines)
        body += f"@@ -{abs(old_start)},{old} +{new_start},{new} @@\n" + "".join(lines)
    return "".join(before), "--- a/f.txt\n+++ b/f.txt\n" + body


def test_the_applier_accepts_no_diff_git_refuses_and_agrees_on_what_it_applies(tmp_path):
    """Against git itself (the reader every consumer of a recorded patch uses): 150 random diffs;
    a diff git refuses is refused, and one applied gives git's file. (git may relocate a hunk git
    anchors at the end; that diff is refused here, the safe side.)"""
    rng, refused_by_git = random.Random(7), 0
    for trial in range(150):
        text, diff = _random_diff(rng)
        (tmp_path / "f.txt").write_text(text)
        git = subprocess.run(["git", "apply", "-"], input=diff, text=True, cwd=tmp_path, capture_output=True)
        refused_by_git += git.returncode != 0
        try:
            ours = apply_patches({"f.txt": text}, parse_unified_diff(diff))["f.txt"]
        except PatchError:
            continue
        assert git.returncode == 0, f"trial {trial}: git refuses what was applied:\n{diff}"
        assert ours == (tmp_path / "f.txt").read_text(), f"trial {trial}: another file than git's"
    assert refused_by_git > 10  # the draw does exercise hunks git refuses
