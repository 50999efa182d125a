"""The managed rules block in CLAUDE.md / AGENTS.md. Pure, but for `load`, `save` and
`write_rules` (under the rules file's lock, atomically).

    <!-- rolebook:rules:start -->
    - Rule text. _(designer; incidents 2026-02-05, 2026-03-01, 2026-03-15)_
    <!-- rolebook:rules:end -->

Every byte outside the block is kept exactly: BOM, line endings, a missing final
newline. Lines inside the block that are not rule lines (a heading, a note written by
hand) are kept where they are. A block edited by hand is parsed back, never written
twice; two start markers, or an end without a start, is an error naming the line.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError, NoMatch
from rolebook.notebook.display import shown
from rolebook.notebook.markdown import code_lines, split_lines
from rolebook.notebook.model import normalize
from rolebook.notebook.store import Layout, atomic_write, open_file, redact_value, role_lock

START = "<!-- rolebook:rules:start -->"
END = "<!-- rolebook:rules:end -->"
HEADING = "Rules learned from mistakes that kept coming back (managed by rolebook: `rolebook rules`)."
_RULE = re.compile(
    r"\s*[-*] (?P<text>.+?) _\((?P<role>[a-z0-9][a-z0-9_-]{0,63}); incidents "
    r"(?P<dates>\d{4}-\d\d-\d\d(?:, \d{4}-\d\d-\d\d)*)\)_\s*"
)


@dataclass(frozen=True, slots=True)
class Rule:
    """One promoted rule: its wording, its role, the dates of the incidents behind it."""

    text: str
    role: str
    incidents: tuple[str, ...]

    @property
    def id(self) -> str:
        digest = hashlib.sha256(f"{self.role}\x1f{normalize(self.text)}".encode()).hexdigest()
        return "R" + digest[:6]

    def line(self) -> str:
        return f"- {self.text} _({self.role}; incidents {', '.join(self.incidents)})_"


def rule_text(text: str) -> str:
    """A rule's wording: one line, ending with a full stop; a secret in it redacted and
    what a terminal or a reader would act on written as an escape (`display.shown`): it
    goes into a committed file that every agent reads, from a writer's `--text` or from
    mistakes that may have been written by hand."""
    text = shown(" ".join(redact_value(text)[0].split()).strip())
    if text and text[-1] not in ".!?":
        text += "."
    return text[:1].upper() + text[1:]


@dataclass(frozen=True, slots=True)
class RulesFile:
    """A rules file split around its block. `block` is None when the file has none."""

    before: str
    block: tuple[str, ...] | None  # the lines between the markers, verbatim
    start: str = START + "\n"
    end: str = END + "\n"
    after: str = ""
    newline: str = "\n"

    @property
    def rules(self) -> list[Rule]:
        return [r for r in (parse_rule(line) for line in self.block or ()) if r is not None]


def parse_rule(line: str) -> Rule | None:
    match = _RULE.fullmatch(line.rstrip("\r\n"))
    if match is None:
        return None
    return Rule(match.group("text"), match.group("role"), tuple(match.group("dates").split(", ")))


def parse(text: str, path: str | Path | None = None) -> RulesFile:
    """Split a rules file around its block.

    Raises:
        InputError: two start markers, two end markers, an end before its start, or a
            start with no end (naming the line).
    """
    lines = split_lines(text)
    newline = m.group(0) if (m := re.search(r"\r\n|\r|\n", text)) else "\n"
    marked = [i for i, ln in enumerate(lines) if ln.strip() in (START, END)]
    code = code_lines(text) if marked else set()  # a marker shown in a code block is not one
    starts = [i for i in marked if lines[i].strip() == START and i not in code]
    ends = [i for i in marked if lines[i].strip() == END and i not in code]
    if len(starts) > 1:
        raise InputError(f"a second {START} (only one rules block is allowed; remove one)", path, starts[1] + 1)
    if len(ends) > 1:
        raise InputError(f"a second {END} (only one rules block is allowed; remove one)", path, ends[1] + 1)
    if ends and (not starts or ends[0] < starts[0]):
        raise InputError(f"{END} without a {START} before it", path, ends[0] + 1)
    if starts and not ends:
        raise InputError(f"{START} without a {END} after it", path, starts[0] + 1)
    if not starts:
        return RulesFile(text, None, newline=newline)
    s, e = starts[0], ends[0]
    return RulesFile("".join(lines[:s]), tuple(lines[s + 1 : e]), lines[s], lines[e], "".join(lines[e + 1 :]), newline)


def render(rules_file: RulesFile) -> str:
    if rules_file.block is None:
        return rules_file.before
    return rules_file.before + rules_file.start + "".join(rules_file.block) + rules_file.end + rules_file.after


def add_rule(rules_file: RulesFile, rule: Rule) -> RulesFile:
    """The file with `rule` at the end of its block (created at the end of the file).

    Raises:
        InputError: the file ends inside an unclosed code block, where a block would be code.
    """
    nl = rules_file.newline
    if any(r.id == rule.id for r in rules_file.rules):
        return rules_file
    if rules_file.block is None:
        # At the end of the file, after a blank line; a file whose last line had no
        # newline still ends without one (after the end marker).
        text = rules_file.before
        ends_line = not text or text.endswith(("\n", "\r"))
        separator = "" if not text or text.endswith(nl + nl) else (nl if ends_line else nl + nl)
        where = len(split_lines(text + separator))
        code = code_lines(text + separator + START)
        if where in code:
            opened = where
            while opened - 1 in code:
                opened -= 1
            raise InputError(
                "the file ends inside a code block that never closes: a rules block written after it would "
                "be code, not rules; close the block by hand",
                None,
                opened + 1,
            )
        created = RulesFile(text + separator, (HEADING + nl,), START + nl, END + (nl if ends_line else ""), "", nl)
        return add_rule(created, rule)
    return replace(rules_file, block=(*rules_file.block, rule.line() + nl))


def add_lines(rules_file: RulesFile, lines: list[str]) -> RulesFile:
    """The file with these rule lines at the end of its block, each as it is written (a
    line of another rules block: an export's), but those whose rule it holds already."""
    nl = rules_file.newline
    for line in lines:
        rule = parse_rule(line)
        if rule is None or any(r.id == rule.id for r in rules_file.rules):
            continue
        rules_file = add_rule(rules_file, rule)
        assert rules_file.block is not None
        rules_file = replace(rules_file, block=(*rules_file.block[:-1], line.rstrip("\r\n") + nl))
    return rules_file


def block_lines(rules_path: Path) -> list[tuple[str, str]]:
    """(role, line) of every rule line of the block, each line as it is written."""
    block = load(rules_path)[0].block or ()
    return [(r.role, line.rstrip("\r\n")) for line in block if (r := parse_rule(line)) is not None]


def bad_rule_lines(lines: list[tuple[int, str, str]], where: str) -> list[str]:
    """`where:N: why` for each (N, role, line) that is not a rule line of that role."""
    out = []
    for n, role, line in lines:
        rule = parse_rule(line)
        if rule is None:
            out.append(f"{where}:{n}: not a rule line (- Rule text. _(role; incidents YYYY-MM-DD, ...)_)")
        elif rule.role != role:
            out.append(f"{where}:{n}: a rule line of role {rule.role!r} given for role {role!r}")
    return out


def remove_rule(rules_file: RulesFile, rule_id: str) -> RulesFile:
    """The file without the rule lines of that id."""
    if rules_file.block is None:
        return rules_file
    kept = tuple(line for line in rules_file.block if (r := parse_rule(line)) is None or r.id != rule_id)
    return replace(rules_file, block=kept)


def load(path: Path, within: Path | None = None) -> tuple[RulesFile, str | None]:
    """The rules file at `path` (empty if missing) and its text as read (None if missing);
    never through a link out of `within`, never a pipe (see `open_file`).

    Raises:
        InputError: the file is not UTF-8, its block markers are broken, or it is a pipe,
            a device or a link out of `within`.
    """
    try:
        with open_file(path, within or _project_of(path)) as f:
            data = f.read()
    except FileNotFoundError:
        return parse(""), None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text", path, data[: exc.start].count(b"\n") + 1) from None
    return parse(text, path), text


def _project_of(path: Path) -> Path:
    """The project a rules file belongs to, as the root is found (the nearest folder up
    holding rolebook.yaml, agents/state or .git): no link leads its reading out of it."""
    here = path.absolute().parent
    for folder in (here, *here.parents):
        if any((folder / name).exists() for name in ("rolebook.yaml", ".git", "agents/state")):
            return folder
    return here


def write_rules(layout: Layout, rules_path: Path, change: Callable[[Any], Any]) -> bool:
    """Change the rules file under its lock, atomically; whether any byte changed."""
    layout.check_inside(rules_path)  # before it is read: a link out of the root is never followed
    with role_lock(layout.rules_lock):
        rules_file, before = load(rules_path, layout.root)
        after = render(change(rules_file))
        if after == (before or ""):
            return False
        atomic_write(layout.check_inside(rules_path), after.encode("utf-8"), layout.spare())
        return True


def list_rules(rules_path: Path, role: str | None = None) -> list[Rule]:
    rules = load(rules_path)[0].rules
    return [r for r in rules if role is None or r.role == role]


def find_rule(rules_path: Path, key: str) -> Rule:
    key = key.strip().lstrip("#").upper()
    hits = [r for r in list_rules(rules_path) if r.id.upper().startswith(key)] if len(key) >= 3 else []
    if not hits:
        raise NoMatch(f"no rule {key!r} in {rules_path}: `rolebook rules` lists them")
    if len({r.id for r in hits}) > 1:
        raise InputError(f"{key!r} matches {len(hits)} rules; give more of the id")
    return hits[0]
