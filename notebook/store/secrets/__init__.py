"""Secret-shaped values, redacted before anything is written (DESIGN.md section 10).

Every record is redacted where it is appended to an archive (`archive.append_records`),
whatever command, importer or field it came from, the keys of nested objects included;
entries are redacted earlier too, as they are checked (`intake.check_text`) and again
where they join a notebook (`changes.update`), so that the notebook and the archive hold
the same text; a rule's wording is redacted before it reaches the rules file.

A rule finds a shape; a check then says whether what it found is a value at all. A
reference (`$TOKEN`, `${{ secrets.X }}`, `{{ vault_x }}`, `os.environ[...]`), a template,
a word naming what goes there (`changeme`, `<your-token>`, `YOUR_API_KEY`) or a run of one
repeated character (`ghp_XXXX...`, `********`) is a placeholder, and stays.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Callable
from typing import Any

from .rules import _TOKEN, RULES

_MARK = re.compile(r"\[REDACTED:[a-z0-9-]+\]")  # what a token is written with (base64, base64url, URL-encoded)

#: what a value that only points at a secret starts with: a shell or template variable, a
#: format field, a YAML tag, a call that reads the environment
_REFERENCE = re.compile(
    r"\$[\w{(]|%\(|%\{|\{\{|<[^>]*>|\[(?:REDACTED|MASKED|HIDDEN|SECRET)|!(?:vault|ref|sub|secret)\b"
    r"|(?:os\.|process\.|ENV\[|env\(|getenv|secrets\.|vault:)",
    re.I,
)
#: a value of letters alone that holds one of these words names what goes there
_NAMING = re.compile(
    r"(?i)your|^my[_-]|secret|passw|token|key|example|sample|here|placeholder|change|insert|replace|dummy|redacted"
    r"|masked|hidden|todo|tbd|fixme|none|null|nil|undefined|empty|required|optional|string|xxx"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_WORDS = frozenset("str bytes int bool true false yes no on off".split())
#: name endings that say the value is about a secret, not one: `client_id`, `token_type`, ...
_ABOUT = frozenset(
    "id ids name names type types path file dir url uri endpoint header headers expires expiry expiration exp ttl "
    "duration length len size count limit format version at in hint policy prefix field env var label usage "
    "required enabled strength regex pattern min max timeout algorithm alg scheme kind mode source provider ref "
    "rotation location arn store manager client service handler factory class".split()
)


def _unquoted(value: str) -> str:
    if escaped := re.fullmatch(r'\\+"(.*?)\\+"', value, re.S):  # between escaped quotes
        return escaped.group(1)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'`":
        return value[1:-1]
    return value


def placeholder(value: str) -> bool:
    """Whether a value is no value: a reference, a template, a word naming what goes
    there, masked, or a run of one repeated character (after a vendor prefix)."""
    value = _unquoted(value).strip()
    if not value or _REFERENCE.match(value) or "..." in value or "…" in value or "***" in value:
        return True
    if value.lower() in _WORDS or re.fullmatch(r"[A-Z][A-Z_]*", value):  # a name: STRIPE_API_KEY
        return True
    if re.fullmatch(r"[A-Za-z_ -]+", value) and _NAMING.search(value):  # your-secret-key-here
        return True
    tail = re.sub(r"^(?:[A-Za-z0-9]{1,12}[_.-]){1,2}", "", value)  # ghp_, sk_live_, hf_, xoxb-
    last = re.split(r"[/_.:-]", value)[-1]
    # a run of one character after the prefix (ghp_XXXX); not the last letter of a password
    # whose words were taken for a prefix (`Tr0ub4dor-and-3` left `3`)
    return (len(tail) >= 4 and len(set(tail)) == 1) or (len(last) >= 8 and len(set(last)) == 1)


def random_looking(value: str) -> bool:
    """Whether a value looks like a generated token rather than a word, a path or a number:
    16 or more characters of a token's alphabet, letters and digits mixed (or both cases
    over a long run), and no date in it."""
    value = _unquoted(value).strip().removeprefix("base64:").rstrip(".:,;!?")  # a sentence goes on after it
    if len(value) < 16 or not re.fullmatch(_TOKEN + "+", value) or re.search(r"\d{4}-\d\d-\d\d", value):
        return False
    letters, digits = re.search(r"[A-Za-z]", value), re.search(r"\d", value)
    if letters and digits:
        return max(map(len, re.split(r"[/.]", value))) >= 12  # a token, not a path of short parts
    return len(value) >= 24 and bool(re.search(r"[a-z]", value) and re.search(r"[A-Z]", value))


def _kind_of(name: str) -> str | None:
    """What a name says its value is: "password" (kept whatever it looks like, unless a
    placeholder), "token" (kept only when it looks random), or None (not a secret's name)."""
    low = re.sub(r"\d+$", "", name.lower().strip(".-_"))  # key1, key2
    words = [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()) if w]
    if not words or low in ("bypass", "compass", "passport") or words[0] in ("public", "pub"):
        return None
    if words[-1] in _ABOUT and not re.search(r"sess(?:ion)?_?id$|^sid$", low):
        return None
    # the names detect-secrets' keyword plugin knows: what they hold is a secret whatever it looks like
    strong = r"(?:api|auth|service|account|db|database|priv|private|client|master|encryption|signing)[_-]?key"
    if re.search(rf"passw|passwd|passphrase|pwd|secret|contrase|pass$|{strong}|(?:access|auth)[_-]?token", low):
        return "password"
    if re.search(r"token|key$|keys$|apikey|api_key|auth$|credential|sess|^sid$|sig$|signature$", low):
        return "token"
    return None


def _pem64(value: str) -> bool:
    try:
        return b"PRIVATE KEY" in base64.b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return False


def _json64(value: str) -> bool:
    try:
        decoded = base64.b64decode(value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4))
        text = decoded.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return bool(redact(text)[1])


_Check = Callable[[re.Match[str], str], bool]
_CHECKS: dict[str, _Check] = {
    "": lambda m, v: True,
    "value": lambda m, v: not placeholder(v),
    "token": lambda m, v: not placeholder(v) and random_looking(v),
    "pem64": lambda m, v: _pem64(v),
    "json64": lambda m, v: _json64(v),
    "name": lambda m, v: _named(m.group("n"), v, m.string[m.end() : m.end() + 1], _line_of(m)),
    "phrase": lambda m, v: _kind_of(m.group("n")) == "password" and _passphrase(v),
}


def _line_of(m: re.Match[str]) -> str:
    start = m.string.rfind("\n", 0, m.start()) + 1
    end = m.string.find("\n", m.end())
    return m.string[start : end if end >= 0 else len(m.string)]


def _passphrase(value: str) -> bool:
    """Words after a password's name on a line of their own: a passphrase, unless they name
    what goes there, or read as code or as a sentence about passwords."""
    words = value.split()
    if placeholder(value) or len(words) > 8 or re.search(r"[()\[\]{};]|\b(?:is|are|must|should|the|of)\b", value):
        return False
    return all(re.fullmatch(r"[\w'.,!?@#%&+-]+", w) for w in words)


def _named(name: str, value: str, after: str, line: str = "") -> bool:
    kind = _kind_of(name)
    if kind is None or placeholder(value):
        return False
    if name.lower() in ("pwd", "oldpwd") and re.match(r"[/~]|[A-Za-z]:\\", _unquoted(value)):
        return False  # the shell's working folder, not a connection string's password
    if kind == "token":
        session = re.search(r"sess(?:ion)?[_-]?id$|^sid$", name.lower()) and "cookie" not in line.lower()
        if session and _UUID.fullmatch(_unquoted(value)):
            return False  # an agent CLI's session id (Claude Code's sessionId): a name, not a credential
        return random_looking(value)
    code = re.search(r"[(\[]|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$", value) or after in ("(", "[")
    if code and _unquoted(value) == value:
        return False  # code, not a value: password = get_password(), password: Optional[str], form.password.data
    return len(_unquoted(value)) >= 4


def _compiled() -> tuple[tuple[str, frozenset[str], re.Pattern[str], _Check], ...]:
    """Every rule, compiled (the tests look at them all; `_redact` compiles what it needs)."""
    return tuple(_rule(i) for i in range(len(RULES)))


@functools.cache
def _rule(i: int) -> tuple[str, frozenset[str], re.Pattern[str], _Check]:
    kind, keys, pattern, check = RULES[i]
    # a token starts a word, or follows an escape of JSON text pasted whole (`\nghp_...`)
    glued = re.sub(r"^((?:\(\?[a-z]+\))?)\\b", r"\1(?:\\b|(?<=\\\\[nrt]))", pattern)
    return kind, frozenset(keys), re.compile(glued), _CHECKS[check]


@functools.cache
def _keywords() -> tuple[tuple[str, ...], tuple[frozenset[str], ...]]:
    """Every keyword once, and each rule's: a rule is compiled the first time a text holds one."""
    return tuple(sorted({k for _, keys, _, _ in RULES for k in keys})), tuple(frozenset(r[1]) for r in RULES)


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with secret-shaped values replaced by `[REDACTED:kind]`, and the kinds found."""
    # an entry is redacted where it is checked, then where it is written: cached, but not
    # the long texts (an import's detail) that a cache of this size would hold in memory
    done, kinds = _redact(text) if len(text) <= 4096 else _redact.__wrapped__(text)
    return done, list(kinds)


@functools.lru_cache(maxsize=4096)
def _redact(text: str) -> tuple[str, tuple[str, ...]]:
    kinds: list[str] = []
    lowered = text.lower()
    every, gates = _keywords()
    present = {k for k in every if k in lowered}  # one look for each keyword, not one per rule
    for i, keywords in enumerate(gates):
        if not present.isdisjoint(keywords):
            kind, _, pattern, check = _rule(i)
            text, hits = _substitute(pattern, check, f"[REDACTED:{kind}]", text)
            if hits:
                kinds.append(kind)
                lowered = text.lower()
                present = {k for k in every if k in lowered}
    return text, tuple(kinds)


def _substitute(pattern: re.Pattern[str], check: _Check, mark: str, text: str) -> tuple[str, int]:
    """`text` with what `pattern` finds and `check` keeps replaced by `mark`, and how many.
    A match the check refuses is looked into again past its name (a value that is not a
    secret may hold one: `CONFIG='{"auth": "..."}'`)."""
    named = "v" in pattern.groupindex
    marks = [m.span() for m in _MARK.finditer(text)] if "[REDACTED:" in text else []
    out: list[str] = []
    done = pos = hits = 0
    while (m := pattern.search(text, pos)) is not None:
        value = m.group("v") if named else m.group(0)
        start, end = (m.start("v"), m.end("v")) if named else m.span()
        # a value is never part of a mark already made (redacting twice changes nothing)
        if any(a < end and start < b for a, b in marks) or not check(m, value):
            pos = max(m.start() + 1, m.start("v") if named else 0)
            continue
        hits += 1
        out += [text[done:start], mark]
        done, pos = end, max(end, m.end(), m.start() + 1)
    return "".join(out) + text[done:], hits


def redactions(*texts: str) -> list[str]:
    """The kinds of secret `check_text` redacts from these texts, for the writer to be told."""
    found: list[str] = []
    for text in texts:
        found += [k for k in redact(text)[1] if k not in found]
    return found


def redact_value(value: Any, pairs: bool = True) -> tuple[Any, list[str]]:
    """A JSON value with every string in it redacted, keys of objects too, and the kinds
    found. With `pairs`, a string under a key that names a secret (`"password": "x"`) is
    judged by its name, as in a text. A record's own fields are not pairs (`session` is
    rolebook's provenance there): `redact_record`."""
    kinds: list[str] = []

    def add(found: list[str]) -> None:
        kinds.extend(k for k in found if k not in kinds)

    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list | tuple):
        out = []
        for item in value:
            item, found = redact_value(item, pairs)
            out.append(item)
            add(found)
        return out, kinds
    if isinstance(value, dict):
        mapped: dict[Any, Any] = {}
        for key, item in value.items():
            name, found = redact(key) if isinstance(key, str) else (key, [])
            add(found)
            if pairs and isinstance(key, str) and isinstance(item, str) and _named(key, item, ""):
                item, found = f"[REDACTED:{_kind_of(key)}]", [str(_kind_of(key))]
            else:
                item, found = redact_value(item, pairs)
            add(found)
            while name in mapped:  # two keys redacted alike: both kept
                name = f"{name}~"
            mapped[name] = item
        return mapped, kinds
    return value, kinds


def redact_record(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """An archive record (as a dict) with every string in it redacted: its own fields as
    texts, what they hold (an import's `original`) as data whose keys name what it is."""
    kinds: list[str] = []
    out: dict[str, Any] = {}
    for key, item in data.items():
        item, found = redact_value(item, pairs=True) if isinstance(item, dict | list) else redact_value(item)
        kinds.extend(k for k in found if k not in kinds)
        out[key] = item
    return out, kinds


def refuse_secret(value: str, what: str) -> str:
    """`value`, unless it looks like a secret: a name (a tag, a category, a context hash)
    cannot be redacted in place, so it is refused.

    Raises:
        InputError: the value holds a secret-shaped part.
    """
    from ...errors import InputError

    kinds = redact(value)[1]
    if kinds:
        raise InputError(f"the {what} looks like a secret ({', '.join(kinds)}); refused, nothing was written")
    return value
