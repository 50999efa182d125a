"""Limits and pruning (DESIGN.md section 3). Pure, but for reading frontmatter YAML
(settings.py).

Section caps apply first, the oldest entries leaving; then, while the file is over its
line cap, the oldest entry of any prunable section leaves, equal dates taken from
Session Log, then Learnings, then Mistakes. A section whose cap is None is never
pruned. What cannot be pruned is kept, and `overflow` says so.

When the text that cannot be pruned (Feedback, text rolebook does not manage) passes
the line cap by itself, the line cap prunes nothing: emptying the sections could not
bring the file within the cap, and would only hide the newest entries from the next
read. The section caps still bound the file; a person must shorten it by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import ConfigError
from .markdown import entry_positions, frontmatter_span, remove_parts, render, split_lines
from .model import TITLES, Entry, Notebook, count_lines

# Equal dates in the line-cap phase: the first listed leaves first.
_TIE_ORDER = {"session_log": 0, "learnings": 1, "mistakes": 2, "feedback": 3}


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps for one notebook; None means never pruned."""

    lines: int | None = 80
    mistakes: int | None = 20
    learnings: int | None = 20
    feedback: int | None = None
    session_log: int | None = 15

    def cap(self, section: str) -> int | None:
        value: int | None = getattr(self, section)
        return value

    def to_dict(self) -> dict[str, int | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def merged(self, overrides: Any, path: str | None = None, line: int | None = None, first: int = 1) -> Limits:
        """These limits with `overrides` (a mapping from config or frontmatter) applied.
        An error names the line of the setting at fault where the YAML parser kept it
        (`first`: the file's line the YAML document starts on), else `line`.

        Raises:
            ConfigError: an unknown key, or a value that is not a whole number >= 0 or null,
                written as one (`plain_whole`).
        """
        if overrides is None:
            return self
        if not isinstance(overrides, Mapping):
            raise ConfigError("limits must be a mapping such as {mistakes: 20, lines: 80}", path, line)
        names = {f.name for f in fields(self)}
        changes: dict[str, int | None] = {}
        for key, value in overrides.items():
            at = key_line(overrides, key, first) or line
            if key not in names:
                raise ConfigError(f"unknown limit {key!r} (known: {', '.join(sorted(names))})", path, at)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ConfigError(f"limit {key!r} must be a whole number >= 0 or null, not {value!r}", path, at)
            if value is not None and (how := not_plain_whole(value)):
                raise ConfigError(
                    f"limit {key!r} is written {how}, which YAML reads as {int(value)}: {PLAIN}", path, at
                )
            changes[key] = None if value is None else int(value)  # a YAML parser's int subclass, plain
        return replace(self, **changes)


PLAIN = "write the whole number you mean in plain decimal digits"


def not_plain_whole(value: int) -> str | None:
    """How a YAML integer was written when not in plain decimal digits ("in octal", "with
    leading zeros", ...), else None. ruamel.yaml reads `0o20` as 16, `0x14` as 20, `1_0`
    as 10 and `020` as 20; a person writing a limit means the digits they see, so a
    setting written so is refused rather than read as a number they did not write."""
    kind = type(value).__name__
    named = {"HexInt": "in hexadecimal", "HexCapsInt": "in hexadecimal", "OctalInt": "in octal"}
    named["BinaryInt"] = "in binary"
    if kind in named:
        return named[kind]
    if getattr(value, "_underscore", None):
        return "with underscores"
    width = getattr(value, "_width", None)
    if isinstance(width, int) and width > len(str(int(value))):  # "0" itself has a width of 1
        return "with leading zeros"
    return None


def key_line(mapping: Any, key: Any, first: int = 1) -> int | None:
    """The file line of `key` in a mapping ruamel.yaml read (round-trip), else None."""
    try:
        return int(mapping.lc.key(key)[0]) + first
    except (AttributeError, KeyError, TypeError):
        return None


def frontmatter_limits(nb: Notebook, base: Limits, path: str | None = None) -> Limits:
    """`base` with the notebook's own frontmatter `limits:` applied.

    Raises:
        ConfigError: frontmatter that is not YAML, not a mapping, or bad limits.
    """
    lines = split_lines(nb.head)
    span = frontmatter_span(lines)
    if not span:
        return base
    from .settings import load_frontmatter  # only notebooks with frontmatter pay for YAML

    meta = load_frontmatter("".join(lines[1 : span - 1]), path)
    if meta is None:
        return base
    if not isinstance(meta, Mapping):
        raise ConfigError("frontmatter must be a YAML mapping", path, 2)
    return base.merged(meta.get("limits"), path, 2, first=2)


def _age(item: tuple[int, int, Entry]) -> tuple[str, int, int]:
    si, pi, entry = item
    # Oldest first: earlier date, then lower in the file (the list is newest first).
    return (entry.date, -si, -pi)


def prune(nb: Notebook, limits: Limits) -> tuple[Notebook, list[Entry]]:
    """Apply section caps, then the line cap. Returns the notebook and what left it."""
    prunable = [x for x in entry_positions(nb) if limits.cap(x[2].section) is not None]
    gone: set[tuple[int, int]] = set()
    left: list[Entry] = []
    for section in TITLES:
        cap = limits.cap(section)
        mine = [x for x in prunable if x[2].section == section]
        if cap is not None and len(mine) > cap:
            for si, pi, entry in sorted(mine, key=_age)[: len(mine) - cap]:
                gone.add((si, pi))
                left.append(entry)
    if limits.lines is not None:
        total = count_lines(render(nb)) - sum(e.line_count for e in left)
        rest = [x for x in prunable if (x[0], x[1]) not in gone]
        floor = total - sum(x[2].line_count for x in rest)  # what no pruning can remove
        if limits.lines < total and floor <= limits.lines:
            rest.sort(key=lambda x: (x[2].date, _TIE_ORDER[x[2].section], -x[0], -x[1]))
            for si, pi, entry in rest:
                if total <= limits.lines:
                    break
                gone.add((si, pi))
                left.append(entry)
                total -= entry.line_count
    return remove_parts(nb, gone), left


def overflow(nb: Notebook, limits: Limits) -> list[str]:
    """One line for each limit the notebook breaks as it stands."""
    problems = []
    for section, title in TITLES.items():
        cap = limits.cap(section)
        n = len(nb.entries(section))
        if cap is not None and n > cap:
            problems.append(f"{title} has {n} entries, over its cap of {cap}")
    lines = count_lines(render(nb))
    if limits.lines is not None and lines > limits.lines:
        problems.append(f"{lines} lines, over the cap of {limits.lines}")
    return problems
