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


def loaded_after(root: Path, argv: list[str], modules: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(what `rolebook ARGV` printed, which of `modules` it imported), in a fresh interpreter."""
    code = (
        "import sys\n"
        "from rolebook.agents.main import main\n"
        f"main(['--root', {str(root)!r}, *{argv!r}])\n"
        f"print([m for m in {modules!r} if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    return out[:-1], ast.literal_eval(out[-1])


def test_read_path_imports_neither_typer_nor_markdown_it_nor_mcp(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(tmp_path), "update", "coder", "-l", "a fact"],
        check=True,
        capture_output=True,
    )
    printed, heavy = loaded_after(
        tmp_path, ["read", "coder"], ("typer", "markdown_it", "mcp", "frontmatter", "sqlite3", "hashlib")
    )
    assert any("- [" in line and "a fact" in line for line in printed)
    assert heavy == []


def test_update_path_imports_neither_typer_nor_mcp(tmp_path: Path) -> None:
    argv = ["update", "coder", "-m", "x; y", "--log", "z", "--date=2026-01-02"]
    # nor markdown-it, for a notebook of plain headings and items (notebook/markdown.simple_blocks)
    printed, heavy = loaded_after(tmp_path, argv, ("typer", "click", "mcp", "markdown_it"))
    assert (printed, heavy) == (["coder: +2 entries, 11/80 lines"], [])


def test_the_recall_hook_imports_neither_typer_nor_the_write_path(tmp_path: Path) -> None:
    rb = [sys.executable, "-m", "rolebook", "--root", str(tmp_path)]
    subprocess.run([*rb, "update", "coder", "-m", "npm ci failed with EACCES; chown"], check=True, capture_output=True)
    code = (
        "import sys\n"
        "from rolebook.agents.main import main\n"
        f"main(['--root', {str(tmp_path)!r}, 'recall', '--role', 'coder', '--command', 'npm', '--error', 'EACCES'])\n"
        "heavy = ('typer', 'markdown_it', 'mcp', 'hashlib', 'rolebook.notebook.journal')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input="", capture_output=True, text=True, check=True).stdout
    assert "EACCES" in out and out.splitlines()[-1] == "[]"


def test_only_rolebook_mcp_imports_the_mcp_sdk(tmp_path: Path) -> None:
    for argv in (["update", "coder", "-l", "x"], ["search", "x"], ["promote", "--json"], ["doctor"]):
        assert loaded_after(tmp_path, argv, ("mcp",))[1] == [], argv


def _modules(layer: str) -> dict[str, Path]:
    """Module name -> file, for every module of a layer."""
    out = {}
    for path in (PROJECT / layer).rglob("*.py"):
        if "_rolebook" in path.parts:
            continue
        parts = path.relative_to(PROJECT / layer).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        out[".".join(("rolebook", layer, *parts))] = path
    return out


def test_upper_layers_import_lower_ones_through_the_package_and_only_what_it_declares() -> None:
    import importlib

    for lower, uppers in (("notebook", ("rules", "agents")), ("rules", ("agents",))):
        declared = set(importlib.import_module(f"rolebook.{lower}").__all__)
        used: set[str] = set()
        for upper in uppers:
            for path in _modules(upper).values():
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(f"rolebook.{lower}"):
                        assert node.module == f"rolebook.{lower}", f"{path.name} imports {node.module}"
                        modules = set(_modules(lower))
                        used |= {a.name for a in node.names if f"rolebook.{lower}.{a.name}" not in modules}
        assert used == declared, f"rolebook.{lower}.__all__ is not what the layers above import"


def test_no_module_imports_itself_back_through_others() -> None:
    graph: dict[str, set[str]] = {}
    modules = {**_modules("notebook"), **_modules("rules"), **_modules("agents")}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(
                        package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                    )
                for a in node.names:
                    target = f"{base}.{a.name}"
                    edges.add(target if target in modules else base)
        graph[name] = {e for e in edges if e in modules and e != name and not name.startswith(e + ".")}
    seen: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph[node]):
            if not nxt.endswith(("rolebook.notebook", "rolebook.rules", "rolebook.agents")):
                assert seen.get(nxt) != 1, "import cycle: " + " -> ".join([*stack, node, nxt])
                if nxt not in seen:
                    visit(nxt, [*stack, node])
        seen[node] = 2

    for name in sorted(graph):
        if name not in seen:
            visit(name, [])
