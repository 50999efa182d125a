"""A folder as a rolebook project, for tests that write into a bare temp folder: a write
needs a project and a role the project knows (a typo's new notebook is refused).
Refusing any other new role is tests/agents/test_silent_loss.py's job."""

from __future__ import annotations

from pathlib import Path

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
        for p in sorted((state / folder).iterdir())
    }
