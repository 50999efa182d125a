"""What agent CLIs hand a hook after a tool call, read: whether the call failed, its
command, its output and its exit code, from the tool's own result fields in each CLI's
shape (Claude Code, Gemini CLI, Copilot CLI, Codex, Cursor), and the agent's session id.
The hooks (agents/hooks.py) decide what to do with it."""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any, NamedTuple

#: What it reads of a transcript, from its end, to find a command's exit code (Codex)
TRANSCRIPT_TAIL_BYTES = 256 * 1024


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_text(v) for k, v in value.items() if k in ("command", "stdout", "stderr", "error", "output"))
    if isinstance(value, list):
        return "\n".join(map(_text, value))
    return ""


#: Copilot CLI's last line of a shell result (as Copilot itself reads it, 1.0.102), and
#: the sandbox notes it may put after it
_COPILOT_EXIT = re.compile(r"^<(?:detached command with )?shellId: [^\r\n]+ completed with exit code (-?\d+)>[ \t]*$")
_COPILOT_OLD_EXIT = re.compile(r"^<exited with exit code (-?\d+)>[ \t]*$")
_COPILOT_NOTES = (
    "<sandbox is active ",
    "<this failure may be caused by the active sandbox policy.",
    "<This command was retried outside the Copilot sandbox",
)
#: Gemini CLI's lines after a shell command's output (0.61): "Exit Code: N" only when N is not 0
_GEMINI_TAIL = re.compile(
    r"^(?:Exit Code: (-?\d+)|Signal: (\S+)|Error: .*|Background PIDs: .*|Process Group PGID: .*)$"
)
_CLAUDE_EXIT = re.compile(r"^Exit code (-?\d+)\n?")


class FailedCall(NamedTuple):
    """A tool call that failed: its command, its output, its exit code when the CLI says it."""

    command: str
    output: str
    exit_code: int | None = None


def session_of(data: dict[str, Any]) -> str | None:
    """The agent's session id in a hook payload (Cursor calls it a conversation)."""
    for key in ("session_id", "sessionId", "conversation_id"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:200]
    return None


def failed_call(data: dict[str, Any], agent: str | None) -> FailedCall | None:
    """The command, its output and its exit code when the hook payload says the tool call
    failed, from the tool's own result fields, never from words in its output; None for a
    success.

    Claude Code runs the hook on failures only (PostToolUseFailure, its `error` starts
    "Exit code N"). Gemini CLI (AfterTool), Copilot CLI and Codex (PostToolUse) run it
    after every command and report one that exits 1 as a tool that worked: Gemini says
    "Exit Code: N" after the output, Copilot ends it with "<shellId: ... completed with
    exit code N>", and Codex gives the output alone, the exit code being in the session's
    transcript (its `item_completed` line for the call). Cursor runs it on failures only
    too (postToolUseFailure), and gives no exit code.
    """
    tool_input = data.get("tool_input", data.get("toolArgs"))
    if isinstance(tool_input, str):
        with contextlib.suppress(ValueError):
            tool_input = json.loads(tool_input)
    command = _text(tool_input.get("command") if isinstance(tool_input, dict) else tool_input)
    response = data.get("tool_response")
    if agent == "gemini":
        body = response if isinstance(response, dict) else {}
        content = _text(body.get("llmContent"))
        lines = content.replace("</untrusted_context>", "").rstrip().splitlines()
        code, signal, output_end = 0, None, len(lines)
        while output_end and (found := _GEMINI_TAIL.match(lines[output_end - 1])):
            code = int(found.group(1)) if found.group(1) else code
            signal = found.group(2) or signal
            output_end -= 1
        error = body.get("error")
        if not error and not code and not signal:
            return None
        display = body.get("returnDisplay")
        output = display if isinstance(display, str) and display else "\n".join(lines[:output_end])
        output = output.replace("<untrusted_context>", "").removeprefix("\nOutput: ").removeprefix("Output: ")
        reason = _text(error.get("message")) if isinstance(error, dict) else _text(error)
        return FailedCall(command, "\n".join(x for x in (output, reason) if x), code or None)
    if agent == "copilot":
        result = data.get("tool_result", data.get("toolResult"))
        result = result if isinstance(result, dict) else {}
        kind = result.get("result_type", result.get("resultType"))
        text = _text(result.get("text_result_for_llm", result.get("textResultForLlm")))
        lines = text.replace("\r\n", "\n").split("\n")
        last = len(lines) - 1
        while last >= 0 and (not lines[last].strip() or lines[last].startswith(_COPILOT_NOTES)):
            last -= 1
        found = (_COPILOT_EXIT.match(lines[last]) or _COPILOT_OLD_EXIT.match(lines[last])) if last >= 0 else None
        if kind != "failure" and not (found and int(found.group(1)) != 0):
            return None
        exit_code = int(found.group(1)) if found else None
        return FailedCall(command, "\n".join(lines[:last] if found else lines), exit_code or None)
    if agent == "cursor":
        return _cursor_failure(data, command)
    if agent == "codex":
        given = response.get("exit_code", response.get("exitCode")) if isinstance(response, dict) else None
        if not isinstance(given, int):
            given = _codex_exit_code(data.get("transcript_path"), data.get("tool_use_id"))
        if not given:  # 0, or not known: not sure it failed
            return None
        return FailedCall(command, _text(response), given)
    if data.get("hook_event_name") == "PostToolUse":  # Claude Code: successes, and piped failures
        body = response if isinstance(response, dict) else {}
        output = "\n".join(x for x in (_text(body.get("stdout")), _text(body.get("stderr"))) if x)
        return FailedCall(command, output) if _piped_failure(command, output) else None
    error = _text(data.get("error")) or _text(data.get("error_message")) or _text(response)
    said = _CLAUDE_EXIT.match(error)
    return FailedCall(command, _CLAUDE_EXIT.sub("", error, count=1), int(said.group(1)) if said else None)


def _cursor_failure(data: dict[str, Any], command: str) -> FailedCall | None:
    """Cursor (cursor.com/docs/hooks; payloads as cursor-agent 2026.10.01 sends them): a
    failed Shell call reaches postToolUseFailure with its output as `error_message` and no
    exit code; one the user interrupted or refused is no failure of the command.
    afterShellExecution fires after every command, with `command` and `output`: a failure
    only when it states a non-zero exit code (the 2026.10.01 payload states none)."""
    event = data.get("hook_event_name")
    if event == "postToolUseFailure":
        if data.get("is_interrupt") or data.get("failure_type") == "permission_denied":
            return None
        if data.get("tool_name", "Shell") != "Shell":
            return None
        return FailedCall(command, _text(data.get("error_message")))
    code = data.get("exit_code", data.get("exitCode"))
    if event != "afterShellExecution" or not isinstance(code, int) or isinstance(code, bool) or not code:
        return None
    return FailedCall(_text(data.get("command")), _text(data.get("output")), code)


#: what the last lines of a failed command's output say, whatever filter it went through
_FAILED_TAIL = re.compile(
    r"^(?:Traceback \(most recent call last\)|[A-Z]\w*(?:Error|Exception)\b.*|(?:error|fatal)(?:\[\w+\])?:\s.*"
    r"|npm (?:ERR!|error) .*|make(?:\[\d+\])?: \*\*\* .*|FAILED\b.*|.*\b\d+ (?:failed|errors?)\b.*"
    r"|.*\bexit(?:ed)? (?:with )?(?:code|status) [1-9]\d*\b.*|error: .*|ERROR\b.*)$"
)
#: commands that print text about errors without failing: their pipes say nothing
_READERS = frozenset("grep egrep rg ag cat less head tail sed awk find ls echo printf jq git log diff".split())


def _piped_failure(command: str, output: str) -> bool:
    """Whether a piped command that Claude Code reports as a success (the pipe's last
    stage exits 0: `npm test 2>&1 | tail -20`) failed: its first stage is not one that
    prints text (grep, cat) and one of the last lines of its output says it failed."""
    stages = [s.strip() for s in re.split(r"(?<!\|)\|(?!\|)", command)]
    if len(stages) < 2 or not stages[0]:
        return False
    first = stages[0].split()[0].rsplit("/", 1)[-1]
    if first in _READERS:
        return False
    last = [line.strip() for line in output.strip().splitlines()[-6:] if line.strip()]
    return any(_FAILED_TAIL.match(line) for line in last)


def _codex_exit_code(path: Any, call: Any) -> int | None:
    """The exit code Codex wrote for a call in its transcript (the last of its lines
    `{"type": "event_msg", "payload": {"type": "item_completed", "item": {"id": CALL,
    "exit_code": N}}}`), from the transcript's end; None when it is not there."""
    if not isinstance(path, str) or not path.endswith(".jsonl") or not isinstance(call, str) or not call:
        return None
    from pathlib import Path

    from rolebook.notebook import InputError
    from rolebook.notebook.store import open_file

    try:  # a path from the payload: never a pipe that would hang the hook
        with open_file(Path(path)) as f:
            size = f.seek(0, 2)
            f.seek(max(size - TRANSCRIPT_TAIL_BYTES, 0))
            tail = f.read(TRANSCRIPT_TAIL_BYTES)
    except (OSError, InputError):
        return None
    marker = json.dumps(call).encode()
    for line in reversed(tail.splitlines()):
        if marker not in line or b"exit_code" not in line:
            continue
        with contextlib.suppress(ValueError, AttributeError):
            item = json.loads(line)["payload"]["item"]
            if item.get("id") == call and isinstance(item.get("exit_code"), int):
                return int(item["exit_code"])
    return None
