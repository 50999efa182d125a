"""What agent CLIs run at the edges of their loop (DESIGN.md section 9).

`recall`: a tool call failed; print the past lessons that match, or nothing.
`session_start`: the notebook for the context, and a note of where the archive stood.
`stop`: remind the agent to write its lessons when this session has not.

None of them may block or fail the agent: any problem is one line on stderr, exit 0.
They are reached without typer (see main.py), so they start as fast as `read`.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from rolebook.notebook.display import shown

from .calls import FailedCall, failed_call, session_of

#: What the recall hook may add to an agent's context, in characters, all lessons together.
RECALL_CHARS = 400
#: the note on a recall answer that comes from the same failure seen before
RECOGNISED = "recognised"
#: What the hook keeps of its input on stdin: its first and last bytes (a tool's output can
#: be any size; its signal is at its start and its end, notebook/search/failure.py)
HEAD_BYTES = 64 * 1024
TAIL_BYTES = 64 * 1024


def read_bounded(stream: Any, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> tuple[str, int]:
    """(what a hook keeps of its stdin, how many bytes there were): all of it up to
    `head + tail` bytes, else the first `head` and the last `tail`, joined inside the
    JSON string they cut (a tool's output), so that it still parses. The rest is read
    and dropped as it comes, in chunks: the work is bounded whatever the size."""
    source = getattr(stream, "buffer", stream)
    first = source.read(head + tail)
    if isinstance(first, str):
        first = first.encode("utf-8", "surrogateescape")
    total = len(first)
    if total < head + tail:
        return first.decode("utf-8", "replace"), total
    kept, last = first[:head], first[head:]
    while True:
        chunk = source.read(1 << 20)
        if not chunk:
            break
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8", "surrogateescape")
        total += len(chunk)
        last = (last + chunk)[-tail:]
    if total <= head + tail:
        return (kept + last).decode("utf-8", "replace"), total
    return _joined(kept, last), total


def _joined(head: bytes, tail: bytes) -> str:
    """The head and the tail of a JSON document cut inside a string, joined so that it
    parses (a partial escape at either end dropped); the head alone when they will not."""
    text = head.decode("utf-8", "ignore")
    backslashes = len(text) - len(text.rstrip("\\"))
    text = text[: len(text) - backslashes % 2]
    escape = text.rfind("\\u", max(len(text) - 5, 0))  # a \\uXXXX cut short?
    if escape >= 0 and (escape + 1 - len(text[: escape + 1].rstrip("\\"))) % 2 == 1:
        text = text[:escape]
    rest = tail.decode("utf-8", "ignore")
    for skip in range(8):
        joined = text + "\\n[...]\\n" + rest[skip:]
        try:
            json.loads(joined)
        except ValueError:
            continue
        return joined
    return text


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


def recall_text(
    root: Path | None,
    role: str | None,
    command: str,
    error: str,
    exit_code: int | None = None,
    session: str | None = None,
) -> str:
    """The past lessons surely about a failed command and its output, framed as notes from
    memory, at most RECALL_CHARS characters in all; '' when none is (the usual answer).
    With a role and the agent's `session`, the failure is recorded for the session's lessons
    to be linked to (DESIGN.md section 6b)."""
    from rolebook.notebook.search import bounded, framed, render_within

    from .config import find_root, load_config
    from .session import open_session

    config = load_config(root.absolute() if root else find_root())
    if role and session and _is_project(config):  # outside a project the hook writes nothing
        _mark_current(config, role, session)
    # keywords only, whatever the config says: this runs on every failed command, and a
    # model load would stall the agent; shared roots too
    found = open_session(config).recall(bounded(command), bounded(error), role, exit_code, session, config.control)
    if found is None or not found.hits:
        return ""
    title = "past lessons that match this failure"
    if RECOGNISED in found.notes:  # the agent judges better knowing it is the same failure again
        title = "this failure came before; the lesson written then"
    room = RECALL_CHARS - len(framed(["x"], title)[0]) - 1  # the frame's first line counts too
    return "\n".join(framed(render_within(found.hits, room), title))


def recall(
    stdin: str,
    root: Path | None,
    role: str | None,
    command: str | None,
    error: str | None,
    agent: str | None = None,
    exit_code: int | None = None,
    session: str | None = None,
) -> str:
    """What to print for a failed tool call: the hook JSON the CLI injects, plain text, or ''.
    `session`: the agent session when the payload names none (`rolebook --session ID recall`).

    With `--command`/`--error` (and `--exit-code`) the caller says the call failed;
    otherwise the payload says so (`failed_call`), in the form of the agent CLI named (`agent`).
    """
    data = _hook_input(stdin)
    if error is not None or command is not None:
        failed: FailedCall | None = FailedCall(command or "", error or "", exit_code or None)
    else:
        failed = failed_call(data, agent)
    if failed is None:
        return ""
    text = recall_text(root, role, *failed, session_of(data) or session)
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


def _mark_current(config: Any, role: str, session: str) -> None:
    from .session.failures import mark_current

    with contextlib.suppress(OSError, ValueError):  # a read-only checkout: writes name their session
        mark_current(config.layout, role, session)


def _config(root: Path | None) -> Any:
    from .config import find_root, load_config

    config = load_config(root.absolute() if root else find_root())
    if not _is_project(config):
        raise NoProject(f"no rolebook project at {config.root} (`rolebook init` makes one); nothing done")
    return config


def _is_project(config: Any) -> bool:
    """A rolebook.yaml, or the folders of one (a project made before it had one)."""
    return config.source is not None or config.layout.memory.exists() or config.layout.archive.exists()


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
    from rolebook.notebook import InputError
    from rolebook.notebook.store import read_file

    try:  # never a pipe planted in the derived folder: the hook would wait for good
        data = json.loads(read_file(path).decode("utf-8"))
    except (OSError, ValueError, InputError):
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
    if role:
        _mark_current(config, role, session)
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
    session wrote nothing to the role's memory, or saw failures no lesson answers yet
    (named, at most 3, so the agent writes the lesson while it still knows). Agent CLIs
    fire Stop after every turn."""
    config = _config(root)
    data = _hook_input(stdin)
    session = session_of(data)
    if data.get("stop_hook_active") or data.get("status") in ("aborted", "error") or not session:
        return ""  # the reminder's own turn, the user stopped the agent (Cursor), or no session to tell by
    path = _session_file(config, session)
    note = _note(path)
    if note is not None and note.get("reminded"):
        return ""  # the reminder was given
    from .session.failures import named, unanswered

    open_ = unanswered(config.layout, role, session, reminding=True)
    size = note.get("archive_size") if note is not None else None
    if not open_ and (not isinstance(size, int) or _archive_size(config, role) > size):
        # the session start was not seen (nothing to tell a write by), or this session
        # wrote to the role's memory; and no failure of it waits for its lesson
        return ""
    _write_note(path, {**(note or {}), "reminded": True})
    reason = (
        f"Before you finish, record what this session taught the {role} role: "
        f'`rolebook update {role} --mistake "..." --learning "..." --log "..."` '
        "(one line each; skip what the notebook already says). If there is nothing worth keeping, say so and stop."
    )
    if open_:
        lines = "\n".join(named(open_))
        reason = (
            f"Before you finish: these failures of this session have no lesson yet:\n{lines}\n"
            f"If one taught the {role} role something, record it now "
            f'(`rolebook --session {session} update {role} --mistake "..."`, or --learning; '
            "--failure ID names the failure when several are open). If not, say so and stop."
        )
    return json.dumps({"decision": "block", "reason": reason})


def _notebook(root: Path | None, role: str) -> str:
    """What `read ROLE` prints: the notebook as it is, then its alerts."""
    from .config import find_root, load_config
    from .session import open_session

    started = open_session(load_config(root.absolute() if root else find_root())).start(role)
    return started.render().decode("utf-8", errors="replace")


def _in_cursors_form(out: str) -> str:
    """An answer as Cursor reads it (cursor.com/docs/hooks): context at the top as
    `additional_context`; the Stop reminder as `followup_message`, which Cursor sends as
    the next user message."""
    data = json.loads(out)
    context = data.get("hookSpecificOutput", data).get("additionalContext")
    if isinstance(context, str):
        return json.dumps({"additional_context": context})
    if data.get("decision") == "block":
        return json.dumps({"followup_message": data.get("reason", "")})
    return out


def run(name: str, args: dict[str, Any]) -> int:
    """Run one hook; never fails: problems go to stderr, exit 0."""
    try:
        stdin = "" if sys.stdin is None or sys.stdin.isatty() else read_bounded(sys.stdin)[0]
        root, role = args.get("root"), args.get("role")
        agent = args.get("agent")
        if name == "recall":
            given = (args.get("command"), args.get("error"), agent, args.get("exit_code"), args.get("session"))
            out = recall(stdin, root, role, *given)
        elif name == "session-start":
            session_start(stdin, root, role or "")
            if agent in ("codex", "gemini", "copilot", "cursor"):  # they read JSON only: the notebook as context
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
        if agent == "cursor" and out.startswith("{"):
            out = _in_cursors_form(out)
        sys.stdout.write(out)
        sys.stdout.flush()
    except NoProject as exc:
        sys.stderr.write(f"rolebook {name}: {shown(str(exc))}\n")
    except BaseException as exc:  # a hook must never fail the agent
        if isinstance(exc, KeyboardInterrupt):
            raise
        sys.stderr.write(f"rolebook {name}: {shown(str(exc))}\n")
    return 0
