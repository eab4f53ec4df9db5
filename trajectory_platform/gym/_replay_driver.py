"""Replay driver: runs recorded actions of an episode inside the sandbox (see ``shell.py``).

Executed as ``python -I -S -B _replay_driver.py SPEC`` inside the bubblewrap sandbox, copied next to
(never into) the workspace like the test runner. ``SPEC`` is a JSON object with the ``setrlimit``
bounds, ``drop_uid`` and ``workspace``, and one of three modes:

- ``shell``: apply the limits, drop to the unprivileged uid, then ``exec /bin/bash -c COMMAND`` in
  the workspace. The host reads bash's own stdout and stderr (merged) and its exit status, so
  nothing of this driver stands between the command and what it printed.
- ``tools``: import the environment's own tools module (``tools_dir``, ``entry_point``
  ``module:function``) and call ``function(name, arguments, workspace)`` for each recorded call in
  order, each under a wall-clock alarm. One JSON line per call goes to a private duplicate of the
  original stdout; the calls themselves see ``/dev/null`` as stdout and stderr. With ``watch`` and
  ``known`` (path lists), each line also holds ``prints``: the fingerprints (``_fingerprint``,
  shipped beside this script) of the watched paths and of every path not known, after that call.
- ``editor``: apply the limits, drop the uid, then perform one call of the Anthropic-style file
  editor (``str_replace_editor``: ``view``, ``create``, ``str_replace``, ``insert``, ``undo_edit``)
  with the semantics of the reference implementation SWE-agent and OpenHands both ship. The call's
  JSON ``arguments`` are data: nothing of them is evaluated or handed to a shell. Its absolute
  ``path`` must lie under the workspace (its own path, or one of ``editor_roots``, the roots agent
  containers mount a repository at); a path outside, or one that leaves the workspace through
  ``..`` or a symbolic link, is refused and nothing is touched. The host keeps the per-file undo
  history (``undo_text``: the text an ``undo_edit`` restores). One JSON line answers: ``output``,
  ``error``, ``refused``, ``history`` (the text a successful edit adds to the file's history) and
  ``undone``.
- ``file_tool``: the same, for one call of a coding CLI's file tool (Claude Code's ``Write`` /
  ``Edit`` / ``Read``, Gemini's ``write_file`` / ``replace``, Codex's ``apply_patch``) with that
  tool's rules (``_file_tools``, shipped beside this script): ``operation`` and ``arguments``; the
  answer holds ``seen``, the file's text the agent now knows (Claude Code edits only what it read).

It imports only the standard library, ``_confine`` (the limits and the uid drop) and, for
``file_tool``, ``_file_tools``, and for ``tools`` with a watch, ``_fingerprint``, all shipped beside it.
"""

import json
import os
import signal
import sys
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(__file__))  # the limits and uid drop, shipped beside this script
import _confine  # type: ignore[import-not-found]  # noqa: E402 - see isolation.sandbox

del sys.path[0], sys.modules["_confine"]  # workspace code imports its own modules by that name


def run_shell(spec: dict) -> None:
    os.chdir(spec["workspace"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.closerange(3, 1 << 16)
    # Python ignores SIGPIPE and SIGXFSZ, and exec keeps an ignored signal ignored (bash cannot reset
    # it): a recorded `grep ... | head` would print "Broken pipe" errors an agent's shell never
    # showed, and `trap -p` would list `trap -- '' SIGXFSZ` (a file past the size limit still stops
    # its writer: by the signal, as in any shell, rather than by an error)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    os.execve("/bin/bash", ["bash", "-c", spec["command"]], dict(os.environ))


class _CallTimeout(BaseException):
    """Raised by the alarm inside a tool call that outlived its time."""


def _on_alarm(signum: int, frame: object) -> None:
    raise _CallTimeout()


def run_tools(spec: dict) -> None:
    channel = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)

    def emit(record: dict) -> None:
        os.write(channel, (json.dumps(record) + "\n").encode("utf-8"))

    limit = int(spec["output_limit"])
    workspace = spec["workspace"]
    prints = _prints(spec)
    os.chdir(workspace)
    sys.path.insert(0, spec["tools_dir"])
    module_name, _, function_name = spec["entry_point"].partition(":")
    try:
        import importlib

        function = getattr(importlib.import_module(module_name), function_name)
    except BaseException as exc:  # noqa: BLE001 - a broken tools module is reported, not raised
        emit({"fatal": f"{spec['entry_point']}: {type(exc).__name__}: {exc}"[:500]})
        return
    signal.signal(signal.SIGALRM, _on_alarm)
    for name, arguments in spec["calls"]:
        text, error, timed_out = "", False, False
        signal.setitimer(signal.ITIMER_REAL, float(spec["call_timeout_s"]))
        try:
            output = function(name, arguments, workspace)
            text, error = (output, False) if isinstance(output, str) else (_not_text(output), True)
        except _CallTimeout:
            error = timed_out = True
        except BaseException as exc:  # noqa: BLE001 - every outcome is an observation
            text, error = f"{type(exc).__name__}: {exc}", True
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if len(text) > limit:
            text = text[:limit] + f"\n[output truncated: {len(text) - limit} more characters]"
        emit({"output": text, "error": error, "timed_out": timed_out, **prints()})


def _prints(spec: dict) -> Callable[[], dict]:
    """What each tools-mode answer adds: the fingerprints of the watched and the new paths, when
    the spec asks for them (imported before the tools module, which may shadow any name)."""
    if "watch" not in spec:
        return dict
    sys.path.insert(0, os.path.dirname(__file__))
    import _fingerprint  # type: ignore[import-not-found]

    del sys.path[0]
    watch, known = frozenset(spec["watch"]), frozenset(spec["known"])
    workspace = spec["workspace"]
    return lambda: {
        "prints": _fingerprint.fingerprints(workspace, lambda rel: rel in watch or rel not in known)
    }


def _not_text(output: object) -> str:
    return f"tool returned {type(output).__name__}, not str"


EDITOR_COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit")


class _EditError(Exception):
    """The editor's own failure (a missing file, an ``old_str`` that does not match once...)."""


class _Refused(Exception):
    """A path this replay may not touch: outside the workspace."""


def run_editor(spec: dict) -> None:
    _answer(
        spec, lambda: _edit(spec["arguments"], spec["workspace"], spec["editor_roots"], spec.get("undo_text"))
    )


def run_file_tool(spec: dict) -> None:
    """One call of a coding CLI's file tool (``_file_tools``, shipped beside this script)."""
    sys.path.insert(0, os.path.dirname(__file__))
    import _file_tools  # type: ignore[import-not-found]

    del sys.path[0]

    def perform() -> dict:
        try:
            return _file_tools.perform(
                spec["operation"],
                spec["arguments"],
                lambda raw: _inside(raw, spec["workspace"], spec["editor_roots"]),
            )
        except _file_tools.ToolError as exc:
            raise _EditError(str(exc)) from exc
        except _file_tools.Unreplayable as exc:
            raise _Refused(str(exc)) from exc

    _answer(spec, perform)


def _answer(spec: dict, perform: Callable[[], dict]) -> None:
    """Run ``perform`` (an editor or file-tool call) with nothing of it on stdout or stderr, and write
    its one JSON answer line to a private duplicate of the original stdout."""
    channel = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        result = perform()
    except _Refused as exc:
        result = {"output": str(exc), "error": True, "refused": True}
    except _EditError as exc:
        result = {"output": str(exc), "error": True}
    except Exception as exc:  # noqa: BLE001 - an I/O failure is the call's outcome, as in the real tool
        result = {"output": f"Ran into {type(exc).__name__}: {exc}", "error": True}
    limit = int(spec["output_limit"])
    text = result["output"]
    if len(text) > limit:
        result["output"] = text[:limit] + f"\n[output truncated: {len(text) - limit} more characters]"
    with os.fdopen(channel, "w", encoding="utf-8") as out:
        out.write(json.dumps(result) + "\n")


def _inside(raw: str, workspace: str, roots: list) -> str:
    """The real path ``raw`` names in the workspace; :class:`_Refused` when it lies outside."""
    rel = None
    for root in (workspace, *roots):
        root = root.rstrip("/")
        if root and (raw == root or raw.startswith(root + "/")):
            rel = raw[len(root) :].lstrip("/")
            break
    if rel is None:
        raise _Refused(f"The path {raw} is outside the workspace (under none of {', '.join(roots)})")
    base = os.path.realpath(workspace)
    target = os.path.realpath(os.path.join(base, rel))
    if target != base and not target.startswith(base + "/"):
        raise _Refused(f"The path {raw} leaves the workspace")
    return target


def _read(path: str) -> tuple:
    """The file's text and encoding, read as the reference tool does (universal newlines)."""
    for encoding in ("utf-8", "latin-1"):
        try:
            with open(path, encoding=encoding) as fh:
                return fh.read(), encoding
        except UnicodeDecodeError:
            continue
    raise _EditError(f"Could not decode {path}")


def _write(path: str, text: str, encoding: str = "utf-8") -> None:
    with open(path, "w", encoding=encoding) as fh:
        fh.write(text)


def _text_arg(arguments: dict, name: str, command: str, default: object = None) -> str:
    value = arguments.get(name)
    value = default if value is None else value
    if not isinstance(value, str):
        raise _EditError(f"Parameter `{name}` is required for command: {command}")
    return value


def _int_arg(value: object, name: str, command: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise _EditError(f"Parameter `{name}` is required for command: {command}")


def _edit(arguments: dict, workspace: str, roots: list, undo_text: object) -> dict:
    command, raw = arguments.get("command"), arguments.get("path")
    if command not in EDITOR_COMMANDS:
        raise _EditError(
            f"Unrecognized command {command}. The allowed commands are: {', '.join(EDITOR_COMMANDS)}"
        )
    if not isinstance(raw, str) or not raw:
        raise _EditError("Parameter `path` is required")
    if not raw.startswith("/"):
        raise _EditError(f"The path {raw} is not an absolute path, it should start with `/`.")
    path = _inside(raw, workspace, roots)
    exists = os.path.lexists(path)
    if not exists and command != "create":
        raise _EditError(f"The path {raw} does not exist. Please provide a valid path.")
    if exists and command == "create":
        raise _EditError(f"File already exists at: {raw}. Cannot overwrite files using command `create`.")
    if os.path.isdir(path):
        if command != "view":
            raise _EditError(
                f"The path {raw} is a directory and only the `view` command can be used on directories"
            )
        if arguments.get("view_range"):
            raise _EditError("The `view_range` parameter is not allowed when `path` points to a directory.")
        return {"output": _listing(path, raw), "error": False}
    if exists and not os.path.isfile(path):
        raise _EditError(f"The path {raw} is not a regular file")
    if command == "view":
        return {"output": _view(path, raw, arguments.get("view_range")), "error": False}
    if command == "create":
        text = _text_arg(arguments, "file_text", command)
        if not os.path.isdir(os.path.dirname(path)):
            raise _EditError(f"The parent directory of {raw} does not exist. Please create it first.")
        _write(path, text)
        return {"output": f"File created successfully at: {raw}", "error": False, "history": text}
    if command == "undo_edit":
        if not isinstance(undo_text, str):
            raise _EditError(f"No edit history found for {raw}.")
        _write(path, undo_text, _read(path)[1])
        return {"output": f"Last edit to {raw} undone successfully.", "error": False, "undone": True}
    content, encoding = _read(path)
    content = content.expandtabs()
    if command == "str_replace":
        old = _text_arg(arguments, "old_str", command).expandtabs()
        new = _text_arg(arguments, "new_str", command, "").expandtabs()
        found = content.count(old)
        if found == 0:
            raise _EditError(
                f"No replacement was performed, old_str `{old}` did not appear verbatim in {raw}."
            )
        if found > 1:
            lines = [i + 1 for i, line in enumerate(content.split("\n")) if old in line]
            raise _EditError(
                f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines {lines}."
            )
        if new == old:
            raise _EditError("No replacement was performed. `new_str` and `old_str` must be different.")
        _write(path, content.replace(old, new), encoding)
        return {"output": f"The file {raw} has been edited.", "error": False, "history": content}
    line = _int_arg(arguments.get("insert_line"), "insert_line", command)
    new = _text_arg(arguments, "new_str", command).expandtabs()
    lines = content.split("\n")
    if line < 0 or line > len(lines):
        raise _EditError(f"Invalid `insert_line` parameter: {line}. It should be within [0, {len(lines)}]")
    _write(path, "\n".join(lines[:line] + new.split("\n") + lines[line:]), encoding)
    return {"output": f"The file {raw} has been edited.", "error": False, "history": content}


def _view(path: str, raw: str, view_range: object) -> str:
    lines = _read(path)[0].split("\n")
    start, end = 1, len(lines)
    if view_range:
        if not (
            isinstance(view_range, list)
            and len(view_range) == 2
            and all(isinstance(i, int) for i in view_range)
        ):
            raise _EditError("Invalid `view_range`. It should be a list of two integers.")
        start, end = view_range
        if start < 1 or start > len(lines) or end > len(lines) or (end != -1 and end < start):
            raise _EditError(f"Invalid `view_range`: {view_range} for a file of {len(lines)} lines")
        end = len(lines) if end == -1 else end
    numbered = "\n".join(f"{i:6}\t{lines[i - 1]}" for i in range(start, end + 1))
    return f"Here's the result of running `cat -n` on {raw}:\n{numbered}\n"


def _listing(path: str, raw: str) -> str:
    entries = []
    for name in sorted(os.listdir(path)):
        if name.startswith("."):
            continue
        entries.append(f"{raw.rstrip('/')}/{name}")
        child = os.path.join(path, name)
        if os.path.isdir(child) and not os.path.islink(child):
            entries += [
                f"{raw.rstrip('/')}/{name}/{sub}"
                for sub in sorted(os.listdir(child))
                if not sub.startswith(".")
            ]
    return (
        f"Here's the files and directories up to 2 levels deep in {raw}, excluding hidden items:\n"
        + "\n".join(entries)
    )


def main(spec_path: str) -> None:
    with open(spec_path, encoding="utf-8") as fh:
        spec = json.load(fh)
    _confine.confine(spec)
    if spec["mode"] == "shell":
        run_shell(spec)
    elif spec["mode"] == "editor":
        run_editor(spec)
    elif spec["mode"] == "file_tool":
        run_file_tool(spec)
    else:
        run_tools(spec)


if __name__ == "__main__":
    main(sys.argv[1])
