"""The rule set of secret shapes, as data (see the package's docstring for how it is run)."""

from __future__ import annotations

#: a value between escaped quotes (`--password=\"x\"` inside a shell's "...", a JSON string's
#: text, escaped twice over): quoted too, else its backslash alone was the value, the rest kept
_Q = r"""\\+"[^"\n]*?\\+"|"""
_V = r"""(?P<v>""" + _Q + r""""[^"\n]*"|'[^'\n]*'|[^\s'"`]+)"""  # a value: quoted (spaces and all), or up to a space
_U = r"""(?P<v>""" + _Q + r""""[^"\n]*"|'[^'\n]*'|`[^`\n]*`|[^\s'"`,;&)}\]<>]+)"""  # one ending at `&`, `;`, `,` ...
_TOKEN = r"[A-Za-z0-9+/=_.~%-]"
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
    # `password: a passphrase of words` on a line of its own (YAML): the rest of the line
    (
        "password",
        ("pass", "pwd", "secret", "token", "key", "auth", "sess", "sid", "sig", "credential", "contrase"),
        r"""(?m)(?P<p>^[ \t]*(?:-[ \t]+)?['"]?(?P<n>"""
        + _NAME
        + r""")['"]?[ \t]*:[ \t]*)(?P<v>[^\s'"`#{\[|>&*!%$<(][^\n]*?[ \t][^\n]*?)[ \t]*$""",
        "phrase",
    ),
    # name = value, name: value, "name": "value" (its quotes escaped too), NAME=value, ?name=value&:
    # the name says what it holds
    (
        "password",
        ("pass", "pwd", "secret", "token", "key", "auth", "sess", "sid", "sig", "credential", "contrase"),
        r"""(?P<p>(?<![\w.$-])['"]?(?P<n>"""
        + _NAME
        + r""")(?:\\*['"])?\s*(?::=|=>|=(?!=)|:(?![:/])|%(?:25)?3[dD])\s*)"""
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
