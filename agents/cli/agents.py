"""Commands agent CLIs and git run: recall, hook, integrate, mcp, merge-driver."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rolebook.notebook.store import check_role

from ..config import find_root, load_config
from .app import JsonOpt, _errors, _globals, _print_json, app, hot

AgentOpt = Annotated[
    str | None,
    typer.Option(
        "--agent", help="The CLI whose hook this is (claude, codex, gemini, copilot, cursor): its answer's form."
    ),
]


#: A hook never fails the agent over its command line: an option this version does not
#: know (written by a newer `integrate`, say) is named on stderr and left aside.
_TOLERANT = {"ignore_unknown_options": True, "allow_extra_args": True}


@app.command("recall", context_settings=_TOLERANT)
@hot("recall")
def recall_cmd(
    ctx: typer.Context,
    role: Annotated[str | None, typer.Option("--role", help="Only this role's memory.")] = None,
    command: Annotated[str | None, typer.Option("--command", help="The command that failed.")] = None,
    error: Annotated[str | None, typer.Option("--error", help="Its error output.")] = None,
    agent: AgentOpt = None,
    exit_code: Annotated[
        int | None, typer.Option("--exit-code", help="Its exit code (evidence too: 'grep exits 1').")
    ] = None,
) -> None:
    """For hooks: print past lessons matching a failed tool call, or nothing. Never fails.

    Reads the agent CLI's hook JSON on stdin (tool name, command, error, exit code), or
    takes --command, --error and --exit-code. In a hook it answers in the form the CLI
    adds to context. It shows a lesson only when sure it is about the failure: usually
    nothing.

    \b
    Example:  rolebook recall --command "npm ci" --error "EACCES: permission denied" --exit-code 243
    """


@app.command("hook", context_settings=_TOLERANT)
@hot("hook")
def hook_cmd(
    ctx: typer.Context,
    event: Annotated[str, typer.Argument(help="session-start or stop.")],
    role: Annotated[str | None, typer.Option("--role", help="The role whose memory the session uses.")] = None,
    agent: AgentOpt = None,
) -> None:
    """For agent CLI hooks: session-start prints the notebook; stop reminds the agent to write its lessons.

    Reads the hook JSON on stdin. Never fails the agent: problems go to stderr, exit 0.

    \b
    Example (Claude Code SessionStart):  rolebook hook session-start --role coder
    """


@app.command("integrate")
@_errors
def integrate_cmd(
    ctx: typer.Context,
    agent: Annotated[str, typer.Argument(help="claude, codex, gemini, copilot or cursor.")],
    role: Annotated[str | None, typer.Option("--role", help="The role this project's agent works as.")] = None,
    print_only: Annotated[bool, typer.Option("--print", help="Show what would change; write nothing.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Wire rolebook into an agent CLI: its MCP server entry, its hooks, its rules file.

    Merges into existing settings keeping every other key; a second run changes nothing.

    \b
    Example:  rolebook integrate claude --role coder
    """
    from ..integrations import apply, plan

    g = _globals(ctx)
    root = g.root.absolute() if g.root else find_root()
    planned = plan(agent, root, check_role(role) if role else None)
    if not print_only:
        apply(planned, root)
    report = integration_report(agent, root, role, planned)
    if as_json:
        _print_json(report)
        return
    print(f"rolebook root: {root}")
    for p in planned:
        rel = p.path.relative_to(root) if p.path.is_relative_to(root) else p.path
        if print_only and p.changed:
            print(f"--- {rel} ({p.what}) would become:\n{p.after}")
    print_integration(report, print_only)


def integration_report(agent: str, root: Path, role: str | None, planned: list[Any]) -> dict[str, Any]:
    """What `integrate` (or `init --agent`) did, as `--json` carries it: each file, whether
    it changed, and the one step the user must still take in the agent CLI (`next`), given
    on every run: a second run changes nothing, but the step may still be undone."""
    from ..integrations import next_step

    def shown(path: Path) -> str:
        return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)

    files = [
        {
            "path": shown(p.path),
            "what": p.what,
            "changed": p.changed,
            "created": p.changed and p.before is None,
            "text": p.after,
        }
        for p in planned
    ]
    step = next_step(agent, root, role)
    return {
        "agent": agent,
        "root": str(root),
        "files": files,
        "next": step,
        "team_rules": _team_rules_lines(agent, load_config(root)),
    }


def print_integration(report: dict[str, Any], print_only: bool = False) -> None:
    """The text form of `integration_report`: a line per file changed, then `next:`."""
    changed = [f for f in report["files"] if f["changed"]]
    if not print_only:
        for f in changed:
            print(f"{'created' if f['created'] else 'updated'} {f['path']}: {f['what']}")
    if not changed:
        print(f"{report['agent']}: already integrated, nothing to change")
    print(f"next: {report['next']}")
    for line in report["team_rules"]:
        print(line)


#: the instructions file of each agent CLI, and whether it reads `@path` imports
_RULES_FILES = {
    "claude": ("CLAUDE.md", True),
    "gemini": ("GEMINI.md", True),
    "codex": ("AGENTS.md", False),
    "copilot": (".github/copilot-instructions.md", False),
    "cursor": ("a .cursor/rules/ file", False),
}


def _team_rules_lines(agent: str, config: Any) -> list[str]:
    """For each shared root, the line that makes this agent CLI read its team rules."""
    from ..config import shared_configs

    out = []
    name, imports = _RULES_FILES.get(agent, ("AGENTS.md", False))
    for shared, its in shared_configs(config):
        rules = os.path.relpath(its.rules_file, config.root)
        if imports:
            out.append(f"team rules of {shared.name!r}: add this line to {name} so {agent} reads them: @{rules}")
        else:
            out.append(
                f"team rules of {shared.name!r}: {agent} reads no @-imports; paste what "
                f"`rolebook rules --rules-file {rules}` lists into {name}"
            )
    return out


@app.command("merge-driver", hidden=True)
def merge_driver_cmd(
    base: Annotated[Path, typer.Argument(help="%O: the common ancestor.")],
    ours: Annotated[Path, typer.Argument(help="%A: ours; the result is written here.")],
    theirs: Annotated[Path, typer.Argument(help="%B: theirs.")],
    pathname: Annotated[str | None, typer.Argument(help="%P: the notebook's path.")] = None,
) -> None:
    """git's merge driver for notebooks (init registers it): entries merged by id, caps re-applied."""
    from ..merge import run as merge

    raise typer.Exit(merge(base, ours, theirs, pathname))


@app.command("mcp")
@hot("mcp")
def mcp_cmd(ctx: typer.Context) -> None:
    """Serve rolebook to any agent that speaks MCP, over stdio.

    Tools: read, update, search, store, log, promote_review, promote_apply. Resources:
    rolebook://notebook/{role} and rolebook://rules. A prompt: memory_protocol. Both protocol
    eras (initialize, and 2026-07-28's server/discover). The root is a call's `root` argument,
    else the client's workspace root when it offers one, else --root, else the working directory.
    With --as ROLE (or ROLEBOOK_ROLE) writes to other roles are refused.

    \b
    Example (Claude Code):  claude mcp add rolebook -- rolebook mcp
    """
