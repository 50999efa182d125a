"""Secret-shaped values, redacted before anything is written (DESIGN.md section 10).

Every record is redacted where it is appended to an archive (`archive.append_records`),
whatever command, importer or field it came from; entries are redacted earlier too, as
they are checked, so that the notebook and the archive hold the same text.
"""

from __future__ import annotations

import functools
import re
from typing import Any

#: The rule set, as data: (kind, keywords, pattern). A rule runs only on a text that holds
#: one of its keywords (lowercased), as gitleaks does, so redaction costs little on the
#: text agents write; group 1, when a pattern has one, is kept (a `Bearer ` or
#: `password=` prefix). It covers every regex plugin of Yelp's detect-secrets 1.5 (but
#: its public-IP one: an address is not a secret) and token shapes it lacks;
#: tests/test_secrets.py runs detect-secrets over a corpus of realistic secrets and fails
#: on any value it finds that rolebook leaves.
RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "private-key",
        ("private key",),
        r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("aws-access-key", ("akia", "asia", "abia", "acca"), r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("github-token", ("gh", "github_pat_"), r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("gitlab-token", ("gl",), r"\bgl(?:pat|dt|ptt|rt|cbt|imt|oas|ft|soat|agent)-[A-Za-z0-9_-]{20,}"),
    ("anthropic-key", ("sk-ant-",), r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-key", ("sk-",), r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("stripe-key", ("_live_", "_test_"), r"\b[spr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("slack-token", ("xox",), r"\bxox[abposrce]-[A-Za-z0-9-]{10,}"),
    ("google-api-key", ("aiza",), r"\bAIza[0-9A-Za-z_-]{35}"),
    ("npm-token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", ("pypi-",), r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
    ("huggingface-token", ("hf_",), r"\bhf_[A-Za-z]{30,}\b"),
    ("sendgrid-key", ("sg.",), r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    ("shopify-token", ("shp",), r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("digitalocean-token", ("_v1_",), r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    (
        "artifactory-token",
        ("akc", "ap"),
        r"(?<![A-Za-z0-9])(?:AKC[a-zA-Z0-9]{10,}|AP[0-9A-F](?=[a-zA-Z]*[0-9])[a-zA-Z0-9]{8,})(?![A-Za-z0-9])",
    ),
    ("mailchimp-key", ("-us",), r"\b[0-9a-f]{32}-us[0-9]{1,2}\b"),
    ("square-token", ("sq0",), r"\bsq0(?:csp|atp|idp)-[0-9A-Za-z_-]{22,43}"),
    ("telegram-token", (":",), r"\b[0-9]{8,10}:[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    ("twilio-key", ("ac", "sk"), r"\b(?:AC|SK)[a-z0-9]{32}\b"),
    ("discord-token", (".",), r"\b[MNO][a-zA-Z0-9_-]{23,25}\.[a-zA-Z0-9_-]{6}\.[a-zA-Z0-9_-]{27,38}\b"),
    (
        "webhook-url",
        ("hooks.slack.com", "/api/webhooks/", "webhook.office.com"),
        r"https://(?:hooks\.slack\.com/(?:services|workflows)|discord(?:app)?\.com/api/webhooks"
        r"|[a-z0-9-]+\.webhook\.office\.com)/\S+",
    ),
    ("jwt", ("eyj",), r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("bearer-token", ("bearer",), r"(?i)(\bbearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/=-]{16,}"),
    (
        "basic-auth",
        ("basic",),
        r"(?i)(\b(?:proxy-)?authorization\s*[:=]\s*basic\s+)(?!\[REDACTED)[A-Za-z0-9+/]{8,}={0,2}",
    ),
    # the password may hold '/' (and anything but '@' and space): the scheme and user fix where it starts
    ("url-password", ("://",), r"(\b[a-z][a-z0-9+.-]*://[^/\s:@]+:)(?!\[REDACTED)[^@\s]+(?=@)"),
    (
        "password",
        ("pass", "pwd", "secret", "key", "token", "contrase"),
        # key = value, key: value, "key": "value" (JSON), AWS_SECRET_ACCESS_KEY=..., AccountKey=...,
        # ibm_cloud_iam_api_key=..., DB_PASS=...: the names detect-secrets' keyword plugin knows
        r"(?i)(\b[\w-]*?(?:password|passwd|pwd|secret|api[_-]?key|auth[_-]?key|service[_-]?key|account[_-]?key"
        r"|db[_-]?key|database[_-]?key|priv(?:ate)?[_-]?key|client[_-]?key|access[_-]?token|auth[_-]?token"
        r"|db[_-]?pass|database[_-]?pass|key[_-]?pass|contrase(?:ñ|n)a)[\w-]*['\"]?\s*[:=]\s*)"
        r"(?!\[REDACTED)['\"]?[^\s'\",}]{6,}['\"]?",
    ),
)


@functools.cache
def _compiled() -> tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...]:
    return tuple((kind, keywords, re.compile(pattern)) for kind, keywords, pattern in RULES)


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with secret-shaped values replaced by `[REDACTED:kind]`, and the kinds found."""
    kinds: list[str] = []
    lowered = text.lower()
    for kind, keywords, pattern in _compiled():
        if not any(k in lowered for k in keywords):
            continue
        mark = f"[REDACTED:{kind}]"
        text, n = pattern.subn(lambda m: (m.group(1) if m.re.groups else "") + mark, text)  # noqa: B023
        if n:
            kinds.append(kind)
    return text, kinds


def redactions(*texts: str) -> list[str]:
    """The kinds of secret `check_text` redacts from these texts, for the writer to be told."""
    found: list[str] = []
    for text in texts:
        found += [k for k in redact(text)[1] if k not in found]
    return found


def redact_value(value: Any) -> tuple[Any, list[str]]:
    """A JSON value with every string in it redacted, and the kinds found."""
    if isinstance(value, str):
        return redact(value)
    kinds: list[str] = []
    if isinstance(value, list):
        out = []
        for item in value:
            item, found = redact_value(item)
            out.append(item)
            kinds += [k for k in found if k not in kinds]
        return out, kinds
    if isinstance(value, dict):
        mapped = {}
        for key, item in value.items():
            item, found = redact_value(item)
            mapped[key] = item
            kinds += [k for k in found if k not in kinds]
        return mapped, kinds
    return value, kinds


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
