"""A folder as a rolebook project, for tests that write into a bare temp folder: a write
needs a project and a role the project knows (a typo's new notebook is refused).
Refusing any other new role is tests/agents/test_silent_loss.py's job."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: The roles the tests write to, declared as a project declares them (`roles:` in rolebook.yaml).
DECLARED = "roles: [coder, designer, qa, ops, devops, reviewer, tester, writer]\n"


def project(root: Path) -> Path:
    """`root`, made a project whose roles are declared unless it is one already."""
    if not (root / "rolebook.yaml").exists() and not (root / "agents").exists():
        root.mkdir(parents=True, exist_ok=True)
        (root / "rolebook.yaml").write_text(DECLARED, encoding="utf-8")
    return root


def canonical(root: Path) -> dict[str, bytes]:
    """Every canonical file of a root (notebooks and archives), by relative path: what a
    refused write must leave byte for byte."""
    state = root / "agents" / "state"
    return {
        str(p.relative_to(root)): p.read_bytes()
        for folder in ("memory", "archive")
        if (state / folder).exists()
        for p in sorted((state / folder).rglob("*"))
        if p.is_file()
    }


def remember(root: Path, lessons: list[dict[str, Any]], settings: str = "") -> dict[str, str]:
    """A labelled set's lessons (`{id, role, section, date, text}`, tests/fixtures/failures)
    written into `root` through the one write path, one session end per role, oldest
    first, their roles declared (with `settings`, more of rolebook.yaml). Returns record id
    -> lesson id."""
    from rolebook.agents.config import load_config
    from rolebook.agents.session import open_session

    roles = sorted({x["role"] for x in lessons} | {"coder"})
    (root / "rolebook.yaml").write_text(f"roles: [{', '.join(roles)}]\n{settings}", encoding="utf-8")
    session = open_session(load_config(root))
    by_role: dict[str, list[Any]] = {}
    for lesson in sorted(lessons, key=lambda x: (x["date"], x["id"])):
        entries = session.entries(lesson["date"], **{lesson["section"]: [lesson["text"]]})
        by_role.setdefault(lesson["role"], []).extend(entries)
    for role, entries in by_role.items():
        session.end(role, entries)
    by_text = {" ".join(x["text"].split()): x["id"] for x in lessons}
    ids = {}
    for archive in (root / "agents/state/archive").glob("*.jsonl"):
        for line in archive.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            ids[record["id"]] = by_text.get(" ".join(record["text"].split()), "?")
    return ids


def wait_for_socket(derived: Path, seconds: float = 120.0) -> Path:
    """The socket of the lender of the project whose derived folder this is, once it listens."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = list(derived.glob("meaning-*.sock"))
        if found:
            return found[0]
        time.sleep(0.2)
    raise AssertionError(f"no lender's socket in {derived} after {seconds} s")


#: An MCP client's first request (what `rolebook mcp` answers before it lends its model).
INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        }
    )
    + "\n"
).encode("utf-8")


@contextlib.contextmanager
def lending(rolebook: str, root: Path) -> Iterator[Path]:
    """`rolebook mcp` running for the project at `root` (the installed command `rolebook`),
    from the moment it lends its model to the recall hook (its socket's path) to its end."""
    server = subprocess.Popen(
        [rolebook, "--root", str(root), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # it lends once it has answered a client's first request, as every client makes one
        assert server.stdin is not None
        server.stdin.write(INITIALIZE)
        server.stdin.flush()
        yield wait_for_socket(root / "agents" / "state" / ".rolebook")
    finally:
        assert server.stdin is not None
        server.stdin.close()  # end of input: the server exits
        server.wait(timeout=60)
