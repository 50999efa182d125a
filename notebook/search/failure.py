"""What a failed command says, and which remembered lesson is surely about it.

The recall hook runs after every failed command of an agent and may add a lesson to the
agent's context unasked, so it speaks only when it is sure (DESIGN.md section 5). A
failure's output is mostly noise (paths, versions, hashes, timings, stack frames, URLs,
progress bars, colour codes); its signal is the failing command, the error codes and
exception names, and the few lines that say what went wrong. A lesson is shown when it
shares enough of that signal, weighted by how rare each part is in the memory, and the
decision is fitted on labelled real failures (tests/fixtures/failures, card there; the
figures in tests/bench/bench_recall.py).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

#: What the hook reads of a tool's output: its start and its end. A failure says what it
#: is in its first lines (npm, pip, git, compilers) or its last (tracebacks, test
#: summaries); the middle of a long output is progress and repetition.
HEAD_CHARS = 6000
TAIL_CHARS = 6000
#: an output with no line that names an error: its last lines say what happened
FALLBACK_LINES = 3


def bounded(text: str, head: int = HEAD_CHARS, tail: int = TAIL_CHARS) -> str:
    """The text's first `head` and last `tail` characters (all of it when shorter)."""
    if len(text) <= head + tail:
        return text
    return text[:head] + "\n" + text[-tail:]


_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://([^/\s]*)(\S*)", re.I)
_PATH = re.compile(r"(?:[\w.~@%+-]*/)+[\w.@%+-]*|\b[A-Z]:\\[\w.\\ -]*")
_KEPT_DIR = re.compile(r"^(?:\.[a-z][\w-]*|node_modules)$")
_HEX = re.compile(r"\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b|\b[0-9a-f-]{32,}\b", re.I)
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+[\w.+-]*|@[\^~]?\d[\w.+-]*")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:['’][a-z]+)?|\d+")
#: error codes: errno names (EACCES, ERESOLVE), node's ERR_*, letter+digit codes (TS2307,
#: E0502, E404, F401), exception and error class names (ModuleNotFoundError)
_CODE = re.compile(
    r"(?<![\w-])(?:E[A-Z]{3,}[A-Z0-9_]*|ERR_[A-Z0-9_]+|[A-Z]{1,4}\d{3,5}"
    r"|[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?:Error|Exception))(?![\w-])"
)
_BRACKET_CODE = re.compile(r"\[([a-z]+(?:-[a-z]+)+)\]")  # mypy's [import-not-found]
#: a line that says something went wrong
_MARKER = re.compile(
    r"(?i)\berror\b|\berr!|\bfatal\b|\bfailed\b|\bfailure\b|\bexception\b|\bdenied\b|\brefused\b"
    r"|\bnot found\b|\bno such\b|\bcannot\b|\bcan't\b|\bcould not\b|\bcouldn't\b|\bunable to\b"
    r"|\binvalid\b|\bunknown\b|\bmissing\b|\bundefined\b|\bconflict\b|\brejected\b|\babort"
    r"|\bpanic|\bsegmentation fault\b|\bcore dumped\b|\btimed out\b|\bnot allowed\b|\bunrecognized\b"
    r"|\bunexpected\b|\brefusing\b|\bdoes not\b|\bdid not\b|\bnot installed\b|\bhint:|\bwould be overwritten\b"
    r"|^[A-Z][A-Za-z0-9_.]*(?:Error|Exception)\b|^E\s{2,}|^\s*(?:Expected|Received)\b|\bexpect\("
)
#: lines that only say where (stack frames) or how far (progress)
_FRAME = re.compile(
    r"^\s*(?:at\s+\S.*[:(]\d+|File \".*\", line \d+|\d+\s*\|\s|[|│╷╵]\s*$|[~^]+\s*$|\[Previous line repeated)"
    r"|^\s*%\s+Total\b|^[\s\d.:%kKMGB/s-]+$|^\s*Traceback \(most recent call last\)"
)
#: a notice is not the failure either (npm's and pip's "new version available", their how-to)
_NOTICE = re.compile(
    r"(?i)^\s*(?:npm notice\b|\[notice\]|.*\bnew (?:major |minor |patch )?(?:version|release) of\b.*\bavailable\b)"
)
#: a warning is not the failure (npm warn EBADENGINE, pip's WARNING: Location ... ignored)
_WARNING = re.compile(r"(?i)^\s*(?:[│|]\s*)?(?:\w+ )?warn(?:ing)?\b")
#: a diagnostic drawn in a box (terraform, tflint: "╷", "│ Warning: ...", "│ ...", "╵"): its
#: lines after the first belong to it, a warning's to the warning
_BOX_LINE = re.compile(r"^\s*│")
#: source code quoted in a trace (the line after a Python frame, or one that reads as code)
_SOURCE = re.compile(r"^\s*(?:raise|except|throw|return|def|class|import|const|let|var|function)\b|^\s*>\s")
#: capitals that are words, not error codes
_NOT_CODES = frozenset("ERROR ERRORS EXIT EXPECTED EOF EMPTY END ENV ENOUGH EXAMPLE EXCEPTION EVENT".split())
_RUNNERS = frozenset("sudo env time nice nohup exec command builtin xargs timeout".split())
_SEPARATORS = frozenset(("&&", "||", ";", "|", "&"))


@dataclass(frozen=True, slots=True)
class Failure:
    """What a failed command says: its command words (tool, action), its error codes and
    exception names, and its key lines (the ones that say what went wrong), noise removed."""

    command: tuple[str, ...]
    codes: tuple[str, ...]
    lines: tuple[str, ...]
    exit_code: int | None = None
    keys: tuple[str, ...] = ()  # the key lines as they were (noise in): what `masked` reads
    typed: str = ""  # the command as it was typed

    def masked(self) -> Masked:
        """The failure with what differs between two instances of it masked (section 6b)."""
        return masked(self)

    def text(self) -> str:
        """All of it as one text, for a keyword query."""
        return " ".join((*self.command, *self.codes, *self.lines))

    def gist(self) -> str:
        """The command and the key lines, as a model of meaning reads the failure."""
        return "\n".join((" ".join(self.command), *self.lines))


def command_words(command: str) -> tuple[str, ...]:
    """The tool and action of each command in a shell line: `cd app && npm ci --force` ->
    (cd, app, npm, ci). Assignments, runners (sudo, env) and options are left out."""
    try:
        parts = shlex.split(command, posix=True)
    except ValueError:
        parts = command.split()
    out: list[str] = []
    words: list[str] = []
    for part in [*parts, ";"]:
        if part in _SEPARATORS or part.endswith(";"):
            if part.endswith(";") and part != ";":
                words.append(part[:-1])
            out += _head(words)
            words = []
        else:
            words.append(part)
    return tuple(dict.fromkeys(out))


def _head(words: list[str]) -> list[str]:
    rest = [w for w in words if "=" not in w.split("/")[0] or w.startswith("-")]
    while rest and rest[0] in _RUNNERS:
        rest = rest[1:]
    if not rest:
        return []
    tool = rest[0].rstrip("/").split("/")[-1]
    head = [tool]
    if "-m" in rest[1:2]:  # python -m json.tool: the module is the tool
        module = rest[2] if len(rest) > 2 else ""
        return [tool, *re.findall(r"[a-z][a-z0-9_]*", module)]
    for word in [w for w in rest[1:] if not w.startswith("-")][:2]:
        if not re.fullmatch(r"[a-z][a-z0-9_:-]*", word):
            break
        head.append(word)
    return head


_CAMEL = re.compile(r"[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+")
_HUMP_PART = re.compile(r"[A-Z]?[a-z0-9]+")
#: a name with a one-digit generation: sqlite3, python3, psycopg2, boto3 (the index holds
#: "sqlite3" and "sqlite" apart)
_NUMBERED = re.compile(r"\b([A-Za-z]{4,})\d\b")


def name_parts(text: str) -> str:
    """The parts of a text's names, as the index finds documents by them: camelCase
    (`lockfileVersion` -> "lockfile Version") and a name without its one-digit
    generation (`sqlite3` -> "sqlite")."""
    camel = " ".join(" ".join(_HUMP_PART.findall(m)) for m in _CAMEL.findall(text))
    return " ".join((camel, *_NUMBERED.findall(text))).strip()


def clean(line: str) -> str:
    """A line with its noise removed: colour codes, URLs, paths (their last part kept),
    versions, hashes and numbers (but HTTP-like status codes 400-599)."""
    line = _URL.sub(_url_words, line)
    line = _PATH.sub(_path_words, line)
    line = _HEX.sub(" ", line)
    line = _VERSION.sub(" ", line)
    return " ".join(_WORD.findall(line))


def _url_words(match: re.Match[str]) -> str:
    """What a URL says: a local host by name, and its last part (docker.sock, a package)."""
    host, path = match.group(1), match.group(2).rstrip("/.,;:)'\"")
    local = "localhost" if host.split(":")[0] in ("localhost", "127.0.0.1", "0.0.0.0", "[::1]") else ""
    return f" {local} {path.rsplit('/', 1)[-1]} "


def _path_words(match: re.Match[str]) -> str:
    """What a path says: its last part, and the folders that name a tool's place (.venv,
    .git, node_modules); the rest (/tmp/x/cases/fa012, site-packages) is where, not what."""
    parts = re.split(r"[/\\]", match.group())
    kept = [p for p in parts[:-1] if _KEPT_DIR.match(p)] + parts[-1:]
    return " " + " ".join(kept) + " "


#: a lesson that says what exit code a tool gives: "grep exits 1", "curl exit 7", "`npm
#: outdated` exits with 1", "pytest exit code 5": (the word before, the code)
_EXIT_MENTION = re.compile(
    r"(?i)\b([a-z][\w.-]*)`?\s+(?:exit(?:s|ed)?|returns?|returned)\s+(?:with\s+)?(?:(?:code|status)\s+)?(\d{1,3})\b"
)


def exit_mentions(text: str) -> frozenset[tuple[str, int]]:
    """The (tool word, exit code) pairs a lesson states."""
    return frozenset((m.group(1).casefold(), int(m.group(2))) for m in _EXIT_MENTION.finditer(text))


def failure_of(command: str, output: str, exit_code: int | None = None) -> Failure:
    """The signal of a failed command and its output (read bounded: `bounded`), with its
    exit code when the agent CLI says it."""
    text = _ANSI.sub("", bounded(output))
    lines: list[str] = []
    keys: list[str] = []
    codes: list[str] = []
    rest: list[tuple[str, str]] = []  # the other lines, for an output that names no error at all
    frame = -1  # the indent of a Python frame line: the line it quotes is indented deeper
    boxed_warning = False  # inside a boxed diagnostic that is a warning
    for raw in text.splitlines():
        # a progress bar redraws its line; a lone \r is a character of the line (CRLF scripts)
        raw = raw.rsplit("\r", 1)[-1] if raw.count("\r") > 2 else raw.replace("\r", "\\r")
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip())
        if raw.strip() in ("╷", "╵"):  # a box opens or closes
            boxed_warning = False
        if _FRAME.search(raw):
            frame = indent if raw.lstrip().startswith("File ") else -1
            continue
        quoted, frame = indent > frame >= 0, -1
        if _BOX_LINE.match(raw):
            if _WARNING.search(raw):
                boxed_warning = True
            if boxed_warning:
                continue
        else:
            boxed_warning = False
        if quoted or _WARNING.search(raw) or _SOURCE.search(raw) or _NOTICE.search(raw):
            continue
        found = [c for c in _CODE.findall(raw) if c not in _NOT_CODES] + _BRACKET_CODE.findall(raw)
        cleaned = clean(raw)
        if found or _MARKER.search(raw):
            codes += found
            if cleaned:
                lines.append(cleaned)
                keys.append(raw.strip())
        elif cleaned:
            rest.append((cleaned, raw.strip()))
    if not lines:
        lines, keys = [c for c, _ in rest[-FALLBACK_LINES:]], [r for _, r in rest[-FALLBACK_LINES:]]
    return Failure(
        command_words(command),
        tuple(dict.fromkeys(codes)),
        tuple(dict.fromkeys(lines)),
        exit_code,
        tuple(dict.fromkeys(keys)),
        command,
    )


def task_of(text: str) -> Failure:
    """A task as the recall decision reads a failure: its words (noise out) as one line,
    and the error codes it names (an agent pastes them)."""
    text = bounded(text)
    codes = [c for c in _CODE.findall(text) if c not in _NOT_CODES] + _BRACKET_CODE.findall(text)
    cleaned = clean(_ANSI.sub("", text))
    return Failure((), tuple(dict.fromkeys(codes)), (cleaned,) if cleaned else ())


# -- the same failure again (DESIGN.md section 6b) ------------------------------------------
#
# Two instances of one failure differ in where and in what (another folder, other file,
# module, package and function names, line numbers, versions, ports) and agree in the
# rest: the tool, the error codes, the words of the error line. `masked` keeps what they
# agree in and sets aside what was masked out (`names`), which decides the one case where
# what differs matters: a lesson about that one package.

#: quoted names: 'requests', "x", `foo`, `bar', ‘baz’, “qux”
_QUOTED = re.compile(
    r"'([^'\s][^'\n]{0,119})'|\"([^\"\n]{1,120})\"|`([^`'\n]{1,120})[`']|‘([^’\n]{1,120})’|“([^”\n]{1,120})”"
)
#: a word that is a name, not English: snake_case, camelCase, dotted.names, with digits
_NAMEISH = re.compile(r"^(?:\w*_\w*|[a-z]+[A-Z]\w*|\w+(?:[.:]{1,2}\w+)+|[A-Za-z]+\d+\w*)$")
#: a package with its version: requests==2.99.0, left-pad@1.3.0, serde = "1.0"
_PINNED = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]*?)\s?(?:==|>=|<=|~=|@|\s=\s)\s?[\"']?v?\d[\w.+-]*[\"']?")
_PLACEHOLDERS = frozenset(("QNAME", "QARG", "ARG", "PKG", "PATH", "HEX", "VER", "URL"))
_MASK_WORD = re.compile(r"[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_]\w*)*|\d+")
#: words every error line may hold: they say nothing about which failure it is
_FILLER = frozenset("a an the of to in on at for is are was be by it its this that with from or and as".split())
#: how many key lines of each end make the masked failure (a long output repeats itself)
MASK_LINES = 4


@dataclass(frozen=True, slots=True)
class Masked:
    """A failure as its instances agree: the tools run, the error codes, the words of its key
    lines with names, paths, numbers, versions and hashes masked, and the names masked out
    (casefolded), for the lessons that are about one of them."""

    tools: tuple[str, ...]
    codes: tuple[str, ...]
    words: tuple[str, ...]
    names: tuple[str, ...]

    def to_dict(self) -> dict[str, list[str]]:
        return {"tools": [*self.tools], "codes": [*self.codes], "words": [*self.words], "names": [*self.names]}

    @classmethod
    def from_dict(cls, data: Any) -> Masked | None:
        """The masked failure a record holds; None when it holds none."""
        if not isinstance(data, dict):
            return None
        parts = [data.get(k) for k in ("tools", "codes", "words", "names")]
        if not all(isinstance(p, list) and all(isinstance(x, str) for x in p) for p in parts):
            return None
        return cls(*(tuple(p) for p in parts))  # type: ignore[arg-type]

    def key(self) -> str:
        """What identifies this failure exactly: equal for two instances that differ only in
        what was masked."""
        return "|".join((",".join(self.tools), ",".join(self.codes), " ".join(self.words)))


def _tool(word: str) -> str:
    """A tool as two runs agree on it: python3.12 is python, ./deploy.sh and migrate.sh are
    shell scripts."""
    word = word.casefold()
    script = re.fullmatch(r".*\.(sh|bash|py|js|mjs|ts|rb|pl)", word)
    return f"{script.group(1)}-script" if script else (re.sub(r"[\d.]+$", "", word) or word)


def mask_line(line: str, command: str = "") -> tuple[list[str], list[str]]:
    """(the masked words of an error line, the names masked out of it). A quoted name the
    command itself names (`python3 app/cli.py` and 'app', a file given as an argument) is
    masked apart: the agent's own code or input, not a thing that is missing."""
    names: list[str] = []
    typed = set(re.split(r"[\s/=:,.'\"]+", command.casefold()))
    # the command's arguments (a branch, a target, a file): the tool and its action words are kept
    try:
        given = shlex.split(command.casefold())
    except ValueError:
        given = command.casefold().split()
    arguments = {w for w in given if w and not w.startswith("-")} - set(command_words(command))

    def quoted(match: re.Match[str]) -> str:
        inner = next(g for g in match.groups() if g is not None).strip().casefold()
        names.append(inner)
        head = re.split(r"[/.:]+", inner.lstrip("./"))[0]
        return " QARG " if command and (inner in command.casefold().split() or head in typed - {""}) else " QNAME "

    def path(match: re.Match[str]) -> str:
        last = re.split(r"[/\\]", match.group())[-1]
        if last:
            names.append(last.casefold())
        return " PATH "

    def pinned(match: re.Match[str]) -> str:
        names.append(match.group(1).casefold())
        return " PKG VER "

    line = _ANSI.sub("", line)
    line = _URL.sub(lambda m: " localhost " if "localhost" in _url_words(m) else " URL ", line)
    line = _QUOTED.sub(quoted, line)
    line = _PINNED.sub(pinned, line)
    line = _PATH.sub(path, line)
    line = _HEX.sub(" HEX ", line)
    line = _VERSION.sub(" VER ", line)
    words: list[str] = []
    for word in _MASK_WORD.findall(line):
        if word.isdigit():
            words.append("NUM")
        elif word.casefold() in arguments:
            names.append(word.casefold())
            words.append("ARG")
        elif word in _PLACEHOLDERS or (_CODE.fullmatch(word) and word not in _NOT_CODES):
            words.append(word)
        elif _NAMEISH.match(word):
            names.append(word.casefold())
            words.append("NAME")
        elif word.casefold() not in _FILLER:
            words.append(word.casefold())
    return words, names


def masked(failure: Failure) -> Masked:
    """The failure with what differs between two instances of it masked (see `Masked`)."""
    keys = failure.keys or failure.lines
    if len(keys) > 2 * MASK_LINES:
        keys = (*keys[:MASK_LINES], *keys[-MASK_LINES:])
    words: dict[str, None] = {}
    names: dict[str, None] = {}
    for line in keys:
        found, masked_out = mask_line(line, failure.typed)
        words.update(dict.fromkeys(found))
        names.update(dict.fromkeys(masked_out))
    tools = tuple(dict.fromkeys(_tool(w) for w in failure.command if w not in ("cd",)))
    return Masked(tools, tuple(sorted(failure.codes)), tuple(sorted(words)), tuple(names))


def sameness(a: Masked, b: Masked) -> float:
    """How surely two masked failures are one failure, 0 to 1: how much of their masked
    words they hold in common (the mean of the share of all and the share of the fewer),
    when they ran one tool and name the same error codes (at least one, or none at all);
    else 0."""
    if bool(a.codes) != bool(b.codes) or (a.codes and not set(a.codes) & set(b.codes)):
        return 0.0
    if not set(a.tools) & set(b.tools):
        return 0.0
    x, y = set(a.words) | set(a.codes), set(b.words) | set(b.codes)
    if not x or not y:
        return 0.0
    common = len(x & y)
    return (common / len(x | y) + common / min(len(x), len(y))) / 2


def names_in(text: str, names: Sequence[str]) -> set[str]:
    """The masked-out names a lesson's text names (as words of it, casefolded)."""
    folded = text.casefold()
    return {n for n in names if len(n) > 1 and re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w-])", folded)}


def answers(lesson: str, first: Masked, again: Masked, again_said: str = "") -> bool:
    """Whether a lesson linked to the first instance of a failure answers another: not when
    it names a name masked out of the first (a package, a module) that the other lacks (a
    name the other says too, `again_said`, or one of the same stem, tsconfig.json and
    tsconfig.build.json, is there). Even a name the lesson only copies with the error line
    counts: on the fit sets, forgiving those lost more wrong lessons than it won right ones."""
    named = names_in(lesson, first.names) - set(first.tools)
    present = {*again.names, *again.tools}
    stems = {_stem(x) for x in present}
    said = again_said.casefold()
    return all(n in present or n in said or _stem(n) in stems for n in named)


def _stem(name: str) -> str:
    return re.split(r"[./_-]", name.strip("./") or name)[0]


#: two failures at least this alike (`sameness`) are one failure (fitted on the fit part of
#: tests/fixtures/failures/recur, see its card and tests/bench/bench_failures.py)
SAME_FAILURE = 0.65


def recognise(known: Iterable[tuple[str, Masked]], now: Masked, floor: float = SAME_FAILURE) -> list[str]:
    """The ids of the remembered failures `now` is another instance of: the most alike, at
    least `floor` alike (several when they are alike to the same degree), the one that
    shares more of the names masked out of it (the same package, file) first, then the
    latest."""
    found = []
    for n, (fid, then) in enumerate(known):
        score = sameness(then, now)
        if score >= floor:
            found.append((score, len(set(then.names) & set(now.names)), n, fid))
    best = max((f[0] for f in found), default=0.0)
    return [fid for score, *_, fid in sorted(found, reverse=True) if score == best]
