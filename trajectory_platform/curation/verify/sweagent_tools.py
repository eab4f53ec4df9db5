"""SWE-agent 1.0's file tools, re-executed in the replay sandbox as SWE-agent 1.0 ran them.

SWE-agent 1.0 replaced the pre-1.0 bash functions (:mod:`sweagent_commands`) with tool bundles of
small Python programs sharing one windowed-file library (``tools/windowed``: ``open``, ``goto``,
``scroll_up``, ``scroll_down``, ``create``; ``tools/windowed_edit_linting``: ``edit`` of a line
range; ``tools/windowed_edit_replace``: ``edit`` by search and replace, and ``insert``;
``tools/filemap``: ``filemap``), plus the search bundle, whose ``find_file`` / ``search_*`` are the
pre-1.0 bash functions unchanged. A run records a call either as a function call with JSON
arguments (function-calling mode, the tools' ``config.yaml`` argument names) or as the command
line SWE-agent ran in its shell (thought-action mode); :func:`invocation` reads both.

The viewer differs from pre-1.0's: its state is the window's *first* line (0-based, kept in
SWE-agent's registry as ``FIRST_LINE``), ``open FILE N`` and ``goto N`` put line ``N`` a sixth of
a window below the top, the status line names the file as the call named it, and an edit moves
the window to the edit. :data:`PROGRAM` re-implements the library and the tools from their
documented behaviour (written here, printing SWE-agent's strings, since those are what the logs
recorded and replay compares) and runs with the sandbox's Python (``python3 -I``, the call handed
to it as JSON on standard input: nothing of the log becomes code). The viewer's state travels
between calls as for the pre-1.0 commands: the host passes it in and reads it back from the
report line after the per-replay marker (:func:`sweagent_commands.split_report`).

Linting: like SWE-agent 1.0, an ``edit`` or ``insert`` of a Python file is refused when flake8's
selection finds an error the edit introduced at or below its first line; the host decides it with
:mod:`edit_lint` from the span the program reports, and undoes a refused edit itself (the real tool
restores the file's text and window). ``filemap`` prints the file with every function body of at
least six lines elided, as SWE-agent's tree-sitter query does. :mod:`ast` finds the same bodies
for a file Python can parse: a body starts at its first statement (at its decorators, for a
decorated one) and, as tree-sitter's block does, takes in the comment lines that follow it at its
own indentation or deeper. Checked against tree-sitter's Python grammar on 1,738 real files (this
project's and the standard library's), the renderings were identical for 1,719; 17 were left
unchecked by the rule below and 2 differed (comments inside nested blocks). A file whose body ends
in a nested block followed by comments (where tree-sitter's attachment of comments is not
reproduced), or a file Python cannot parse (tree-sitter recovers from errors, ``ast`` does not),
leaves that turn unchecked.

A thought-action line runs in SWE-agent's bash, so its words are bash's: :func:`shell_words`
splits them with POSIX quoting (:mod:`shlex`) and refuses a line bash would read otherwise
(expansions, operators, redirections), which then stays unsupported rather than misread.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from trajectory_platform.curation.shell_split import bash_words
from trajectory_platform.curation.verify.sweagent_commands import REJECTED, Setting, WindowState

WINDOWED = ("open", "goto", "scroll_up", "scroll_down", "create", "edit", "insert", "filemap")
"""SWE-agent 1.0's windowed tools :data:`PROGRAM` runs."""
SEARCH = ("find_file", "search_file", "search_dir")
"""The search bundle's commands: pre-1.0's bash functions, run as :mod:`sweagent_commands` runs them."""
ONLY_1_0 = ("insert", "filemap")
"""Commands no pre-1.0 SWE-agent had: a text action naming one makes its episode a 1.0 run."""
SEARCH_ARGUMENTS = {
    "find_file": ("file_name", "dir"),
    "search_file": ("search_term", "file"),
    "search_dir": ("search_term", "dir"),
}
"""Each search command's JSON argument names, in its command line's order (``config.yaml``)."""
RETRY_TOKEN = "###SWE-AGENT-RETRY-WITH-OUTPUT###"
"""The line a 1.0 edit tool prints after a refusal for SWE-agent's loop (not part of the answer)."""
_LINE_RANGE = re.compile(r"edit\s+(\d+):(\d+)[ \t]*\n")
_BASH_SPECIAL = re.compile(r"[$`;&|<>(){}*?\[\]~!#]")


@dataclass(frozen=True)
class Invocation:
    """One call of a 1.0 file tool: its name and its arguments under ``config.yaml``'s names."""

    name: str
    arguments: dict[str, Any]

    def search_line(self) -> str:
        """A search command as the command line the pre-1.0 functions take."""
        names = SEARCH_ARGUMENTS[self.name]
        values = [self.arguments.get(n) for n in names]
        words = [str(v) for v in values if v is not None and v != ""]
        return " ".join([self.name, *(shlex.quote(w) for w in words)])


_ANSI_C = re.compile(
    r"\\(?:(?P<char>[abeEfnrtv\\'\"?])|(?P<octal>[0-7]{1,3})|x(?P<hex>[0-9A-Fa-f]{1,2})"
    r"|u(?P<u4>[0-9A-Fa-f]{1,4})|U(?P<u8>[0-9A-Fa-f]{1,8}))"
)
"""The escapes bash decodes inside ANSI-C quotes (``$'...'``); ``\\cX`` (a control character) is not
read, and a line with it is refused."""
_ANSI_C_CHARS = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r"}
_ANSI_C_CHARS |= {"t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _ansi_c(line: str, start: int) -> tuple[str, int] | None:
    """The text of the ANSI-C quoted string whose body starts at ``start`` (after ``$'``), decoded
    as bash decodes it, and where it ends; ``None`` when it does not end or holds an escape not read."""
    out: list[str] = []
    index = start
    while index < len(line):
        char = line[index]
        if char == "'":
            return "".join(out), index + 1
        if char != "\\":
            out.append(char)
            index += 1
            continue
        escape = _ANSI_C.match(line, index)
        if escape is None:
            return None
        if escape["char"] is not None:
            out.append(_ANSI_C_CHARS[escape["char"]])
        else:
            digits, base = next(
                (escape[g], b) for g, b in (("octal", 8), ("hex", 16), ("u4", 16), ("u8", 16)) if escape[g]
            )
            code = int(digits, base)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF or code == 0:
                return None
            out.append(chr(code))
        index = escape.end()
    return None


def _variable(line: str, index: int, variables: Mapping[str, str]) -> tuple[str, int] | None:
    """The value of the ``$NAME`` / ``${NAME}`` reference at ``index`` when ``variables`` gives it,
    and where the reference ends; ``None`` for any other expansion."""
    found = _REFERENCE.match(line, index)
    if found is None:
        return None
    name = found["braced"] or found["bare"]
    return (variables[name], found.end()) if name in variables else None


_REFERENCE = re.compile(r"\$(?:\{(?P<braced>[A-Za-z_]\w*)\}|(?P<bare>[A-Za-z_]\w*))")


def shell_words(line: str, variables: Mapping[str, str] | None = None) -> list[str] | None:
    """The words bash makes of a simple command line, or ``None`` when bash would do more than
    split, unquote and decode it: an expansion, operator, redirection or glob outside single quotes,
    a backslash or quote :mod:`shlex` reads differently from bash inside double quotes, or a line
    break. Quoting is read as bash reads it, ANSI-C quotes (``$'...'``) and a backslash outside
    quotes included. ``variables``: references (``$NAME``, ``${NAME}``) outside single quotes whose
    value the caller knows, expanded (their value is never split or globbed: it must hold neither
    a blank nor a glob character)."""
    known = variables or {}
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        if quote != "'" and char == "$":
            if quote == "" and line.startswith("$'", index):
                ansi = _ansi_c(line, index + 2)
                if ansi is None:
                    return None
                out.append(shlex.quote(ansi[0]))
                index = ansi[1]
                continue
            reference = _variable(line, index, known)
            if reference is None:
                return None
            value, index = reference
            out.append(value.replace("\\", "\\\\").replace('"', '\\"') if quote else shlex.quote(value))
            continue
        if quote == "'":
            quote = "" if char == "'" else quote
        elif quote == '"':
            if char in "`\\":
                return None
            quote = "" if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char == "\\" and line[index + 1 : index + 2] not in ("", "\n"):
            out.append(line[index : index + 2])  # the next character, literal
            index += 2
            continue
        elif _BASH_SPECIAL.match(char) or char == "\\" or char == "\n":
            return None
        out.append(char)
        index += 1
    return bash_words("".join(out))


def invocation(name: str, raw: str, arguments: dict[str, Any] | None) -> Invocation | None:
    """The 1.0 tool call a recorded call makes, or ``None``.

    ``arguments`` are the call's JSON arguments (function-calling mode); otherwise ``raw`` is the
    command line (thought-action mode): ``edit A:B`` with its text up to ``end_of_edit`` (the line
    editor), else words as bash splits them onto the tool's positional parameters."""
    if name not in WINDOWED and name not in SEARCH:
        return None
    if arguments is not None and raw.strip().startswith("{"):
        return Invocation(name, dict(arguments))
    text = raw.strip("\n")
    if name == "edit" and (span := _LINE_RANGE.match(text + "\n")):
        body = text[span.end() :] if span.end() <= len(text) else ""
        body = body[: -len("end_of_edit")] if body.endswith("end_of_edit") else body
        arguments = {"start_line": int(span[1]), "end_line": int(span[2]), "replacement_text": body}
        return Invocation(name, arguments)
    words = shell_words(text)
    if words is None or not words or words[0] != name:
        return None
    return Invocation(name, _positional(name, words[1:]))


def _positional(name: str, words: list[str]) -> dict[str, Any]:
    """The JSON arguments a command line's words stand for (extra words are kept for the tools
    that refuse them, ``goto``)."""
    order: dict[str, tuple[str, ...]] = {
        "open": ("path", "line_number"),
        "create": ("filename",),
        "edit": ("search", "replace", "replace_all"),
        "insert": ("text", "line"),
        "filemap": ("file_path",),
        **SEARCH_ARGUMENTS,
    }
    if name == "goto":
        return {"words": words}
    return dict(zip(order.get(name, ()), words, strict=False))


def tool_script(call: Invocation, state: WindowState, setting: Setting) -> str:
    """The bash line that runs ``call`` with :data:`PROGRAM` in the sandbox, ``state`` restored;
    the call travels as JSON on standard input (a here-document ending at the marker, which JSON
    text cannot contain on a line of its own)."""
    relative = state.file and not state.file.startswith("/")
    spec = {
        "tool": call.name,
        "arguments": call.arguments,
        "file": state.file,
        "relative": bool(relative),
        "first_line": int(state.line),
        "window": int(setting.window),
        "overlap": int(setting.overlap),
        "root": setting.root or "",
        "marker": setting.marker,
    }
    return (
        f"python3 -I -S -c {shlex.quote(PROGRAM)} <<'{setting.marker}'\n"
        f"{json.dumps(spec)}\n{setting.marker}\n"
    )


def without_retry_token(text: str) -> str:
    """An answer without the retry line SWE-agent's loop reads (``RETRY_TOKEN``)."""
    return "\n".join(line for line in text.split("\n") if line.strip() != RETRY_TOKEN)


EDIT_BANNER = re.compile(
    r"\A(?:Text replaced|Replaced \d+ occurrences)\. Please review the changes and make sure they are correct"
    r"(?::\n\n1\. The edited file is correctly indented\n"
    r"2\. The edited file does not contain duplicate lines\n"
    r"3\. The edit does not break existing functionality\n\n"
    r"|\n\(correct indentation, no duplicate lines, etc\)\. )"
    r"Edit the file again if necessary\.\n"
)
"""The search-and-replace ``edit``'s success banner in the wordings SWE-agent 1.x releases used;
both sides of a comparison have it replaced by one placeholder (the window it prints after is
compared, and the file it wrote is the replayed final state's)."""


def refusal(errors: str) -> str:
    """A 1.0 edit tool's answer when the linter refused the edit (the file and window restored);
    only its outcome is compared (:func:`sweagent_commands.edit_rejected`), not its windows."""
    return (
        f"{REJECTED} Please read this error message carefully and then retry editing the file.\n\n"
        f"ERRORS:\n{errors}\n\n"
        "Your changes have NOT been applied. Please fix your edit command and try again."
    )


def banner_free(text: str) -> str:
    """``text`` (line endings made ``\\n``, as a terminal's ``\\r\\n`` are) with a leading
    search-and-replace success banner replaced by ``<REPLACED>``."""
    return EDIT_BANNER.sub("<REPLACED>\n", text.replace("\r\n", "\n"), count=1)


PROGRAM = r"""
import ast, json, os, sys
from pathlib import Path

spec = json.loads(sys.stdin.read())
ws = os.getcwd()
args = spec["arguments"]
state = {"file": spec["file"], "first": spec["first_line"], "edited": "", "checked": "1"}
if spec["relative"] and state["file"]:
    state["file"] = os.path.join(ws, state["file"])
root = spec["root"].rstrip("/")


NOT_APPLIED = "Your edit was not applied (file not modified): "


class Stop(Exception):
    pass


def mapped(raw):
    raw = str(raw)
    if root and (raw == root or raw.startswith(root + "/")):
        return ws + raw[len(root):]
    return raw


class Window:
    def __init__(self, path=None):
        raw = path if path is not None else state["file"]
        if not raw:
            raise LookupError
        self.path = Path(raw)
        if self.path.is_dir():
            print(f"Error: {self.path} is a directory. You can only open files. "
                  "Use cd or ls to navigate directories.")
            raise Stop
        if not self.path.exists():
            print(f"Error: File {self.path} not found")
            raise Stop
        state["file"] = str(self.path.resolve())
        self.window = spec["window"]
        self.overlap = spec["overlap"]
        self._first = 0
        self.first = state["first"]

    @property
    def first(self):
        return self._first

    @first.setter
    def first(self, value):
        self._first = max(0, min(int(value), self.n_lines - self.window))
        state["first"] = self._first

    @property
    def text(self):
        return self.path.read_text()

    @text.setter
    def text(self, value):
        self.path.write_text(value)

    @property
    def n_lines(self):
        return len(self.text.splitlines())

    def span(self):
        return self.first, min(self.first + self.window - 1, self.n_lines - 1)

    def shown(self, numbers=False, status=False, around=False):
        start, end = self.span()
        lines = self.text.split("\n")[start:end + 1]
        out = [f"[File: {self.path} ({self.n_lines} lines total)]"] if status else []
        if around and start > 0:
            out.append(f"({start} more lines above)")
        out += [f"{i + start + 1}:{line}" for i, line in enumerate(lines)] if numbers else lines
        if around and end < self.n_lines - 1:
            out.append(f"({self.n_lines - end - 1} more lines below)")
        return "\n".join(out)

    def show(self):
        print(self.shown(True, True, True))

    def goto(self, line):
        self.first = line - self.window * (1 / 6)


def window_or(message):
    try:
        return Window()
    except LookupError:
        print(message)
        raise Stop


def tool_open():
    path, number = args.get("path"), args.get("line_number")
    if path is None or path == "":
        window_or('Usage: open "<file>"').show()
        return
    wf = Window(mapped(path))
    line = 1
    if number is not None and number != "":
        try:
            line = int(number)
        except ValueError:
            print('Usage: open "<file>" [<line_number>]')
            print("Error: <line_number> must be a number")
            return
        if line > wf.n_lines:
            print(f"Warning: <line_number> ({line}) is greater than the number of lines "
                  f"in the file ({wf.n_lines})")
            print(f"Warning: Setting <line_number> to {wf.n_lines}")
            line = wf.n_lines
        elif line < 1:
            print(f"Warning: <line_number> ({line}) is less than 1")
            print("Warning: Setting <line_number> to 1")
            line = 1
    wf.goto(line - 1)
    wf.show()


def tool_goto():
    words = args.get("words")
    if words is None:
        words = [] if args.get("line_number") is None else [str(args["line_number"])]
    if len(words) > 1:
        print("goto allows only one line number at a time.")
        return
    if not words:
        print("Usage: goto <line>")
        return
    try:
        line = int(words[0])
    except ValueError:
        print("Usage: goto <line>")
        print("Error: <line> must be a number")
        return
    wf = window_or("No file open. Use the open command first.")
    if line > wf.n_lines:
        print(f"Error: <line> must be less than or equal to {wf.n_lines}")
        return
    wf.goto(line - 1)
    wf.show()


def tool_scroll(down):
    wf = window_or("No file open. Use the open command first.")
    wf.first += (wf.window - wf.overlap) if down else (wf.overlap - wf.window)
    wf.show()


def tool_create():
    name = args.get("filename")
    if name is None or name == "":
        print("Usage: create <filename>")
        return
    path = Path(mapped(name))
    if not path.parent.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        print(f"Warning: File '{Path(name)}' already exists.")
        return
    path.write_text("\n")
    wf = Window(str(path))
    wf.first = 0
    wf.show()


def find_all(text, search):
    found, start = [], 0
    while True:
        start = text.find(search, start)
        if start == -1:
            return found
        found.append(start)
        start += len(search)


def tool_edit():
    if "start_line" in args or "end_line" in args:
        return edit_lines()
    search, replace = args.get("search"), args.get("replace")
    flag = args.get("replace_all", args.get("replace-all"))
    replace_all = flag is not None and str(flag) != ""
    wf = window_or("No file opened. Either `open` or `create` a file first.")
    if not search:
        print("Search text must not be empty. Use insert to add new text.")
        return
    search, replace = str(search), str(replace if replace is not None else "")
    if search == replace:
        print("Your search and replace strings are the same. No changes were made. "
              "Please modify your search or replace strings.")
        return
    before = wf.n_lines
    if not replace_all:
        shown = wf.shown()
        if shown.count(search) > 1:
            print(f"{NOT_APPLIED}Found more than one occurrence of {search!r} "
                  "in the currently displayed lines.")
            print("Please make your search string more specific "
                  "(for example, by including more lines of context).")
            return
        index = shown.find(search)
        if index == -1:
            return not_found(wf, search)
        start, stop = wf.span()
        first = start + len(shown[:index].split("\n")) - 1
        lines = wf.text.split("\n")
        new = shown.replace(search, replace)
        lines[start:stop + 1] = new.split("\n") if new else []
        wf.text = "\n".join(lines)
        wf.goto(first)
        state["edited"] = f"{first}:{first + len(search.split(chr(10))) - 1}:{len(replace.split(chr(10)))}"
        print("Text replaced. Please review the changes and make sure they are correct\n"
              "(correct indentation, no duplicate lines, etc). Edit the file again if necessary.")
    else:
        text = wf.text
        hits = find_all(text, search)
        if not hits:
            return not_found(wf, search)
        first = len(text[:hits[0]].split("\n"))
        wf.text = text.replace(search, replace)
        wf.goto(first)
        state["edited"] = f"1:{before}:{wf.n_lines}"
        print(f"Replaced {len(hits)} occurrences. Please review the changes and make sure they are correct\n"
              "(correct indentation, no duplicate lines, etc). Edit the file again if necessary.")
    wf.show()


def not_found(wf, search):
    text = wf.text
    lines = [len(text[:i].split("\n")) for i in find_all(text, search)]
    if lines:
        print(f"{NOT_APPLIED}Text {search!r} not found in displayed lines.\n")
        print("However, we found the following occurrences of your search string in the file:\n")
        print("\n".join(f"- line {n}" for n in lines) + "\n")
        print("You can use the `goto` command to navigate to these locations "
              "before running the edit command again.")
    else:
        print(f"{NOT_APPLIED}Text {search!r} not found in displayed lines (or anywhere in the file).")
        print("Please modify your search string. Did you forget to properly handle whitespace/indentation?")
        print("You can also call `open` again to re-display the file with the correct context.")


def edit_lines():
    wf = window_or("No file opened. Use the `open` command first.")
    try:
        start, end = int(args.get("start_line")) - 1, int(args.get("end_line")) - 1
    except (TypeError, ValueError):
        print("Usage: edit <start_line>:<end_line>\n<replacement_text>\nend_of_edit")
        return
    text = str(args.get("replacement_text") or "")
    text = text[:-1] if text.endswith("\n") else text
    lines = wf.text.split("\n")
    lines[start:end + 1] = text.split("\n") if text else []
    wf.text = "\n".join(lines)
    state["edited"] = f"{start + 1}:{end + 1}:{len(text.splitlines())}"
    wf.goto(start)
    print("File updated. Please review the changes and make sure they are correct\n"
          "(correct indentation, no duplicate lines, etc). Edit the file again if necessary.")
    wf.show()


def tool_insert():
    wf = window_or("No file opened. Use the `create` or `open` command first.")
    text, line = str(args.get("text") or ""), args.get("line")
    line = None if line is None or line == "" else int(line)
    if not text:
        wf.show()
        return
    text = text[:-1] if text.endswith("\n") else text
    current = wf.text
    if line is None:
        new = text if not current else (current[:-1] if current.endswith("\n") else current) + "\n" + text
        at = wf.n_lines
    elif line < 0:
        new = text if not current else text + "\n" + (current[1:] if current.startswith("\n") else current)
        at = 0
    else:
        lines = current.split("\n")
        lines.insert(line, text)
        new, at = "\n".join(lines), line
    wf.text = new
    wf.goto(at)
    state["edited"] = f"{at}:{at}:{len(text.split(chr(10)))}"
    wf.show()


def trailing_comments(lines, end, indent):
    at = end + 1
    while at < len(lines):
        stripped = lines[at].lstrip()
        if stripped.startswith("#") and len(lines[at]) - len(stripped) >= indent:
            end = at
        elif stripped:
            break
        at += 1
    return end


def tool_filemap():
    raw = args.get("file_path")
    text = open(mapped(raw)).read()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        state["checked"] = "0"
        print(text, end="")
        return
    lines, spans = text.splitlines(), []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first, last = node.body[0], node.body[-1]
            start = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))]) - 1
            end = trailing_comments(lines, last.end_lineno - 1, first.col_offset)
            if end != last.end_lineno - 1 and hasattr(last, "body"):
                state["checked"] = "0"
            if end - start >= 5:
                spans.append((start, end))
    hidden = {n for start, end in spans for n in range(start, end + 1)}
    shown = [(s, f"... eliding lines {s + 1}-{e + 1} ...") for s, e in spans]
    shown += [(i, line) for i, line in enumerate(text.splitlines()) if i not in hidden]
    for i, line in sorted(shown):
        print(f"{i + 1:6d} {line}")


TOOLS = {
    "open": tool_open, "goto": tool_goto, "create": tool_create, "edit": tool_edit,
    "insert": tool_insert, "filemap": tool_filemap,
    "scroll_up": lambda: tool_scroll(False), "scroll_down": lambda: tool_scroll(True),
}
try:
    TOOLS[spec["tool"]]()
except Stop:
    pass
except Exception as exc:
    print(f"{type(exc).__name__}: {exc}")
finally:
    sys.stdout.flush()
    print(f"\n{spec['marker']}\t{ws}\t{state['file']}\t{state['first']}\t0\t{state['edited']}\t{state['checked']}")
"""
"""SWE-agent 1.0's windowed library and tools (see the module docstring), run as
``python3 -I -S -c PROGRAM`` in the sandbox with the call on standard input; ends by printing the
report line :func:`sweagent_commands.split_report` reads (``checked`` 0: a ``filemap`` whose
rendering cannot be reproduced here). Two of SWE-agent's quirks are kept, since the logs show
their effects: ``edit``'s optional ``replace-all`` went through argparse's ``type=bool``, so any
value given (``False`` included, as function calling renders it) means "all"; and the span handed
to the linter's filter is SWE-agent's own (for a search-and-replace ``edit`` and ``insert``, the
0-based first line where the filter expects a 1-based one)."""


EDITOR_FILE_VIEW = "Here's the result of running `cat -n`"
"""How the editor's ``view`` of a file begins (its numbered lines follow)."""
EDITOR_SUCCESS = (
    "The file ",
    "File created successfully at:",
    EDITOR_FILE_VIEW,
    "Here's the files and directories up to 2 levels deep",
    "Last edit to ",
)
"""How every answer of the Anthropic-style editor that succeeded begins (SWE-agent's
``edit_anthropic`` and OpenHands' both); each failure prints something else (``No replacement was
performed``, ``Invalid `insert_line```, argparse's usage...)."""


def editor_failed(text: str) -> bool:
    """Whether an editor answer says the call failed (for a log that records no status)."""
    return not text.lstrip().startswith(EDITOR_SUCCESS)


class _ArgvRefused(Exception):
    """argparse refused the command line (the tool printed its usage and exited 2)."""


class _EditorParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _ArgvRefused(message)


def _editor_parser() -> argparse.ArgumentParser:
    """``str_replace_editor``'s command line, as ``tools/edit_anthropic`` declares it."""
    parser = _EditorParser(prog="str_replace_editor", add_help=False, exit_on_error=False)
    parser.add_argument("command", type=str)
    parser.add_argument("path", type=str)
    parser.add_argument("--file_text", type=str)
    parser.add_argument("--view_range", type=int, nargs=2)
    parser.add_argument("--old_str", type=str)
    parser.add_argument("--new_str", type=str)
    parser.add_argument("--insert_line", type=int)
    return parser


def editor_arguments(raw: str) -> dict[str, Any] | str | None:
    """The JSON arguments a thought-action ``str_replace_editor`` line stands for; a ``str`` when
    the tool's argument parser refuses the line (its message); ``None`` when the line is not a
    plain call bash would split as :func:`shell_words` does.

    The line is only parsed here (argparse with the tool's own declarations, prefixes and
    ``--opt=value`` included): the call itself runs in the sandbox."""
    words = shell_words(raw.strip("\n"))
    if not words or words[0] != "str_replace_editor":
        return None
    try:
        parsed = _editor_parser().parse_args(words[1:])
    except (_ArgvRefused, argparse.ArgumentError) as exc:
        return str(exc) or "invalid arguments"
    return {key: value for key, value in vars(parsed).items() if value is not None}
