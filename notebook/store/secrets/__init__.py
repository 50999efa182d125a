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

_V = r"""(?P<v>"[^"\n]*"|'[^'\n]*'|[^\s'"`]+)"""  # a value: quoted (spaces and all), or up to a space
_U = r"""(?P<v>"[^"\n]*"|'[^'\n]*'|`[^`\n]*`|[^\s'"`,;&)}\]<>]+)"""  # one that ends at `&`, `;`, `,`, ...
_TOKEN = r"[A-Za-z0-9+/=_.~%-]"
_MARK = re.compile(r"\[REDACTED:[a-z0-9-]+\]")  # what a token is written with (base64, base64url, URL-encoded)
#: the words that make a name name a secret; `_kind_of` says which of them it really is
_NAME = r"[\w.-]{0,40}?(?i:pass|pwd|secret|token|key|auth|sess|sid|sig|credential|contrase)[\w.-]{0,40}"

#: The rule set, as data: (kind, keywords, pattern, check). A rule runs only on a text
#: that holds one of its keywords (lowercased), as gitleaks does, so redaction costs little
#: on the text agents write. The named group `v`, when a pattern has one, is what is
#: replaced (the rest of the match stays: a `Bearer ` or `password=`); else the whole
#: match. The check (`_CHECKS`) may keep a match: "" keeps none, "value" keeps
#: placeholders, "token" keeps what does not look random, "name" judges the name too.
#: Order matters: blocks first, then shapes with a prefix, then names and flags, then
#: what follows a redacted value. It covers every regex plugin of Yelp's detect-secrets
#: 1.5 (but its public-IP one: an address is not a secret); tests/test_secrets.py runs
#: detect-secrets and tests/fixtures/secrets through it.
RULES: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    (
        "private-key",
        ("private key",),
        r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        "",
    ),
    # PuTTY: what follows Private-Lines is the key, up to its MAC (the public lines are public)
    (
        "private-key",
        ("private-lines",),
        r"(?s)(?P<p>Private-Lines:\s*\d+(?:\r?\n|\\n)?)(?P<v>.+?)(?=(?:\r?\n|\\n)?Private-(?:MAC|Hash)|\Z)",
        "value",
    ),
    ("private-key", ("ls0tls1crudjti",), r"\bLS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}", "pem64"),
    ("aws-access-key", ("akia", "asia", "abia", "acca"), r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b", ""),
    (
        "aws-session-token",
        ("iqojb3jpz2lux2vj", "fwogzxivyxdz"),
        r"(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz)[A-Za-z0-9+/=]{40,}",
        "",
    ),
    (
        "github-token",
        ("gh", "github_pat_"),
        r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        "value",
    ),
    ("gitlab-token", ("gl",), r"\bgl(?:pat|dt|ptt|rt|cbt|imt|oas|ft|soat|agent)-[A-Za-z0-9_-]{20,}", "value"),
    ("anthropic-key", ("sk-ant-",), r"\bsk-ant-[A-Za-z0-9_-]{20,}", "value"),
    ("openai-key", ("sk-",), r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", "value"),
    (
        "stripe-key",
        ("_live_", "_test_", "whsec_"),
        r"\b(?:[spr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_\w{24,})",
        "value",
    ),
    ("slack-token", ("xox",), r"\bxox[abposrce]-[A-Za-z0-9-]{10,}", "value"),
    ("google-api-key", ("aiza",), r"\bAIza[0-9A-Za-z_-]{35}", "value"),
    ("google-oauth-token", ("ya29.",), r"\bya29\.[\w-]{20,}", "value"),
    ("npm-token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b", "value"),
    ("pypi-token", ("pypi-",), r"\bpypi-AgE[A-Za-z0-9_-]{50,}", "value"),
    ("huggingface-token", ("hf_", "api_org_"), r"\b(?:hf|api_org)_[A-Za-z0-9]{30,}\b", "value"),
    ("sendgrid-key", ("sg.",), r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}", "value"),
    ("shopify-token", ("shp",), r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", "value"),
    ("digitalocean-token", ("_v1_",), r"\bdo[opr]_v1_[a-f0-9]{64}\b", "value"),
    ("heroku-key", ("hrku-",), r"\bHRKU-[\w-]{40,}", "value"),
    ("vault-token", ("hvs.", "hvb.", "hvr."), r"\bhv[sbr]\.[\w-]{20,}", "value"),
    # the legacy form is `s.` and 24 letters and digits: one of each case, and a digit, or it is a word
    ("vault-token", ("s.",), r"\bs\.(?=[A-Za-z]*\d)(?=[a-z\d]*[A-Z])(?=[A-Z\d]*[a-z])[A-Za-z0-9]{24}\b", ""),
    ("terraform-token", ("atlasv1",), r"\b[a-z0-9]{14}\.atlasv1\.[\w-]{40,}", ""),
    ("databricks-token", ("dapi",), r"\bdapi[a-f0-9]{32}(?:-\d+)?\b", ""),
    ("atlassian-token", ("atatt",), r"\bATATT[A-Za-z0-9]\w*[\w=-]{60,}", ""),
    ("mailgun-key", ("key-",), r"\bkey-[0-9a-f]{32}\b", ""),
    (
        "artifactory-token",
        ("akc", "ap"),
        r"(?<![A-Za-z0-9])(?:AKC[a-zA-Z0-9]{10,}|AP[0-9A-F](?=[a-zA-Z]*[0-9])[a-zA-Z0-9]{8,})(?![A-Za-z0-9])",
        "",
    ),
    ("mailchimp-key", ("-us",), r"\b[0-9a-f]{32}-us[0-9]{1,2}\b", ""),
    ("square-token", ("sq0",), r"\bsq0(?:csp|atp|idp)-[0-9A-Za-z_-]{22,43}", ""),
    ("telegram-token", (":",), r"\b[0-9]{8,10}:[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", ""),
    ("twilio-key", ("ac", "sk"), r"\b(?:AC|SK)[a-z0-9]{32}\b", ""),
    ("discord-token", (".",), r"\b[MNO][a-zA-Z0-9_-]{23,25}\.[a-zA-Z0-9_-]{6}\.[a-zA-Z0-9_-]{27,38}\b", ""),
    (
        "webhook-url",
        ("hooks.slack.com", "/api/webhooks/", "webhook.office.com"),
        r"https://(?:hooks\.slack\.com/(?:services|workflows)|discord(?:app)?\.com/api/webhooks"
        r"|[a-z0-9-]+\.webhook\.office\.com)/\S+",
        "value",
    ),
    ("jwt", ("eyj",), r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", ""),
    # base64 of JSON (a Docker config, say) that holds a secret once decoded
    ("encoded-secret", ("eyj",), r"\beyJ[A-Za-z0-9+/_-]{30,}={0,2}(?![\w.])", "json64"),
    # credentials in a URL: the password up to the last `@` before the host; a user that is a token
    (
        "url-password",
        ("://",),
        r"""(?P<p>\b[a-z][a-z0-9+.-]*://(?:\[REDACTED:[a-z0-9-]+\]|[^/\s:@'"\[\]]*):)(?P<v>[^\s'"]+?)(?=@[\w.-]+(?::\d+)?(?![\w.@-]))""",
        "value",
    ),
    ("url-token", ("://",), r"(?P<p>\b[a-z][a-z0-9+.-]*://)(?P<v>[\w~.%-]{16,})(?=@|:[^\s/@]*@)", "token"),
    (
        "bearer-token",
        ("bearer", "ssws"),
        r"(?i)(?P<p>\b(?:bearer|ssws)\s+)(?P<v>[A-Za-z0-9._~+/=-]{16,})",
        "value",
    ),
    (
        "basic-auth",
        ("authorization",),
        r"""(?i)(?P<p>\b(?:proxy-)?authorization['"]?\s*[:=]\s*['"]?(?:(?:basic|token|digest|apikey|key|otp)\s+)?)"""
        r"(?P<v>[A-Za-z0-9._~+/=:-]{8,})",
        "value",
    ),
    # command lines: a password given to a client as an option
    (
        "password",
        ("mysql", "mariadb"),
        r"(?P<p>\b(?:mysql\w*|mariadb[\w-]*)\b[^\n|;&]*?\s(?:-p|--password=))" + _V,
        "value",
    ),
    ("password", ("sshpass",), r"(?P<p>\bsshpass\s+-p\s*)" + _V, "value"),
    ("password", ("redis-cli",), r"(?P<p>\bredis-cli\b[^\n|;&]*?\s(?:-a|--pass)\s+)(?!-)" + _V, "value"),
    (
        "password",
        ("curl",),
        r"""(?P<p>\bcurl\b[^\n|;&]*?\s(?:-u|--user)[\s=]*['"]?(?:\[REDACTED:[a-z0-9-]+\]|[^:\s'"]*):)""" + _V,
        "value",
    ),
    (  # .netrc: machine HOST login USER password VALUE, in any order after the machine
        "password",
        ("machine",),
        r"(?P<p>\bmachine\s+\S+(?:\s+(?!password\b)\S+\s+\S+)*?\s+password\s+)(?P<v>\S+)",
        "value",
    ),
    (
        "password",
        ("--",),
        r"(?i)(?P<p>(?<![\w-])--(?P<n>[\w-]{0,30}?(?:pass|secret|token|api-?key|auth-?key|access-?key)[\w-]{0,20})"
        r"(?:=|\s+)(?!-))" + _V,
        "name",
    ),
    # a .pgpass line: host:port:database:user:password
    (
        "password",
        (":",),
        r"(?m)(?P<p>(?:^|(?<=\s))(?:[\w-]*[A-Za-z][\w.-]*|\d+\.\d+\.\d+\.\d+|\*):(?:\d{1,5}|\*):[\w.*-]+:[\w.*-]+:)"
        r"(?P<v>\S{4,})",
        "value",
    ),
    # `name: PGPASSWORD` then `value: ...` (a Kubernetes env list, an ECS task definition)
    (
        "password",
        ("value",),
        r"""(?P<p>\bname['"]?\s*[:=]\s*['"]?(?P<n>""" + _NAME + r""")['"]?\s*,?\s*(?:\r?\n[ \t-]*)?['"]?"""
        r"""value['"]?\s*[:=]\s*)""" + _U,
        "name",
    ),
    # name = value, name: value, "name": "value", NAME=value, ?name=value&: the name says what it holds
    (
        "password",
        ("pass", "pwd", "secret", "token", "key", "auth", "sess", "sid", "sig", "credential", "contrase"),
        r"""(?P<p>(?<![\w.$-])['"]?(?P<n>"""
        + _NAME
        + r""")['"]?\s*(?::=|=>|=(?!=)|:(?![:/])|%(?:25)?3[dD])\s*)"""
        + _U,
        "name",
    ),
    (  # the key a JWT library signs with, given in the call
        "password",
        ("jwt.",),
        r"""(?P<p>\bjwt\.(?:sign|encode|decode|verify)\(\s*[^,()]+,\s*)(?P<v>"[^"\n]{8,}"|'[^'\n]{8,}')""",
        "value",
    ),
    # what a redacted value leaves behind: its secret half next to it, its wrapped second line
    (  # Client("SK...", "<its secret>"): a random string passed right after a credential
        "secret",
        ("[redacted:",),
        r"""(?P<p>\[REDACTED:[a-z0-9-]+\]['"]?\s*,\s*)(?P<v>"[\w+/=-]{16,}"|'[\w+/=-]{16,}')""",
        "token",
    ),
    (
        "secret",
        ("[redacted:",),
        r"(?P<p>\[REDACTED:[a-z0-9-]+\]\\?[ \t]*\r?\n[ \t]*(?:>[ \t]*)?)(?P<v>" + _TOKEN + "{16,})(?!" + _TOKEN + ")",
        "token",
    ),
)

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
_WORDS = frozenset("str bytes int bool true false yes no on off".split())
#: name endings that say the value is about a secret, not one: `client_id`, `token_type`, ...
_ABOUT = frozenset(
    "id ids name names type types path file dir url uri endpoint header headers expires expiry expiration exp ttl "
    "duration length len size count limit format version at in hint policy prefix field env var label usage "
    "required enabled strength regex pattern min max timeout algorithm alg scheme kind mode source provider ref "
    "rotation location arn store manager client service handler factory class".split()
)


def _unquoted(value: str) -> str:
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
    return len(set(tail)) == 1 or (len(last) >= 8 and len(set(last)) == 1)


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
    "name": lambda m, v: _named(m.group("n"), v, m.string[m.end() : m.end() + 1]),
}


def _named(name: str, value: str, after: str) -> bool:
    kind = _kind_of(name)
    if kind is None or placeholder(value):
        return False
    if name.lower() in ("pwd", "oldpwd") and re.match(r"[/~]|[A-Za-z]:\\", _unquoted(value)):
        return False  # the shell's working folder, not a connection string's password
    if kind == "token":
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
    from ..errors import InputError

    kinds = redact(value)[1]
    if kinds:
        raise InputError(f"the {what} looks like a secret ({', '.join(kinds)}); refused, nothing was written")
    return value
