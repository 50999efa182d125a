"""Secret-shaped values, redacted before anything is written (DESIGN.md section 10).

Every record is redacted where it is appended to an archive (`archive.append_records`),
whatever command, importer or field it came from; entries are redacted earlier too, as
they are checked, so that the notebook and the archive hold the same text.
"""

from __future__ import annotations

import re
from typing import Any

# (kind, pattern): group 1, when there is one, is kept (a `Bearer ` or `password=` prefix).
_SECRETS = [
    (
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
    ),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("gitlab-token", re.compile(r"\bgl(?:pat|dt|ptt|rt)-[A-Za-z0-9_-]{20,}")),
    ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}")),
    ("stripe-key", re.compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi-token", re.compile(r"\bpypi-AgE[A-Za-z0-9_-]{50,}")),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z]{30,}\b")),
    ("sendgrid-key", re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    ("shopify-token", re.compile(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b")),
    ("digitalocean-token", re.compile(r"\bdo[opr]_v1_[a-f0-9]{64}\b")),
    (
        "webhook-url",
        re.compile(r"https://(?:hooks\.slack\.com/(?:services|workflows)|discord(?:app)?\.com/api/webhooks)/\S+"),
    ),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("bearer-token", re.compile(r"(?i)(\bbearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/=-]{16,}")),
    (
        "basic-auth",
        re.compile(r"(?i)(\b(?:proxy-)?authorization\s*[:=]\s*basic\s+)(?!\[REDACTED)[A-Za-z0-9+/]{8,}={0,2}"),
    ),
    # the password may hold '/' (and anything but '@' and space): the scheme and user fix where it starts
    ("url-password", re.compile(r"(\b[a-z][a-z0-9+.-]*://[^/\s:@]+:)(?!\[REDACTED)[^@\s]+(?=@)")),
    (
        "password",
        # key = value, key: value, "key": "value" (JSON), AWS_SECRET_ACCESS_KEY=..., AccountKey=...
        re.compile(
            r"(?i)(\b[\w-]*?(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|accountkey"
            r"|private[_-]?key)[\w-]*['\"]?\s*[:=]\s*)"
            r"(?!\[REDACTED)['\"]?[^\s'\",}]{6,}['\"]?"
        ),
    ),
]


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with secret-shaped values replaced by `[REDACTED:kind]`, and the kinds found."""
    kinds: list[str] = []
    for kind, pattern in _SECRETS:
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
    from .errors import InputError

    kinds = redact(value)[1]
    if kinds:
        raise InputError(f"the {what} looks like a secret ({', '.join(kinds)}); refused, nothing was written")
    return value
