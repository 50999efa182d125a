"""`rolebook mcp`: rolebook for any agent that speaks MCP, over stdio (DESIGN.md section 8).

Tools are thin over the same library calls the CLI makes: typed parameters, a compact
text result within a token budget, and the same data as structured content. A
RolebookError becomes a ToolError, which the SDK returns as `isError` with our message.
Only this module imports the MCP SDK; stdout carries nothing but the protocol.
"""

from __future__ import annotations

import datetime as dt
import functools
import sys
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, Literal, ParamSpec, TypeVar
from urllib.parse import unquote, urlparse

import anyio
from mcp import MCPDeprecationWarning
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field
from rolebook import __version__
from rolebook.notebook import InputError, RolebookError
from rolebook.notebook.display import shown as escaped
from rolebook.notebook.display import shown_value
from rolebook.notebook.store import Writer, check_date, check_role, redactions

from ..config import find_root
from ..session import Session
from . import tools
from .listing import instructions
from .tools import Where

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
Role = Annotated[
    str | None, Field(description="The agent role, e.g. coder, designer, qa (default: the server's --as role).")
]
P = ParamSpec("P")
R = TypeVar("R")


def _result(text: str, data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def _errors(error: type[Exception]) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """The one translation of a RolebookError for MCP: the SDK reports `error` as `isError`
    with our one-line message (ToolError for tools, ResourceError for resources)."""

    def wrap(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(fn)
        async def translated(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return await fn(*args, **kwargs)
            except RolebookError as exc:
                raise error(str(exc)) from None

        return translated

    return wrap


async def _session(where: Where, ctx: Context[Any, Any] | None) -> Session:
    """The session for a call: on the first call with a context, the client is asked for
    its workspace roots (once per connection, whatever the answer)."""
    if not where.asked and ctx is not None:
        where.asked = True
        with anyio.move_on_after(ROOTS_TIMEOUT) as waited:
            where.from_client = await _client_root(ctx)
        if waited.cancelled_caught:
            sys.stderr.write(f"rolebook mcp: no answer to roots/list in {ROOTS_TIMEOUT:.0f}s; using --root\n")
    return where.session()


#: How long the server waits for a client that offers roots to list them.
ROOTS_TIMEOUT = 3.0


async def _client_root(ctx: Context[Any, Any]) -> Path | None:
    caps = ctx.client_capabilities
    if caps is None or caps.roots is None or not ctx.session.can_send_request:
        return None  # from 2026-07-28 a server sends no requests: roots cannot be asked for
    try:
        with warnings.catch_warnings():
            # roots are deprecated from protocol 2026-07-28 (SEP-2577), but clients on
            # earlier versions still offer them, and the issue asks us to use them
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            roots = (await ctx.session.list_roots()).roots
    except Exception as exc:  # a client that says it has roots but cannot list them
        sys.stderr.write(f"rolebook mcp: could not list the client's roots ({exc}); using --root\n")
        return None
    for root in roots:
        uri = urlparse(str(root.uri))
        if uri.scheme == "file":
            return find_root(Path(unquote(uri.path)))
    return None


def build(
    root: Path | None = None, scope: str | None = None, session: str | None = None, where: Where | None = None
) -> MCPServer:
    """The rolebook MCP server. `scope`: the one role this server may write to; `where`: where it works
    (shared with the start-up front, which may have answered the first calls)."""
    where = where or Where(root, Writer(check_role(scope) if scope else None, session, "mcp"))

    def who(role: str | None) -> str:
        """The role a tool acts for: the one given, else the server's scope."""
        if role:
            return role
        if scope:
            return scope
        raise ToolError("say which role: pass role (e.g. coder), or start the server with --as ROLE")

    server = MCPServer(name="rolebook", version=__version__, instructions=instructions(scope))
    tool_errors = _errors(ToolError)
    resource_errors = _errors(ResourceError)

    @server.tool(annotations=READ_ONLY)
    @tool_errors
    async def read(
        role: Role = None,
        task: Annotated[str | None, Field(description="What you are about to do: adds relevant memory.")] = None,
        budget: Annotated[int, Field(ge=50, le=20000, description="Token budget of the task hits.")] = 500,
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        """Session start: the role's notebook as it is, then at most 5 alerts (and, with task, relevant memory)."""
        return _result(*tools.read(await _session(where, ctx), who(role), task, budget))

    @server.tool(annotations=WRITES)
    @tool_errors
    async def update(
        role: Role = None,
        mistakes: Annotated[list[str], Field(description="Mistakes, each with what to do instead.")] = [],  # noqa: B006
        learnings: Annotated[list[str], Field(description="Things learned that will save time.")] = [],  # noqa: B006
        feedback: Annotated[list[str], Field(description="Feedback from people, quoted.")] = [],  # noqa: B006
        log: Annotated[list[str], Field(description="What this session did, e.g. 'WQ-12: fixed login'.")] = [],  # noqa: B006
        date: Annotated[str | None, Field(description="YYYY-MM-DD (default: today).")] = None,
        same_as: Annotated[
            str | None,
            Field(
                description="With exactly one mistake: the id of the earlier mistake it is the same as (from "
                "possible_recurrences of an earlier update); counts it with that one."
            ),
        ] = None,
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        """Session end: add entries newest first; the limits prune the oldest to the archive.
        Each added mistake lists the earlier ones it looks like (possible_recurrences): if one
        is the same mistake, call update again with the same mistake, date and same_as."""
        session = await _session(where, ctx)
        day = check_date(date) if date else dt.date.today().isoformat()
        entries = session.entries(day, mistakes=mistakes, learnings=learnings, feedback=feedback, session_log=log)
        recorded = session.end(who(role), entries, [*mistakes, *learnings, *feedback, *log], same_as=same_as)
        kinds = list(recorded.redacted)
        lines = recorded.lines("mcp") + ([f"redacted before writing: {', '.join(kinds)}"] if kinds else [])
        lines += [f"warning: {w}" for w in (*recorded.result.warnings, *recorded.warnings)]
        return _result("\n".join(map(escaped, lines)), recorded.to_dict())

    @server.tool(annotations=READ_ONLY)
    @tool_errors
    async def search(
        query: Annotated[str, Field(description="Words to look for; any text is fine.")],
        role: Annotated[str | None, Field(description="Only this role.")] = None,
        section: Annotated[str | None, Field(description="Only this section or category, e.g. mistakes.")] = None,
        tag: Annotated[str | None, Field(description="Only items with this tag.")] = None,
        status: Annotated[str | None, Field(description="active, archived, promoted, rule or all.")] = None,
        since: Annotated[str | None, Field(description="YYYY-MM-DD.")] = None,
        until: Annotated[str | None, Field(description="YYYY-MM-DD.")] = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 5,
        budget: Annotated[int, Field(ge=50, le=20000, description="Tokens at most.")] = 500,
        root_only: Annotated[bool, Field(description="Only this project, not its shared roots.")] = False,
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        """Search everything the roles remember: one line a hit, `[date] role/section: text #id`
        (`team:role/section` for a hit from a shared root)."""
        session = await _session(where, ctx)
        args = (query, role, section, tag, status, since, until, limit, budget, root_only)
        return _result(*tools.search(session, *args))

    @server.tool(annotations=WRITES)
    @tool_errors
    async def store(
        category: Annotated[str, Field(description="A long-term category, e.g. rejected_designs.")],
        text: Annotated[str, Field(description="The item.")],
        role: Role = None,
        tags: Annotated[list[str], Field(description="Tags.")] = [],  # noqa: B006
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        """Keep an item in long-term memory; an equal item already there is returned instead."""
        role = who(role)
        result = (await _session(where, ctx)).store(role, category, text, tags)
        kinds = redactions(text)
        if result.record is not None:
            note = f" (redacted: {', '.join(kinds)})" if kinds else ""
            return _result(
                f"{role}/{category}: stored #{result.record.id}{note}",
                {"stored": result.record.to_dict(), "duplicate_of": None, "redacted": kinds},
            )
        e = result.existing or {}
        return _result(
            escaped(f"{role}/{category}: already stored [{e.get('date')}] {e.get('text')} #{e.get('id')}"),
            {"stored": None, "duplicate_of": shown_value(e)},
        )

    @server.tool(annotations=WRITES)
    @tool_errors
    async def log(
        type: Annotated[str, Field(description="error, success or pattern.")],
        lesson: Annotated[str, Field(description="What was learned.")],
        role: Role = None,
        context: Annotated[str, Field(description="What was being attempted.")] = "",
        command: Annotated[str, Field(description="The exact command, if any.")] = "",
        outcome: Annotated[str | None, Field(description="k/n: worked k times in n.")] = None,
        tags: Annotated[list[str], Field(description="Keywords.")] = [],  # noqa: B006
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        """Log an experience event; outcomes of one context hash add up to a success rate."""
        role = who(role)
        record = (await _session(where, ctx)).log(role, type, lesson, context, command, outcome, tags)
        kinds = redactions(lesson, context, command)
        note = f" (redacted: {', '.join(kinds)})" if kinds else ""
        return _result(
            f"{role}: logged {type} {record.extra['ctx_hash']} #{record.id}{note}",
            {**record.to_dict(), "redacted": kinds},
        )

    @server.tool(annotations=READ_ONLY)
    @tool_errors
    async def promote_review(
        role: Annotated[str | None, Field(description="Only this role.")] = None,
        min_dates: Annotated[
            int | None, Field(ge=2, le=100, description="Incidents on at least this many dates (default 3).")
        ] = None,
        budget: Annotated[int, Field(ge=50, le=20000, description="Tokens at most in the text.")] = 500,
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        """Mistakes that keep coming back, as proposed rules (the structured content has them all).
        A candidate whose incidents never say what to do instead has no proposed rule
        (needs_text): write one and pass it as promote_apply's text."""
        session = await _session(where, ctx)
        found = session.candidates(role, min_dates)
        rules = [session.rule_report(r) for r in session.rules(role)]
        lines = [
            escaped(f"{c.id} {c.role}: {c.count} incidents on {len(c.dates)} dates -> {_proposed(c)}") for c in found
        ]
        around = {"total": len(found), "rules": shown_value(rules)}
        text, shown = tools.fit(lines, [shown_value(c.to_dict()) for c in found], budget, "candidates", around=around)
        return _result(text or "nothing to promote", {"candidates": shown, **around})

    @server.tool(annotations=WRITES)
    @tool_errors
    async def promote_apply(
        id: Annotated[str, Field(description="A candidate id from promote_review.")],
        text: Annotated[
            str | None,
            Field(description="The rule's wording: an instruction (default: the proposal; required when it has none)."),
        ] = None,
        action: Annotated[
            Literal["promote", "split", "skip"],
            Field(
                description="promote (default); split: its incidents are not one mistake, never group them again; "
                "skip: do not propose it again until a new incident joins it."
            ),
        ] = "promote",
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        """Promote one candidate (a rule line in the rules file; its notebook entries leave as
        promoted), or split or skip it."""
        session = await _session(where, ctx)
        if action != "promote":
            if text is not None:
                raise InputError("text goes with action promote")
            decided = session.split(id) if action == "split" else session.skip(id)
            said = "split: never grouped together again" if action == "split" else "skipped until a new incident"
            return _result(f"{decided.id} {decided.role}: {said}", {action: decided.to_dict()})
        done = session.promote(id, text)
        return _result(
            f"{done.rule.role}: promoted {done.rule.id}: {done.rule.line()}",
            {"rule": done.rule.id, "line": done.rule.line(), "left": done.result.count("promoted")},
        )

    @server.resource("rolebook://notebook/{role}", mime_type="text/markdown")
    @resource_errors
    async def notebook(role: str, ctx: Context[Any, Any]) -> str:
        """A role's notebook, as it is on disk."""
        return (await _session(where, ctx)).start(role).read.data.decode("utf-8", errors="replace")

    @server.resource("rolebook://rules", mime_type="text/markdown")
    @resource_errors
    async def rules() -> str:
        """The rules rolebook manages, one line each (in the client's root once a call has
        resolved it: a static resource gets no context to ask with)."""
        return "".join(r.line() + "\n" for r in (await _session(where, None)).rules())

    @server.prompt()
    def memory_protocol(role: str) -> str:
        """The memory protocol: read at start, search before repeating work, update at the end."""
        return instructions(role)

    return server


def _proposed(candidate: Any) -> str:
    """The rule line a candidate would become, or that the caller must write one."""
    from rolebook.rules import NO_INSTRUCTION

    if candidate.instruction:
        return str(candidate.rule().line())
    return f"(no rule proposed: {NO_INSTRUCTION}; call promote_apply with id and text)"


def run(root: Path | None, scope: str | None, session: str | None) -> None:
    """Serve over stdio with the SDK alone, until the client hangs up (`rolebook mcp`
    answers the handshake first: `front.serve`)."""
    build(root, scope, session).run("stdio")


async def serve_lines(server: MCPServer, stdin: Any, stdout: Any) -> None:
    """Serve one stdio connection over these stream objects as `MCPServer.run("stdio")` serves
    the process's own: `stdin` yields text lines, `stdout` has async write and flush."""
    from mcp.server.stdio import stdio_server

    async with stdio_server(stdin, stdout) as (read, write):
        lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async serves, on our streams
        await lowlevel.run(read, write, lowlevel.create_initialization_options())
