"""Rooms point down only (DESIGN.md section 13), through their faces; modules and rooms stay
small; the read path stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent

#: The rooms, lowest first: each may import only the rooms listed before it (and itself).
#: A room is a folder of modules (its subfolders are rooms of their own when listed).
ROOMS = (
    ("notebook", "notebook"),  # the notebook model: pure
    ("notebook.store", "notebook/store"),  # the canonical files and the one write path
    ("notebook.search", "notebook/search"),  # the derived index's questions, ranking, the encoder
    ("rules", "rules"),
    ("agents", "agents"),
)
#: What an upper room may import of a lower one: its face (the package, and only what its
#: `__all__` declares) or, for the model, its modules.
FACES = ("notebook.store", "notebook.search", "rules")
MAX_LINES = 450
MAX_MODULES = 12


def _room_of(module: str) -> int:
    """The index in ROOMS of the room a dotted module name (under rolebook.) is in."""
    best = -1
    for i, (name, _) in enumerate(ROOMS):
        inside = module == name or module.startswith(name + ".")
        if inside and (best < 0 or len(name) > len(ROOMS[best][0])):
            best = i
    return best


def _modules() -> dict[str, Path]:
    """rolebook.X module name -> file, for every module of the three code folders."""
    out = {}
    for top in ("notebook", "rules", "agents"):
        for path in (PROJECT / top).rglob("*.py"):
            if "_rolebook" in path.parts:
                continue
            parts = path.relative_to(PROJECT).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path) -> list[tuple[str, list[str]]]:
    """(module imported, names imported from it) for each import of a module, relative
    imports resolved (names without `rolebook.`)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name.removeprefix("rolebook."), []) for a in node.names if a.name.startswith("rolebook.")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("rolebook."):
                target = (node.module or "").removeprefix("rolebook.")
            else:
                continue
            out.append((target, [a.name for a in node.names]))
    return out


def test_rooms_only_import_downwards() -> None:
    modules = _modules()
    for name, path in modules.items():
        mine = _room_of(name)
        for target, _ in _imports(name, path):
            assert _room_of(target) <= mine, f"{name} imports {target}, a room above it"


def test_upper_rooms_import_lower_ones_through_their_faces_and_only_what_they_declare() -> None:
    import importlib

    modules = _modules()
    used: dict[str, set[str]] = {face: set() for face in FACES}
    for name, path in modules.items():
        mine = _room_of(name)
        for target, names in _imports(name, path):
            theirs = _room_of(target)
            if theirs == mine or theirs < 0:
                continue
            room = ROOMS[theirs][0]
            if room == "notebook":
                public = set(importlib.import_module("rolebook.notebook").__all__)
                if target == "notebook":  # its modules by name, or its public API
                    named = {n for n in names if f"notebook.{n}" not in modules}
                    assert named <= public, f"{name} imports {named - public} from rolebook.notebook"
                continue  # the model's modules may be imported by name
            assert target == room, f"{name} imports {target}: import `rolebook.{room}` instead"
            used[room] |= {n for n in names if f"{room}.{n}" not in modules}
    for face in FACES:
        declared = set(importlib.import_module(f"rolebook.{face}").__all__)
        assert used[face] == declared, f"rolebook.{face}.__all__ is not what the rooms above import"
        # a submodule of that name, once imported, would shadow the name on the package
        assert not {n for n in declared if f"{face}.{n}" in modules}, f"rolebook.{face} exports a module's name"


def test_the_public_api_of_the_notebook_is_short_and_importable() -> None:
    import importlib

    notebook = importlib.import_module("rolebook.notebook")
    assert len(notebook.__all__) <= 20
    for name in notebook.__all__:
        assert getattr(notebook, name) is not None


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


def project(root: Path) -> Path:
    """A rolebook project with no role yet (what `init` makes, without its files)."""
    (root / "agents/state/memory").mkdir(parents=True)
    return root


def test_read_path_imports_neither_typer_nor_markdown_it_nor_mcp(tmp_path: Path) -> None:
    project(tmp_path)
    subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(tmp_path), "update", "coder", "--new-role", "-l", "a fact"],
        check=True,
        capture_output=True,
    )
    printed, heavy = loaded_after(
        tmp_path, ["read", "coder"], ("typer", "markdown_it", "mcp", "frontmatter", "sqlite3", "hashlib")
    )
    assert any("- [" in line and "a fact" in line for line in printed)
    assert heavy == []


def test_update_path_imports_neither_typer_nor_mcp(tmp_path: Path) -> None:
    project(tmp_path)
    argv = ["update", "coder", "--new-role", "-m", "x; y", "--log", "z", "--date=2026-01-02"]  # a new role: fast too
    # nor markdown-it, for a notebook of plain headings and items (notebook/markdown.simple_blocks)
    printed, heavy = loaded_after(tmp_path, argv, ("typer", "click", "mcp", "markdown_it"))
    assert (printed, heavy) == (["coder: +2 entries, 11/80 lines"], [])


def test_the_recall_hook_imports_neither_typer_nor_the_write_path(tmp_path: Path) -> None:
    rb = [sys.executable, "-m", "rolebook", "--root", str(project(tmp_path))]
    subprocess.run(
        [*rb, "update", "coder", "--new-role", "-m", "npm ci failed with EACCES; chown"],
        check=True,
        capture_output=True,
    )
    code = (
        "import sys\n"
        "from rolebook.agents.main import main\n"
        f"main(['--root', {str(tmp_path)!r}, 'recall', '--role', 'coder', '--command', 'npm', '--error', 'EACCES'])\n"
        "heavy = ('typer', 'markdown_it', 'mcp', 'hashlib', 'rolebook.notebook.store.journal', 'socket', 'threading')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input="", capture_output=True, text=True, check=True).stdout
    assert "EACCES" in out and out.splitlines()[-1] == "[]"


@pytest.mark.parametrize(
    "argv",
    [
        ["read", "coder"],
        ["read", "coder", "--task", "npm"],
        ["update", "coder", "-l", "x"],
        ["search", "npm"],
        ["recall", "--role", "coder", "--command", "npm", "--error", "EACCES"],
        ["hook", "session-start", "--role", "coder"],
        ["hook", "stop", "--role", "coder"],
    ],
)
def test_the_hot_commands_start_without_typer_or_click(tmp_path: Path, argv: list[str]) -> None:
    code = (
        "import sys\n"
        "from rolebook.agents.main import main\n"
        f"main(['--root', {str(tmp_path)!r}, *{argv!r}])\n"
        "print([m for m in sys.modules if m.split('.')[0] in ('typer', 'click', 'rich')])\n"
    )
    stdin = '{"session_id": "s1"}'
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]", done.stderr


def test_only_rolebook_mcp_imports_the_mcp_sdk(tmp_path: Path) -> None:
    for argv in (["update", "coder", "-l", "x"], ["search", "x"], ["promote", "--json"], ["doctor"]):
        assert loaded_after(tmp_path, argv, ("mcp",))[1] == [], argv


def test_no_module_imports_itself_back_through_others() -> None:
    graph: dict[str, set[str]] = {}
    modules = _modules()
    for name, path in modules.items():
        edges = set()
        for base, names in _imports(name, path):
            edges |= {f"{base}.{n}" if f"{base}.{n}" in modules else base for n in names} or {base}
        graph[name] = {e for e in edges if e in modules and e != name and not name.startswith(e + ".")}
    seen: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph[node]):
            if nxt not in ("notebook", "rules", "agents", *FACES):
                assert seen.get(nxt) != 1, "import cycle: " + " -> ".join([*stack, node, nxt])
                if nxt not in seen:
                    visit(nxt, [*stack, node])
        seen[node] = 2

    for name in sorted(graph):
        if name not in seen:
            visit(name, [])


def test_no_module_is_over_450_lines_and_no_room_holds_more_than_a_dozen() -> None:
    for path in _modules().values():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= MAX_LINES, f"{path.relative_to(PROJECT)} has {lines} lines"
    for folder in {p.parent for p in _modules().values()}:
        count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
        assert count <= MAX_MODULES, f"{folder.relative_to(PROJECT)} holds {count} modules"
