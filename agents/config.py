"""rolebook.yaml and root discovery (DESIGN.md section 2).

The root is the nearest ancestor of the working directory holding `rolebook.yaml`,
else the nearest holding `agents/state/`, else the nearest holding `.git`, else the
working directory; the search stops at the enclosing git work tree. `--root` or
ROLEBOOK_ROOT name it outright.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rolebook.notebook import ConfigError, InputError, Limits
from rolebook.notebook.limits import PLAIN, not_plain_whole
from rolebook.notebook.limits import key_line as _line
from rolebook.notebook.model import is_role
from rolebook.notebook.store import Layout

CONFIG_NAME = "rolebook.yaml"
_KNOWN = set("version paths rules_file limits search promote shared_roots instructions roles recall".split())
_PATHS = {"memory", "archive", "derived", "protocol"}
_MODES = ("keyword", "semantic", "hybrid")

DEFAULT_CONFIG = """\
# rolebook configuration. Paths are relative to this file's folder.
version: 1
paths:
  memory: agents/state/memory        # notebooks: <role>.md
  archive: agents/state/archive      # archives: <role>.jsonl (append-only)
  derived: agents/state/.rolebook    # index, caches, locks: safe to delete
  protocol: agents/state/PROTOCOL.md
rules_file: CLAUDE.md                # where promoted rules go (or AGENTS.md)
limits:                              # a notebook's frontmatter may override these
  lines: 80
  mistakes: 20
  learnings: 20
  feedback: null                     # null: never pruned
  session_log: 15
# search:                            # with pip install 'rolebook[semantic]'
#   model: all-MiniLM-L6-v2          # a model name or a local folder (or ROLEBOOK_MODEL)
#   mode: hybrid                     # keyword, semantic or hybrid (or ROLEBOOK_SEARCH_MODE)
"""


@dataclass(frozen=True, slots=True)
class Config:
    """A root's settings, with every path resolved."""

    root: Path
    layout: Layout
    limits: Limits
    rules_file: Path
    protocol: Path
    source: Path | None = None
    model: str | None = None  # search.model: a sentence-transformers model name or folder
    mode: str | None = None  # search.mode: keyword, semantic or hybrid (default: hybrid if the extra works)
    min_dates: int = 3  # promote.min_dates: a mistake on this many dates is due for promotion
    shared_roots: tuple[SharedRoot, ...] = ()
    # more instructions files whose lost lines `read` checks the notebook against (drift)
    instructions: tuple[Path, ...] = ()
    roles: tuple[str, ...] | None = None  # `roles:` the roles a write may create (None: no such key)
    # recall.control: the share of recognised failures whose lesson is withheld, on purpose
    # and recorded, so that a team sees what showing it changes (DESIGN.md section 6b)
    control: float = 0.0


@dataclass(frozen=True, slots=True)
class SharedRoot:
    """A rolebook root shared by several repositories (`shared_roots` in rolebook.yaml)."""

    name: str
    path: Path
    share: tuple[str, ...] = ()  # what every update also shares there: () or ("mistakes",)


def find_root(start: Path | None = None) -> Path:
    """The root for a working directory (see the module docstring).

    The search never leaves the enclosing git work tree: a repository is a project
    boundary, so a rolebook.yaml in a parent folder (your home, say) cannot capture it.
    Nor does it go up into a folder named in ROLEBOOK_CEILING (os.pathsep-separated,
    like GIT_CEILING_DIRECTORIES), for folders outside any repository.
    """
    env = os.environ.get("ROLEBOOK_ROOT")
    if start is None and env:
        return Path(env).absolute()
    here = (start or Path.cwd()).absolute()
    ceilings = {Path(p).absolute() for p in os.environ.get("ROLEBOOK_CEILING", "").split(os.pathsep) if p}
    chain = [here]
    for folder in here.parents:
        if (chain[-1] / ".git").exists() or folder in ceilings:
            break
        chain.append(folder)
    for marker in (CONFIG_NAME, "agents/state", ".git"):
        for folder in chain:
            if (folder / marker).exists():
                return folder
    return here


def load_config(root: Path) -> Config:
    """The config of `root`: its rolebook.yaml over the defaults.

    What ruamel.yaml read of it is kept in the derived folder (`config.json`), with the
    text it was read from, so that a command started again does not import the YAML
    parser (about a bare interpreter start-up) to read an unchanged file. The cache is
    derived: kept only in the default derived folder (it is found before the config is
    read), rewritten when the text differs, ignored when unreadable or not its shape,
    never written where the folder cannot be.

    Raises:
        ConfigError: rolebook.yaml is unreadable, not YAML, or holds a bad setting.
    """
    path = root / CONFIG_NAME
    from rolebook.notebook.store import read_file

    try:  # a pipe planted as rolebook.yaml would hang every command; a link out is not read
        text = read_file(path, root).decode("utf-8")
    except FileNotFoundError:
        return _build(root, {}, None)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", path) from None
    except InputError as exc:
        raise ConfigError(exc.message, path) from None
    cache = Layout.default(root).derived / CONFIG_CACHE
    data = _cached(cache, path, text)
    if data is not None:
        try:
            return _build(root, data, path)
        except ConfigError:
            pass  # the cache holds no lines: read the file again, so the error names one
    parsed = _parse_yaml(text, path)
    config = _build(root, parsed, path)
    if config.layout.derived == cache.parent:
        _keep(cache, path, text, parsed)
    return config


CONFIG_CACHE = "config.json"


def _cached(cache: Path, path: Path, text: str) -> Mapping[str, Any] | None:
    """The settings kept for exactly this text of this file, or None."""
    import json

    try:
        kept = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("path") != str(path) or kept.get("text") != text:
        return None
    data = kept.get("data")
    return data if isinstance(data, dict) else None


def _keep(cache: Path, path: Path, text: str, data: Mapping[str, Any]) -> None:
    """Keep what was read of `text`, when it is plain data (no dates, tags...), and when
    the derived folder can be written: a read-only checkout just reads the file each time."""
    import contextlib
    import json
    import os

    try:
        plain = _plain(data)
    except TypeError:
        return
    tmp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"path": str(path), "text": text, "data": plain}), encoding="utf-8")
        os.replace(tmp, cache)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _plain(value: Any) -> Any:
    """`value` in JSON's types (dict, list, str, int, float, bool, None), as it reads.

    Raises:
        TypeError: it holds anything else (a date, a key that is not a string).
    """
    from ruamel.yaml.scalarbool import ScalarBoolean

    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, ScalarBoolean):  # an int subclass, as ruamel keeps an anchored bool
        return bool(value)
    for kind in (str, int, float):
        if isinstance(value, kind):
            return kind(value)
    if isinstance(value, Mapping) and all(isinstance(key, str) for key in value):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    raise TypeError(f"not plain data: {type(value).__name__}")


def _parse_yaml(text: str, path: Path) -> Mapping[str, Any]:
    from rolebook.notebook.settings import load_yaml

    data = load_yaml(text, path)
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError("must be a YAML mapping of settings", path, 1)
    return data


def _build(root: Path, data: Mapping[str, Any], source: Path | None) -> Config:
    for key in data:
        if key not in _KNOWN:
            raise ConfigError(f"unknown setting {key!r} (known: {', '.join(sorted(_KNOWN))})", source, _line(data, key))
    paths = data.get("paths") or {}
    if not isinstance(paths, Mapping):
        raise ConfigError("'paths' must be a mapping", source, _line(data, "paths"))
    for key, value in paths.items():
        if key not in _PATHS:
            raise ConfigError(f"unknown path {key!r} (known: {', '.join(sorted(_PATHS))})", source, _line(paths, key))
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"path {key!r} must be a non-empty string", source, _line(paths, key))
    for key, value in paths.items():
        _inside(root, value, f"path {key!r}", source, _line(paths, key))
    default = Layout.default(root)
    layout = Layout(
        root,
        root / paths.get("memory", default.memory.relative_to(root)),
        root / paths.get("archive", default.archive.relative_to(root)),
        root / paths.get("derived", default.derived.relative_to(root)),
    )
    _derived_inside(layout, source, _line(paths, "derived") if "derived" in paths else None)
    rules = data.get("rules_file", "CLAUDE.md")
    if not isinstance(rules, str) or not rules.strip():
        raise ConfigError("'rules_file' must be a file name such as CLAUDE.md", source, _line(data, "rules_file"))
    _inside(root, rules, "'rules_file'", source, _line(data, "rules_file"))
    limits = Limits().merged(data.get("limits"), str(source) if source else None, _line(data, "limits"))
    protocol = root / paths.get("protocol", "agents/state/PROTOCOL.md")
    model, mode = _search(data.get("search"), source, _line(data, "search"), root)
    version = data.get("version", 1)
    if version != 1:
        raise ConfigError(f"'version' is {version!r}: this rolebook reads version 1", source, _line(data, "version"))
    min_dates = _promote(data.get("promote"), source, _line(data, "promote"))
    shared = _shared_roots(data.get("shared_roots"), source, _line(data, "shared_roots"), root)
    told = _instructions(data.get("instructions"), source, _line(data, "instructions"), root)
    roles = _roles(data.get("roles"), source, _line(data, "roles")) if "roles" in data else None
    control = _recall(data.get("recall"), source, _line(data, "recall"))
    return Config(
        root, layout, limits, root / rules, protocol, source, model, mode, min_dates, shared, told, roles, control
    )


def _roles(value: Any, source: Path | None, line: int | None) -> tuple[str, ...]:
    """`roles: [coder, designer]`: the roles of this project; a write may create their
    notebooks (any other new role needs `init ROLE` or `--new-role`)."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(r, str) and is_role(r) for r in value):
        raise ConfigError("'roles' is a list of role names, e.g. roles: [coder, designer]", source, line)
    return tuple(value)


def _inside(root: Path, value: str, what: str, source: Path | None, line: int | None) -> None:
    """Raises ConfigError when a configured path leaves the root as written (`..`, an
    absolute path): rolebook writes only inside the project. Symlinks are followed when
    it writes (store.inside), so a link out of the root stops the write that meets it,
    never every command, a read included."""
    real = Path(os.path.normpath(root.absolute() / value))
    if not real.is_relative_to(os.path.normpath(root.absolute())):
        raise ConfigError(
            f"{what} is {value!r}, outside the project root {root}: rolebook writes only inside it", source, line
        )


def _instructions(value: Any, source: Path | None, line: int | None, root: Path) -> tuple[Path, ...]:
    """`instructions: [docs/agents.md, ...]`: more instructions files, inside the root."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError("'instructions' is a list of files, e.g. [docs/agent-rules.md]", source, line)
    for v in value:
        _inside(root, v, "an 'instructions' file", source, line)
    return tuple(root / v for v in value)


def _derived_inside(layout: Layout, source: Path | None, line: int | None) -> None:
    """Raises ConfigError when the derived folder leads out of the root through a symlink
    (git ignores the folder, not a link in its place, so a cloned repository can carry
    one): every command writes there, a read included, and `doctor --repair` deletes files
    by name there. Checked on every load: a few stat calls."""
    real = os.path.realpath(layout.derived)
    if not Path(real).is_relative_to(os.path.realpath(layout.root)):
        raise ConfigError(
            f"the derived folder {layout.derived} resolves outside the root ({real}) through a symlink: "
            "rolebook writes only inside the project; remove the link",
            source,
            line,
        )


def _recall(value: Any, source: Path | None, line: int | None) -> float:
    """`recall: {control: X}`, 0 <= X <= 0.5."""
    if value is None:
        return 0.0
    if not isinstance(value, Mapping) or set(value) - {"control"}:
        raise ConfigError("'recall' takes control (the share of recognised lessons withheld, e.g. 0.1)", source, line)
    share = value.get("control", 0.0)
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 0.5:
        line = _line(value, "control") or line
        raise ConfigError(f"'recall.control' is {share!r}: use a share from 0 to 0.5 (e.g. 0.1)", source, line)
    return float(share)


def _promote(value: Any, source: Path | None, line: int | None) -> int:
    """`promote: {min_dates: N}`, N >= 2."""
    if value is None:
        return 3
    if not isinstance(value, Mapping) or set(value) - {"min_dates"}:
        raise ConfigError("'promote' takes min_dates (a mistake on this many dates is due, e.g. 3)", source, line)
    days = value.get("min_dates", 3)
    line = _line(value, "min_dates") or line
    if isinstance(days, bool) or not isinstance(days, int) or days < 2:
        raise ConfigError(f"'promote.min_dates' is {days!r}: use a whole number of 2 or more", source, line)
    if how := not_plain_whole(days):
        raise ConfigError(
            f"'promote.min_dates' is written {how}, which YAML reads as {int(days)}: {PLAIN}", source, line
        )
    return int(days)


def _shared_roots(value: Any, source: Path | None, line: int | None, root: Path) -> tuple[SharedRoot, ...]:
    """`shared_roots: [{name: team, path: ../knowledge, share: [mistakes]}]`; a path is taken
    from the root, `~` expanded."""
    if value is None:
        return ()
    shape = "'shared_roots' is a list of {name: NAME, path: FOLDER} (and share: [mistakes] to opt in)"
    if not isinstance(value, list):
        raise ConfigError(shape, source, line)
    out: list[SharedRoot] = []
    for n, item in enumerate(value):
        where = getattr(getattr(value, "lc", None), "data", {}).get(n, (None,))[0]
        at = where + 1 if isinstance(where, int) else line
        if not isinstance(item, Mapping) or set(item) - {"name", "path", "share"}:
            raise ConfigError(shape, source, at)
        name, path, share = item.get("name"), item.get("path"), item.get("share") or []
        if not isinstance(name, str) or not is_role(name):
            raise ConfigError(f"shared root name {name!r}: use lowercase letters, digits, '-' or '_'", source, at)
        if name in {r.name for r in out}:
            raise ConfigError(f"shared root {name!r} is named twice", source, at)
        if not isinstance(path, str) or not path.strip():
            raise ConfigError(f"shared root {name!r} needs a path (a folder)", source, at)
        if not isinstance(share, list) or any(s != "mistakes" for s in share):
            raise ConfigError(f"shared root {name!r}: share takes [mistakes] or nothing", source, at)
        out.append(SharedRoot(name, Path(os.path.normpath((root / Path(path).expanduser()).absolute())), tuple(share)))
    return tuple(out)


def _search(value: Any, source: Path | None, line: int | None, root: Path) -> tuple[str | None, str | None]:
    """`search: {model: NAME_OR_FOLDER, mode: keyword|semantic|hybrid}`; a relative folder is
    taken from the root."""
    if value is None:
        return None, None
    if not isinstance(value, Mapping) or set(value) - {"model", "mode"}:
        raise ConfigError(
            "'search' takes model (a model name or folder) and mode (keyword, semantic, hybrid)", source, line
        )
    model, mode = value.get("model"), value.get("mode")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise ConfigError("'search.model' must be a model name or a folder", source, _line(value, "model") or line)
    if mode is not None and mode not in ("keyword", "semantic", "hybrid"):
        at = _line(value, "mode") or line
        raise ConfigError(f"'search.mode' is {mode!r}: use keyword, semantic or hybrid", source, at)
    if model and (model.startswith((".", "~")) or "/" in model) and (root / model).expanduser().is_dir():
        model = str((root / model).expanduser())
    return model, mode


def search_mode(config: Config) -> str | None:
    """ROLEBOOK_SEARCH_MODE, else `search.mode`, else None (hybrid when the extra works).

    Raises:
        ConfigError: ROLEBOOK_SEARCH_MODE is not keyword, semantic or hybrid.
    """
    env = os.environ.get("ROLEBOOK_SEARCH_MODE")
    if env and env not in _MODES:
        raise ConfigError(f"ROLEBOOK_SEARCH_MODE is {env!r}: use keyword, semantic or hybrid")
    return env or config.mode


def shared_configs(config: Config) -> list[tuple[SharedRoot, Config]]:
    """The config of each shared root that can be opened; one stderr line for each that
    cannot (missing, not a rolebook root, a bad rolebook.yaml): never a failure."""
    out = []
    for shared in config.shared_roots:
        problem = None
        if not shared.path.is_dir():
            problem = "is missing"
        elif not (shared.path / CONFIG_NAME).is_file() and not (shared.path / "agents" / "state").is_dir():
            problem = "is not a rolebook root (`rolebook init` there makes it one)"
        else:
            try:
                out.append((shared, load_config(shared.path)))
            except ConfigError as exc:
                problem = f"has a bad config ({exc})"
        if problem:
            _say_once(f"shared root {shared.name!r} ({shared.path}) {problem}: it is left out")
    return out


_said: set[str] = set()


def _say_once(message: str) -> None:
    if message not in _said:
        _said.add(message)
        sys.stderr.write(f"rolebook: {message}\n")


#: By meaning, seconds one search (or session start) may spend embedding records that
#: have no vector yet; the others are found by keywords meanwhile, and the answer says so.
#: A 50,000-record import embeds for minutes: no agent waits that long for a search.
EMBED_SECONDS = 2.0


def embed_budget() -> float:
    """ROLEBOOK_EMBED_SECONDS: how long one search may spend giving records their vectors
    (0: one step of a few records), else EMBED_SECONDS.

    Raises:
        InputError: not a number of seconds.
    """
    value = os.environ.get("ROLEBOOK_EMBED_SECONDS", "").strip()
    if not value:
        return EMBED_SECONDS
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:  # a negative number, nan
        raise InputError(f"ROLEBOOK_EMBED_SECONDS is {value!r}: give a number of seconds, e.g. 2")
    return seconds
