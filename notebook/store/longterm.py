"""Long-term memory that never was a notebook entry: stored items and logged events.

`store` keeps an item in a free category (cerebro's `rejected_designs`, say), refusing a
duplicate of one already there. `log` keeps a structured experience event (agent-knowledge's
fields) with an X-MEM context hash `tool-action-pattern`; repeated outcomes of one hash
add up, by appending, to the success rate that search ranking uses.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..model import SECTIONS, entry_id, is_role
from .archive import ArchiveRecord
from .index import Index
from .layout import Layout, check_role
from .secrets import refuse_secret

if TYPE_CHECKING:  # the write path is imported by the writes: `recall` needs only `derive_ctx_hash`
    from .journal import Recorder, Writer

EVENT_TYPES = ("error", "success", "pattern")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9._+]*")
_WRAPPERS = {"sudo", "env", "npx", "bunx", "pnpx", "time", "nohup", "exec", "command", "then", "do"}
_NOISE = {
    "a",
    "an",
    "the",
    "and",
    "or",
    "with",
    "when",
    "while",
    "on",
    "in",
    "of",
    "to",
    "for",
    "at",
    "by",
    "from",
    "failed",
    "fails",
    "fail",
    "failing",
    "failure",
    "error",
    "errors",
    "err",
    "because",
    "after",
    "during",
    "is",
    "was",
    "not",
    "no",
    "got",
    "it",
    "its",
    "this",
    "that",
}


@dataclass(frozen=True, slots=True)
class StoreResult:
    """The stored record, or the item already there (and nothing written)."""

    record: ArchiveRecord | None
    existing: dict[str, str] | None = None


def check_category(category: str) -> str:
    """Raises InputError for a category that is not `[a-z0-9][a-z0-9_-]{0,63}` or names a section."""
    if not is_role(category):
        raise InputError(
            f"invalid category {category!r}: use lowercase letters, digits, '-' or '_' (e.g. rejected_designs)"
        )
    if category in SECTIONS:
        raise InputError(f"{category!r} is a notebook section: use `rolebook update` for notebook entries")
    return refuse_secret(category, "category")


def check_tags(tags: list[str]) -> tuple[str, ...]:
    """Tags, lowercased, each once.

    Raises:
        InputError: a tag of other characters, over 40 of them, or shaped like a secret.
    """
    out = []
    for raw in tags:
        for piece in raw.split(","):
            tag = refuse_secret(piece.strip(), "tag").lower()
            if tag and not re.fullmatch(r"[\w.+-]{1,40}", tag):
                raise InputError(f"invalid tag {tag!r}: letters, digits, '.', '+', '-', '_' (up to 40)")
            if tag and tag not in out:
                out.append(tag)
    return tuple(out)


def store(
    layout: Layout,
    role: str,
    category: str,
    text: str,
    tags: list[str],
    writer: Writer,
    date: str | None = None,
    same: Callable[[str, str], bool] | None = None,
    fields: dict[str, Any] | None = None,
) -> StoreResult:
    """Keep `text` in the role's long-term `category` unless an equal item is there
    (or, with `same`, one that says the same: the semantic extra's dedup). `fields` go
    on its record (the code it cites, a flag).

    Raises:
        InputError: a bad role, category, tag, date, or text.
    """
    from .intake import check_date, check_text
    from .journal import append

    check_role(role)
    check_category(category)
    body = check_text(text)
    day = check_date(date) if date else dt.date.today().isoformat()
    tagged = check_tags(tags)
    rid = entry_id(role, f"store/{category}", "", body)
    found: dict[str, str] = {}

    def build(index: Index, record: Recorder) -> list[ArchiveRecord]:
        state = index.states([rid]).get(rid)
        if state is not None and state.op == "stored":
            found.update(id=state.id, date=state.date, text=state.text, category=state.section)
            return []
        if same is not None:  # what `store` compares a new item with: the category's newest 200
            for oid, odate, otext, _ in index.newest(role, category, 200):
                if same(body, otext):
                    found.update(id=oid, date=odate, text=otext, category=category)
                    return []
        return [record.record("stored", rid, category, day, body, tagged, category=category, **(fields or {}))]

    records = append(layout, role, writer, build)
    return StoreResult(records[0] if records else None, found or None)


def parse_outcome(value: str) -> tuple[int, int]:
    """`k/n`: k successes in n tries. Raises InputError otherwise."""
    match = re.fullmatch(r"\s*(\d{1,6})\s*/\s*(\d{1,6})\s*", value)
    if not match or int(match.group(2)) == 0 or int(match.group(1)) > int(match.group(2)):
        raise InputError(f"outcome {value!r} is not k/n with 0 <= k <= n and n >= 1, e.g. 9/10")
    return int(match.group(1)), int(match.group(2))


def derive_ctx_hash(context: str, error: str = "") -> str:
    """An X-MEM context hash `tool-action-pattern`: the tool and action named first in
    `context` (a context line or a command), the pattern from `error` when given, else
    from the rest of `context`.

    `npm install failed with EACCES` -> `npm-install-eacces`.
    """
    words = _words(context)
    head = words[:2]
    rest = _words(error) if error.strip() else words[2:]
    tail = [w for w in rest if w not in _NOISE and not w.isdigit() and w not in head][:3]
    return "-".join(head + tail)[:120] or "unknown"


def _words(text: str) -> list[str]:
    out: list[str] = []
    for word in text.lower().split():
        if word.startswith(("-", "$")) or "=" in word:
            continue  # flags, variables and assignments say nothing of the context
        for token in _TOKEN.findall(word):
            token = re.sub(r"[^a-z0-9]+", "", token.split("/")[-1])
            if token and token not in _WRAPPERS and token not in out:
                out.append(token)
    return out


def log_event(
    layout: Layout,
    role: str,
    *,
    event_type: str,
    lesson: str,
    context: str = "",
    command: str = "",
    outcome: str | None = None,
    tags: list[str] | None = None,
    ctx_hash: str | None = None,
    writer: Writer,
    date: str | None = None,
) -> ArchiveRecord:
    """Append one experience event. Raises InputError on bad fields."""
    from .intake import check_date, check_text
    from .journal import append

    check_role(role)
    if event_type not in EVENT_TYPES:
        raise InputError(f"event type {event_type!r} is not one of {', '.join(EVENT_TYPES)}")
    body = check_text(lesson)
    extra: dict[str, object] = {"type": event_type}
    for name, value in (("context", context), ("command", command)):
        if value.strip():
            extra[name] = check_text(value)
    if outcome is None and event_type != "pattern":
        outcome = "1/1" if event_type == "success" else "0/1"
    if outcome is not None:
        k, n = parse_outcome(outcome)
        extra["outcome"] = f"{k}/{n}"
    if ctx_hash is not None and not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,119}", ctx_hash):
        raise InputError(f"ctx_hash {ctx_hash!r} must look like tool-action-pattern (a-z, 0-9, '-')")
    # from the redacted texts: a hash of the raw context would carry its secret on
    extra["ctx_hash"] = refuse_secret(
        ctx_hash or derive_ctx_hash(str(extra.get("context") or extra.get("command") or body)), "context hash"
    )
    day = check_date(date) if date else dt.date.today().isoformat()
    rid = entry_id(role, f"logged/{extra['ctx_hash']}", "", body)
    tagged = check_tags(tags or [])

    def build(index: Index, record: Recorder) -> list[ArchiveRecord]:
        return [record.record("logged", rid, event_type, day, body, tagged, **extra)]

    return append(layout, role, writer, build)[0]


@dataclass(frozen=True, slots=True)
class Keep:
    """A record to keep in an archive as it is (an imported item): `op` stored or logged."""

    op: str
    id: str
    section: str
    date: str
    text: str
    tags: tuple[str, ...] = ()
    fields: Mapping[str, Any] = field(default_factory=dict)


def keep(layout: Layout, role: str, items: Sequence[Keep], writer: Writer) -> tuple[list[ArchiveRecord], int]:
    """Append, in one write, the items whose id the archive does not hold yet.

    Returns the records appended and how many items were already there (or twice in `items`).
    """
    from .journal import append

    already = 0

    def build(index: Index, record: Recorder) -> list[ArchiveRecord]:
        nonlocal already
        states = index.states({i.id for i in items})
        fresh: dict[str, Keep] = {}
        for i in items:
            if i.id in states or i.id in fresh:
                already += 1
            else:
                fresh[i.id] = i
        return [record.record(i.op, i.id, i.section, i.date, i.text, i.tags, **i.fields) for i in fresh.values()]

    return append(layout, role, writer, build), already


def known(layout: Layout, role: str, ids: Iterable[str]) -> set[str]:
    """Which of `ids` the role's archive or notebook already holds (for a dry run: writes nothing canonical)."""
    from ..markdown import parse

    wanted = set(ids)
    with Index(layout) as index:
        index.sync(role)
        found = set(index.states(wanted))
    path = layout.notebook_path(role)
    if path.exists():
        from .fsutil import read_file

        text = read_file(path, layout.root).decode("utf-8", errors="replace")
        found |= {e.id(role) for e in parse(text).entries()} & wanted
    return found
