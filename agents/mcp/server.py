"""`rolebook mcp`: rolebook for any agent that speaks MCP, over stdio (DESIGN.md section 8).

Tools are thin over the same library calls the CLI makes: typed parameters, a compact
text result within a token budget, and the same data as structured content. A
RolebookError becomes a ToolError, which the SDK returns as `isError` with our message.
Only this module imports the MCP SDK; stdout carries nothing but the protocol.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import sys
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import IO, Annotated, Any, Literal, ParamSpec, TypeVar
from urllib.parse import unquote, urlparse

import anyio
from mcp import MCPDeprecationWarning
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field
from rolebook import __version__
from rolebook.notebook import InputError, RolebookError
from rolebook.notebook.search import framed
from rolebook.notebook.store import Writer, check_date, check_role, redactions

from ..config import find_root, load_config
from ..session import Session, open_session
from .listing import instructions

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
Role = Annotated[
    str | None, Field(description="The agent role, e.g. coder, designer, qa (default: the server's --as role).")
]
P = ParamSpec("P")
R = TypeVar("R")


def _fit(
    lines: list[str],
    items: list[dict[str, Any]],
    budget: int,
    what: str,
    total: int | None = None,
    around: dict[str, Any] | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """The first n lines as text and the same n items as structured content, n as large as
    lets both together stay within `budget` tokens (characters / 4), counting the last line
    that says what was cut and the structured content `around` the items: Claude Code and
    Codex show the model the structured content, Copilot shows both."""
    total = len(lines) if total is None else total
    note = f"{total} of {total} {what} shown; refine, or raise budget"
    # the note goes into the text and, as "cut", into the structured content
    room = budget * 4 - 2 * (len(note) + 12) - len(json.dumps(around or {}, ensure_ascii=False)) - 2
    n = used = 0
    for line, item in zip(lines, items, strict=True):
        cost = _cost(line, item)
        if used + cost > room:
            break
        n, used = n + 1, used + cost
    shown, kept = lines[:n], items[:n]
    if n == 0 and items and isinstance(items[0].get("text"), str):  # one hit over the whole budget: cut its text
        line, item = lines[0], items[0]
        step = max(1, len(item["text"]) // 20)
        for size in [*range(len(item["text"]) - 1, 20, -step), 20]:
            cut_line, cut_item = (
                line[: len(line) - len(item["text"]) + size] + "…",
                {**item, "text": item["text"][:size] + "…"},
            )
            if _cost(cut_line, cut_item) <= room:
                shown, kept = [cut_line], [cut_item]
                break
    if len(kept) < total:
        said = f"{len(kept)} of {total} {what} shown; refine, or raise budget"
        shown.append(said)
        if around is not None:
            around["cut"] = said
    return "\n".join(shown), kept


def _cost(line: str, item: dict[str, Any]) -> int:
    """Characters a line and its item add to a result: the line in the text, the item in the structured content."""
    return len(line) + 1 + len(json.dumps(item, ensure_ascii=False)) + 2


def _hit(hit: Any) -> dict[str, Any]:
    """A hit as structured content: what its line shows, no copy of its archive record."""
    shown = ("id", "origin", "role", "section", "status", "date", "text", "count", "imported")
    return {k: v for k, v in hit.to_dict().items() if k in shown}


def _framed(
    lines: list[str],
    items: list[dict[str, Any]],
    budget: int,
    around: dict[str, Any],
    title: str,
    total: int | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """`_fit` for hits an agent reads: framed as notes from memory, not orders (a first
    line in the text, `note` in the structured content), within the same budget. Where no
    hit fits beside the frame, none is shown (never one unframed): the result says so."""
    (head,) = framed(["-"], title)[:1]
    with_note = {"note": head, **around}
    text, kept = _fit(lines, items, budget - (len(head) + 4) // 4, "hits", total, with_note)
    if kept:
        around.clear()
        around.update(with_note)
        return f"{head}\n{text}", kept
    return _fit([], [], budget, "hits", len(lines) if total is None else total, around)


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


class _Root:
    """Where the server works: the client's workspace root when it offers one, else
    --root, else the working directory."""

    def __init__(self, root: Path | None, writer: Writer):
        self.root = root
        self.writer = writer
        self.from_client: Path | None = None
        self.asked = False  # the client is asked for its roots once per connection

    async def session(self, ctx: Context[Any, Any] | None) -> Session:
        if not self.asked and ctx is not None:
            self.asked = True  # whatever the answer, or none: remembered
            with anyio.move_on_after(ROOTS_TIMEOUT) as waited:
                self.from_client = await _client_root(ctx)
            if waited.cancelled_caught:
                sys.stderr.write(f"rolebook mcp: no answer to roots/list in {ROOTS_TIMEOUT:.0f}s; using --root\n")
        root = self.from_client or (self.root.absolute() if self.root else find_root())
        return open_session(load_config(root), self.writer)


#: How long the server waits for a client that offers roots to list them.
ROOTS_TIMEOUT = 3.0


async def _client_root(ctx: Context[Any, Any]) -> Path | None:
    caps = ctx.client_capabilities
    if caps is None or caps.roots is None:
        return None
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


def build(root: Path | None = None, scope: str | None = None, session: str | None = None) -> MCPServer:
    """The rolebook MCP server. `scope`: the one role this server may write to."""
    where = _Root(root, Writer(check_role(scope) if scope else None, session, "mcp"))

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
        started = (await where.session(ctx)).start(who(role), task, budget)
        notebook = replace(started, found=None)
        text = notebook.render("mcp").decode("utf-8", errors="replace")  # next steps as MCP tools
        data = notebook.to_dict("mcp")
        if started.found is not None:
            found = started.found
            for warning in found.warnings:
                sys.stderr.write(f"rolebook mcp: warning: {warning}\n")
            lines, items = [h.line() for h in found.hits], [_hit(h) for h in found.hits]
            around: dict[str, Any] = {"query": task, "total": found.total}
            hits_text, hits = _framed(lines, items, budget, around, "memory for this task")
            if hits_text:
                text += f"\n{hits_text}\n"
            data["task"] = {**around, "hits": hits}
        return _result(text, data)

    @server.tool(annotations=WRITES)
    @tool_errors
    async def update(
        role: Role = None,
        mistakes: Annotated[list[str], Field(description="Mistakes, each with what to do instead.")] = [],  # noqa: B006
        learnings: Annotated[list[str], Field(description="Things learned that will save time.")] = [],  # noqa: B006
        feedback: Annotated[list[str], Field(description="Feedback from people, quoted.")] = [],  # noqa: B006
        log: Annotated[list[str], Field(description="What this session did, e.g. 'WQ-12: fixed login'.")] = [],  # noqa: B006
        date: Annotated[str | None, Field(description="YYYY-MM-DD (default: today).")] = None,
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        """Session end: add entries newest first; the limits prune the oldest to the archive."""
        session = await where.session(ctx)
        day = check_date(date) if date else dt.date.today().isoformat()
        entries = session.entries(day, mistakes=mistakes, learnings=learnings, feedback=feedback, session_log=log)
        recorded = session.end(who(role), entries, [*mistakes, *learnings, *feedback, *log])
        kinds = list(recorded.redacted)
        lines = recorded.lines() + ([f"redacted before writing: {', '.join(kinds)}"] if kinds else [])
        lines += [f"warning: {w}" for w in (*recorded.result.warnings, *recorded.warnings)]
        return _result("\n".join(lines), recorded.to_dict())

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
        from rolebook.notebook.search import Query

        q = Query(
            query,
            (check_role(role),) if role else (),
            (section,) if section else (),
            (tag.lower(),) if tag else (),
            (status,) if status else (),
            since,
            until,
            limit,
            mode=None,
        )
        found = (await where.session(ctx)).search(q, root_only=root_only)
        for warning in found.warnings:
            sys.stderr.write(f"rolebook mcp: warning: {warning}\n")
        around: dict[str, Any] = {"query": query, "total": found.total}
        lines, hits = [h.line() for h in found.hits], [_hit(h) for h in found.hits]
        text, hits = _framed(lines, hits, budget, around, "hits for this search", found.total)
        return _result(text or "no match", {**around, "hits": hits})

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
        result = (await where.session(ctx)).store(role, category, text, tags)
        kinds = redactions(text)
        if result.record is not None:
            note = f" (redacted: {', '.join(kinds)})" if kinds else ""
            return _result(
                f"{role}/{category}: stored #{result.record.id}{note}",
                {"stored": result.record.to_dict(), "duplicate_of": None, "redacted": kinds},
            )
        e = result.existing or {}
        return _result(
            f"{role}/{category}: already stored [{e.get('date')}] {e.get('text')} #{e.get('id')}",
            {"stored": None, "duplicate_of": e},
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
        record = (await where.session(ctx)).log(role, type, lesson, context, command, outcome, tags)
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
        """Mistakes that keep coming back, as proposed rules (the structured content has them all)."""
        session = await where.session(ctx)
        found = session.candidates(role, min_dates)
        rules = [session.rule_report(r) for r in session.rules(role)]
        lines = [f"{c.id} {c.role}: {c.count} incidents on {len(c.dates)} dates -> {c.rule().line()}" for c in found]
        around = {"total": len(found), "rules": rules}
        text, shown = _fit(lines, [c.to_dict() for c in found], budget, "candidates", around=around)
        return _result(text or "nothing to promote", {"candidates": shown, **around})

    @server.tool(annotations=WRITES)
    @tool_errors
    async def promote_apply(
        id: Annotated[str, Field(description="A candidate id from promote_review.")],
        text: Annotated[str | None, Field(description="The rule's wording (default: the proposal).")] = None,
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
        session = await where.session(ctx)
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
        return (await where.session(ctx)).start(role).read.data.decode("utf-8", errors="replace")

    @server.resource("rolebook://rules", mime_type="text/markdown")
    @resource_errors
    async def rules() -> str:
        """The rules rolebook manages, one line each (in the client's root once a call has
        resolved it: a static resource gets no context to ask with)."""
        return "".join(r.line() + "\n" for r in (await where.session(None)).rules())

    @server.prompt()
    def memory_protocol(role: str) -> str:
        """The memory protocol: read at start, search before repeating work, update at the end."""
        return instructions(role)

    return server


def run(root: Path | None, scope: str | None, session: str | None) -> None:
    """Serve over stdio with the SDK alone, until the client hangs up (`rolebook mcp`
    answers the handshake first: `front.serve`)."""
    build(root, scope, session).run("stdio")


def serve_streams(server: MCPServer, stdin: IO[str], stdout: Any) -> None:
    """Serve one connection over these text streams (`stdout` needs write and flush)."""
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server(anyio.wrap_file(stdin), anyio.wrap_file(stdout)) as (read, write):
            lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async serves, on our streams
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    anyio.run(main)
