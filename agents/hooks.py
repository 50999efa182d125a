"""What agent CLIs run at the edges of their loop (DESIGN.md section 9).

`recall`: a tool call failed; print the past lessons that match, or nothing.
`session_start`: the notebook for the context, and a note of where the archive stood.
`stop`: remind the agent to write its lessons when this session has not.

None of them may block or fail the agent: any problem is one line on stderr, exit 0.
They are reached without typer (see main.py), so they start as fast as `read`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

RECALL_BUDGET = 300  # tokens


def _hook_input(raw: str) -> dict[str, Any]:
    """The hook's JSON from stdin, or {} when there is none or it is not an object."""
    raw = raw.strip()
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise ValueError("the hook input on stdin is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the hook input on stdin is not a JSON object")
    return data


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(_text(v) for k, v in value.items() if k in ("command", "stderr", "stdout", "error", "output"))
    return ""


def recall_text(root: Path | None, role: str | None, command: str, error: str) -> str:
    """Past lessons matching a failed command and its error, within RECALL_BUDGET tokens."""
    from rolebook.notebook.search import FRAME_TOKENS, framed, render_hits

    from .config import find_root, load_config
    from .session import open_session

    config = load_config(root.absolute() if root else find_root())
    # keywords only, whatever the config says (`recall` asks for them): this runs on every
    # failed command, and a model load would stall the agent; shared roots too
    found = open_session(config).recall(command, error, role)
    lines = render_hits(found, RECALL_BUDGET - FRAME_TOKENS) if found is not None else []
    return "\n".join(framed(lines, "past lessons that match this failure"))


#: words in a shell command's output that say it failed (Codex's PostToolUse gives the output alone)
_FAILED = re.compile(
    r"(?i)\b(?:error|errors|failed|failure|fatal|denied|not found|no such file|exception|traceback|"
    r"cannot|could not|exit (?:code|status):? [1-9]|segmentation fault|panic)\b"
)


def recall(
    stdin: str,
    root: Path | None,
    role: str | None,
    command: str | None,
    error: str | None,
    agent: str | None = None,
) -> str:
    """What to print for a failed tool call: the hook JSON the CLI injects, plain text, or ''.

    Claude Code calls it on failures only (PostToolUseFailure); Gemini CLI's AfterTool and
    Codex's PostToolUse fire after every command, so there it answers only for a failure:
    a tool error, or words of failure in the output (Gemini reports a command that exits 1
    as a tool that worked, with "Exit Code: 1" in its output; Codex gives the output alone).
    """
    data = _hook_input(stdin)
    tool_input = data.get("tool_input")
    cmd = command if command is not None else _text(tool_input)
    response = data.get("tool_response")
    if error is not None:
        err = error
    elif agent == "gemini":
        body = response if isinstance(response, dict) else {}
        error_value = body.get("error")
        failure = (
            " ".join(str(v) for v in error_value.values() if isinstance(v, str))
            if isinstance(error_value, dict)
            else _text(error_value)
        )
        output = _text(body.get("llmContent")) or _text(body.get("returnDisplay"))
        if not failure and not _FAILED.search(output):  # a command that exits 1 is no tool error there
            return ""
        err = f"{failure} {output}"
    elif agent == "codex":
        err = _text(response) if not isinstance(response, list) else " ".join(map(_text, response))
        if not _FAILED.search(err):
            return ""
    elif agent == "copilot":  # a command that exits 1 is result_type "success" there too
        result = data.get("tool_result")
        result = result if isinstance(result, dict) else {}
        err = _text(result.get("text_result_for_llm"))
        if result.get("result_type") != "failure" and not _FAILED.search(err):
            return ""
    else:
        err = _text(data.get("error")) or _text(data.get("error_message")) or _text(response)
    text = recall_text(root, role, cmd, err)
    if not text:
        return ""
    if agent == "copilot":  # Copilot CLI reads additionalContext at the top (seen with 1.0.102)
        return json.dumps({"additionalContext": text})
    event = data.get("hook_event_name")
    if isinstance(event, str) and event:
        return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})
    return text + "\n"


_SESSION_DAYS = 7  # a session's note older than this is pruned at the next session start


class NoProject(Exception):
    """The hook runs outside any rolebook project: it says so and writes nothing."""


def _config(root: Path | None) -> Any:
    from .config import find_root, load_config

    config = load_config(root.absolute() if root else find_root())
    layout = config.layout
    if config.source is None and not layout.memory.exists() and not layout.archive.exists():
        raise NoProject(f"no rolebook project at {config.root} (`rolebook init` makes one); nothing done")
    return config


def _session_file(config: Any, session: str) -> Path:
    safe = "".join(c for c in session if c.isalnum() or c in "-_")[:80] or "unknown"
    path: Path = config.layout.sessions / f"{safe}.json"
    return path


def _archive_size(config: Any, role: str) -> int:
    try:
        return int(config.layout.archive_path(role).stat().st_size)
    except FileNotFoundError:
        return 0


def _note(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_note(path: Path, note: dict[str, Any]) -> None:
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(note), encoding="utf-8")
    os.replace(tmp, path)


def session_start(stdin: str, root: Path | None, role: str) -> None:
    """Note where the role's archive stood when this session began (the read is printed by
    the caller). A session seen before (resumed, compacted) keeps its first note: its
    baseline and whether it was reminded. Notes older than a week are pruned."""
    config = _config(root)
    session = _hook_input(stdin).get("session_id")
    if not isinstance(session, str) or not session:
        return
    path = _session_file(config, session)
    if _note(path) is None:
        _write_note(path, {"role": role, "archive_size": _archive_size(config, role), "reminded": False})
    _prune(path.parent)


def _prune(folder: Path) -> None:
    import contextlib
    import time

    cutoff = time.time() - _SESSION_DAYS * 86400
    for old in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            if old.stat().st_mtime < cutoff:
                old.unlink()


def stop(stdin: str, root: Path | None, role: str) -> str:
    """The Stop hook: one reminder per session, ever (as the CLI's block decision), when the
    session wrote nothing to the role's memory. Agent CLIs fire Stop after every turn."""
    config = _config(root)
    data = _hook_input(stdin)
    session = data.get("session_id")
    if data.get("stop_hook_active") or not isinstance(session, str) or not session:
        return ""  # the reminder's own turn, or no session to tell by
    path = _session_file(config, session)
    note = _note(path)
    if note is None or note.get("reminded") or not isinstance(note.get("archive_size"), int):
        return ""  # the session start was not seen, or the reminder was given
    if _archive_size(config, role) > note["archive_size"]:
        return ""  # this session wrote to the role's memory
    _write_note(path, {**note, "reminded": True})
    reason = (
        f"Before you finish, record what this session taught the {role} role: "
        f'`rolebook update {role} --mistake "..." --learning "..." --log "..."` '
        "(one line each; skip what the notebook already says). If there is nothing worth keeping, say so and stop."
    )
    return json.dumps({"decision": "block", "reason": reason})


def _notebook(root: Path | None, role: str) -> str:
    """What `read ROLE` prints: the notebook as it is, then its alerts."""
    from .config import find_root, load_config
    from .session import open_session

    started = open_session(load_config(root.absolute() if root else find_root())).start(role)
    return started.render().decode("utf-8", errors="replace")


def run(name: str, args: dict[str, Any]) -> int:
    """Run one hook; never fails: problems go to stderr, exit 0."""
    try:
        stdin = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
        root, role = args.get("root"), args.get("role")
        agent = args.get("agent")
        if name == "recall":
            out = recall(stdin, root, role, args.get("command"), args.get("error"), agent)
        elif name == "session-start":
            session_start(stdin, root, role or "")
            if agent in ("codex", "gemini", "copilot"):  # they read JSON only: the notebook as context
                context = _notebook(root, role or "")
                answer: dict[str, Any] = {"hookEventName": "SessionStart", "additionalContext": context}
                # Copilot CLI reads additionalContext at the top (seen with 1.0.102)
                shaped = {"additionalContext": context} if agent == "copilot" else {"hookSpecificOutput": answer}
                out = json.dumps(shaped)
            else:  # Claude Code adds what a SessionStart hook prints to the context
                from .session_io import Globals, run_read

                run_read(Globals(root), role or "", None, 500, False)
                return 0
        elif name == "stop":
            out = stop(stdin, root, role or "")
        else:
            raise ValueError(f"unknown hook {name!r}")
        sys.stdout.write(out)
        sys.stdout.flush()
    except NoProject as exc:
        sys.stderr.write(f"rolebook {name}: {exc}\n")
    except BaseException as exc:  # a hook must never fail the agent
        if isinstance(exc, KeyboardInterrupt):
            raise
        sys.stderr.write(f"rolebook {name}: {exc}\n")
    return 0
