"""Settings written in YAML (rolebook.yaml, a notebook's frontmatter), read one way: by
ruamel.yaml, YAML 1.2, so a value means the same in both places (`010` is ten, `yes`
is a word, `0o10` is eight). A document that is not YAML is a ConfigError naming the
file and the line.

Frontmatter goes through python-frontmatter with `RuamelHandler`, its YAML handler
reading with the same parser. Both libraries load on first use only: a notebook
without frontmatter never pays for them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path

    from ruamel.yaml import YAML

#: Deeper YAML is refused before a parser sees it (the pure parser recurses).
MAX_YAML_DEPTH = 64


def yaml_depth(text: str) -> int:
    """How deep YAML text nests, at most: indentation levels plus open brackets. Cheap,
    and an overestimate where brackets sit inside quotes, which is fine for a guard."""
    deepest, brackets, indents = 0, 0, [0]
    for line in text.splitlines():
        stripped = line.lstrip(" -")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        while len(indents) > 1 and indent < indents[-1]:
            indents.pop()
        if indent > indents[-1]:
            indents.append(indent)
        for c in stripped:
            if c in "[{":
                brackets += 1
                deepest = max(deepest, len(indents) + brackets)
            elif c in "]}":
                brackets = max(0, brackets - 1)
        deepest = max(deepest, len(indents) + brackets)
    return deepest


@lru_cache(maxsize=1)
def _parser() -> YAML:
    from ruamel.yaml import YAML

    # round-trip: mappings keep the line of each key, for errors about a setting's value
    return YAML(typ="rt", pure=True)


def load_yaml(
    text: str,
    path: str | Path | None = None,
    first_line: int = 1,
    what: str = "not valid YAML",
    last_line: int | None = None,
) -> Any:
    """The data of a YAML document that starts on line `first_line` of file `path` (and
    ends on `last_line`, where an error past its end is reported).

    Raises:
        ConfigError: nested too deep, or not YAML (`what: problem`, at the problem's line).
    """
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    deep = yaml_depth(text)
    if deep > MAX_YAML_DEPTH:
        raise ConfigError(f"nested {deep} levels deep (at most {MAX_YAML_DEPTH}); refused", path, first_line)
    try:
        return _parser().load(text)
    except RecursionError:
        raise ConfigError("nested too deep for the YAML parser; refused", path, first_line) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + first_line if mark is not None else first_line
        line = min(line, last_line) if last_line is not None else line
        raise ConfigError(f"{what}: {exc.problem or exc.context}", path, line) from None
    except YAMLError as exc:
        raise ConfigError(f"{what}: {exc}", path, first_line) from None


def load_frontmatter(body: str, path: str | Path | None = None) -> Any:
    """The data of a notebook's frontmatter (the lines between its `---` fences; the
    first of them is line 2 of the file), read by python-frontmatter's YAML handler.

    Raises:
        ConfigError: nested too deep, or not YAML.
    """
    return frontmatter_handler().load(body, path=path)


@lru_cache(maxsize=1)
def frontmatter_handler() -> Any:
    """python-frontmatter's YAML handler with ruamel.yaml as its parser: pass it as
    `frontmatter.loads(text, handler=...)` to read frontmatter as rolebook does."""
    from frontmatter.default_handlers import YAMLHandler

    class RuamelHandler(YAMLHandler):
        """Reads frontmatter with ruamel.yaml (YAML 1.2), as rolebook.yaml is read."""

        def load(self, fm: str, **kwargs: object) -> Any:
            path = kwargs.get("path")  # the notebook's, for errors
            # an unclosed construct is reported past the end: keep to the frontmatter's lines
            last = max(2, 1 + fm.count("\n"))
            return load_yaml(fm, None if path is None else str(path), 2, "frontmatter is not YAML", last)

    return RuamelHandler()
