"""What each agent CLI hands the recall hook on stdin after a shell command, in the shapes
the real CLIs send (captured from Claude Code 2.1.328, Gemini CLI 0.61.0, Copilot CLI
1.0.102 and Codex 0.169.0 with a hook that saved its stdin; tests/clients runs them).
Cursor's CLI is not installable here: its form is the one cursor.com/docs/hooks documents,
field for field as cursor-agent 2026.10.01 sent it (payloads captured in
github.com/forgeprint/forgelore, testdata/agents/cursor)."""

from __future__ import annotations

import json
from pathlib import Path

FORMS = ("claude", "args", "gemini", "copilot", "codex", "cursor")
SESSION = {"session_id": "s-1", "cwd": "/tmp/project"}


def payload(form: str, command: str, exit_code: int, output: str, folder: Path | None = None) -> tuple[str, list[str]]:
    """(stdin, the hook's arguments) for a command that ran and printed `output`.

    Claude Code runs its PostToolUseFailure hook on a failure only ("Exit code N" then the
    output); `args` is `rolebook recall --command --error`, for a failure only too. Gemini
    (AfterTool), Copilot and Codex (PostToolUse) run theirs after every command: Gemini
    adds "Exit Code: N" when N is not 0, Copilot ends with its shellId line, Codex gives
    the output alone and writes the exit code in its transcript (in `folder`) first.
    Cursor runs postToolUseFailure on a failure (the output, no exit code), and
    afterShellExecution after every command (no exit code either).
    """
    if form == "args":
        return "", ["--command", command, "--error", output, "--exit-code", str(exit_code)]
    if form == "claude":
        if exit_code == 0:  # a success reaches PostToolUse, with the output and no exit code
            response = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
            body = {"hook_event_name": "PostToolUse", "tool_response": response}
        else:
            body = {"hook_event_name": "PostToolUseFailure", "error": f"Exit code {exit_code}\n{output}"}
        body |= {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "toolu_1"}
        return json.dumps({**SESSION, **body}), []
    if form == "gemini":
        lines = [f"Output: {output or '(empty)'}", *([f"Exit Code: {exit_code}"] if exit_code else [])]
        content = "<untrusted_context>\n" + "\n".join([*lines, "Process Group PGID: 4242"]) + "\n</untrusted_context>"
        body = {"hook_event_name": "AfterTool", "tool_name": "run_shell_command", "tool_input": {"command": command}}
        body["tool_response"] = {"llmContent": content, "returnDisplay": output}
        return json.dumps({**SESSION, **body}), ["--agent", "gemini"]
    if form == "copilot":
        text = f"{output}\n<shellId: 0 completed with exit code {exit_code}>"
        body = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": command}}
        body["tool_result"] = {"result_type": "success", "text_result_for_llm": text}
        return json.dumps({**SESSION, **body}), ["--agent", "copilot"]
    if form == "codex":
        assert folder is not None, "Codex's form needs a folder for its transcript"
        transcript = folder / "rollout.jsonl"
        status = "failed" if exit_code else "completed"
        item = {"type": "CommandExecution", "id": "call_1", "status": status, "exit_code": exit_code}
        item["aggregated_output"] = output
        line = {"type": "event_msg", "payload": {"type": "item_completed", "item": item}}
        transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
        body = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": command}}
        body |= {"tool_response": output, "tool_use_id": "call_1", "transcript_path": str(transcript)}
        return json.dumps({**SESSION, **body}), ["--agent", "codex"]
    if form == "cursor":
        common = {"conversation_id": SESSION["session_id"], "generation_id": "g-1", "model": "default"}
        common |= {"cursor_version": "2026.10.01-e373342", "workspace_roots": [SESSION["cwd"]], "transcript_path": None}
        if exit_code == 0:  # what Cursor sends after every command
            body = {"hook_event_name": "afterShellExecution", "command": command, "output": output}
            body |= {"duration": 134.82, "sandbox": False}
        else:
            tool_input = {"command": command, "cwd": SESSION["cwd"], "timeout": 30000}
            body = {"hook_event_name": "postToolUseFailure", "tool_name": "Shell", "tool_input": tool_input}
            body |= {"error_message": output, "failure_type": "error", "duration": 3113.28, "tool_use_id": "t-1"}
            body |= {"is_interrupt": False, "cwd": SESSION["cwd"]}
        return json.dumps({**common, **SESSION, **body}), ["--agent", "cursor"]
    raise ValueError(form)


def output_of(case: dict[str, object]) -> str:
    """A labelled case's output as a shell tool shows it: stdout, then stderr."""
    return "\n".join(str(s) for s in (case["stdout"], case["stderr"]) if s)
