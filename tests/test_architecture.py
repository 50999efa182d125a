"""Layers point down only: agents -> rules -> notebook; the read path stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
LAYERS = {"notebook": set(), "rules": {"notebook"}, "agents": {"rules", "notebook"}}


def imported_layers(path: Path, layer: str) -> set[str]:
    found = set()
    depth = len(path.relative_to(PROJECT / layer).parts) - 1  # subpackages below the layer's own
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if node.level == 0 else ([layer] if node.level - 1 <= depth else ["?up"])
        for name in names:
            parts = name.split(".")
            if parts[0] == "rolebook" and len(parts) > 1:
                found.add(parts[1])
            elif parts[0] == "?up":
                found.add("?up")
    return found - {layer}


def test_layers_only_import_downwards() -> None:
    for layer, allowed in LAYERS.items():
        for path in (PROJECT / layer).rglob("*.py"):
            if "_rolebook" in path.parts:
                continue
            assert imported_layers(path, layer) <= allowed, f"{path.relative_to(PROJECT)} imports upwards"


def test_read_path_imports_neither_typer_nor_markdown_it_nor_mcp(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(tmp_path), "update", "coder", "-l", "a fact"],
        check=True,
        capture_output=True,
    )
    code = (
        "import sys\n"
        "from rolebook.agents.main import main\n"
        f"main(['--root', {str(tmp_path)!r}, 'read', 'coder'])\n"
        "heavy = [m for m in ('typer', 'markdown_it', 'mcp', 'frontmatter', 'sqlite3') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "- [" in out and "a fact" in out
    assert out.splitlines()[-1] == "[]"


def test_only_rolebook_mcp_imports_the_mcp_sdk(tmp_path: Path) -> None:
    for argv in (["update", "coder", "-l", "x"], ["search", "x"], ["promote", "--json"], ["doctor"]):
        code = (
            "import sys\n"
            "from rolebook.agents.main import main\n"
            f"main(['--root', {str(tmp_path)!r}, *{argv!r}])\n"
            "print('mcp' in sys.modules)\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.splitlines()[-1] == "False", argv
