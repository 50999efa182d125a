"""The secret rule set against a maintained one: Yelp's detect-secrets, run over a corpus of
realistic secrets, finds nothing in what rolebook keeps; and the corpus goes through the
commands into files that hold none of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from rolebook.notebook.store.secrets import RULES, redact
from typer.testing import CliRunner

pytestmark = pytest.mark.usefixtures("declared_roles")  # tmp_path: a project with its roles declared

# one line per shape, as an agent might paste it (every value is made up)
CORPUS = [
    "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "git clone https://ghp_" + "A1b2C3d4" * 5 + "@github.com/acme/app",
    "token github_pat_11ABCDEFG0" + "x9Y8z7" * 8,
    "glpat-" + "x1Y2z3" * 4 + " is the CI token",
    "OPENAI_API_KEY=sk-proj-" + "Zy9" * 16,
    "ANTHROPIC_API_KEY=sk-ant-api03-" + "Qw8_" * 10,
    "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "slack xoxb-1234567890-0987654321-abcdefghijklmnopqrstuvwx",
    "maps key AIzaSyD-" + "a1B2c3D4e5" * 3 + "abcd",
    "//registry.npmjs.org/:_authToken=npm_" + "a1B2c3D4e5" * 3 + "abcdef",
    "twine upload -p pypi-AgEIcHlwaS5vcmc" + "Q1w2E3r4" * 8,
    "HF_TOKEN=hf_" + "AbCdEfGhIj" * 3 + "klmn",
    "SENDGRID SG." + "a1" * 11 + "." + "b2" * 21,
    "shpat_" + "a1" * 16,
    "dop_v1_" + "ab" * 32,
    "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwx12'",
    "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='",
    "postgres://admin:hunter2hunter2@db.internal/prod",
    "mongodb+srv://svc:p4ss/w0rd@cluster0.example.net",
    '{"password": "hunter2hunter2", "user": "x"}',
    "DB_PASSWORD=correcthorsebattery",
    "db_pass: Tr0ub4dor&3",
    "client_key = 'x8Kq2mVn7Lp4'",
    "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
    + "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA" * 2
    + "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5M==;",
    "ibm_cloud_iam_api_key = " + "aB3_dE6-gH9" * 4,
    "cos secret_access_key = " + "0123456789abcdef" * 3,
    "softlayer_api_key: " + "0a1b2c3d" * 8,
    "cloudant_password='" + "0123456789abcdef" * 4 + "'",
    "artifactory token AKCp5budTFpbypBqQbGJPz3pGCi28pPivfWczqjfYb9drAmd9LbRZbj6UpKFxJXA8ksWGc9fM",
    "mailchimp " + "0123456789abcdef" * 2 + "-us12",
    "square sq0csp-" + "A1b2C3d4E5" * 4 + "f6G",
    "telegram bot 123456789:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq",
    "twilio SK" + "a1b2c3d4" * 4,
    "discord bot MTE4NjIwNDE3NjkxODI3MjE0Mg.GaB3cD.abcdefghijklmnopqrstuvwxyz0",
    "https://hooks.slack.com/services/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",
    "https://discord.com/api/webhooks/123456/abcdefABCDEFghij",
    "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA7secretbody -----END RSA PRIVATE KEY-----",
    "-----BEGIN PGP PRIVATE KEY BLOCK----- lQOYBF0secretbody -----END PGP PRIVATE KEY BLOCK-----",
]

#: detect-secrets' regex plugins: every one but the public-IP plugin (an address is no secret)
#: and the entropy plugins (they flag hashes and ids: no rule set as data can follow them)
PLUGINS = [
    "ArtifactoryDetector",
    "AWSKeyDetector",
    "AzureStorageKeyDetector",
    "BasicAuthDetector",
    "CloudantDetector",
    "DiscordBotTokenDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "IbmCloudIamDetector",
    "IbmCosHmacDetector",
    "JwtTokenDetector",
    "KeywordDetector",
    "MailchimpDetector",
    "NpmDetector",
    "OpenAIDetector",
    "PrivateKeyDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "SlackDetector",
    "SoftlayerDetector",
    "SquareOAuthDetector",
    "StripeDetector",
    "TelegramBotTokenDetector",
    "TwilioKeyDetector",
]


def found_by_detect_secrets(line: str) -> list[tuple[str, str]]:
    scan = pytest.importorskip("detect_secrets.core.scan", reason="detect-secrets (the test extra) is not installed")
    from detect_secrets.settings import transient_settings

    with transient_settings({"plugins_used": [{"name": name} for name in PLUGINS]}):
        return [(s.type, s.secret_value) for s in scan.scan_line(line) if s.secret_value]


def test_the_oracle_knows_every_plugin_it_is_given() -> None:
    pytest.importorskip("detect_secrets", reason="detect-secrets (the test extra) is not installed")
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    known = {cls.__name__ for cls in get_mapping_from_secret_type_to_class().values()}
    assert set(PLUGINS) <= known
    # a plugin that a new detect-secrets adds shows up here, to be covered or excluded on purpose
    assert known - set(PLUGINS) <= {"IPPublicDetector", "Base64HighEntropyString", "HexHighEntropyString"}


@pytest.mark.parametrize("line", CORPUS)
def test_nothing_detect_secrets_finds_is_left_by_rolebook(line: str) -> None:
    kept, kinds = redact(line)
    assert kinds, f"rolebook redacts nothing in {line!r}"
    for kind, value in found_by_detect_secrets(line):
        assert value not in kept, (kind, value, kept)


def test_detect_secrets_finds_most_of_the_corpus() -> None:
    """The oracle is not vacuous: it recognizes most lines of the corpus itself."""
    assert sum(1 for line in CORPUS if found_by_detect_secrets(line)) >= len(CORPUS) // 2


#: and the labelled corpus (tests/fixtures/secrets): every shape the rules know
FIXTURE = [
    json.loads(line)["text"]
    for line in (Path(__file__).parent / "fixtures/secrets/secrets.jsonl").read_text(encoding="utf-8").splitlines()
]


def test_every_rule_redacts_a_line_of_the_corpus() -> None:
    kinds = {kind for line in CORPUS + FIXTURE for kind in redact(line)[1]}
    assert {kind for kind, *_ in RULES} <= kinds


def test_the_keywords_of_a_rule_are_in_every_text_it_matches() -> None:
    """The prefilter skips a rule when its keywords are absent: never when it would match."""
    from rolebook.notebook.store.secrets import _compiled

    for line in CORPUS + FIXTURE:
        for kind, keywords, pattern, check in _compiled():
            for match in pattern.finditer(line):
                value = match.group("v") if "v" in pattern.groupindex else match.group(0)
                if check(match, value):
                    assert any(k in line.lower() for k in keywords), (kind, line)


def test_the_corpus_goes_through_update_and_store_into_no_file(tmp_path: Path) -> None:
    runner = CliRunner()
    for n, line in enumerate(CORPUS):
        for args in (["update", "coder", "-l", f"{n}: pasted {line}"], ["store", "coder", "notes", f"{n}: {line}"]):
            result = runner.invoke(app, ["--root", str(tmp_path), *args])
            assert result.exit_code == 0, (args, result.stderr)
    values = {value for line in CORPUS for _, value in found_by_detect_secrets(line)}
    assert values
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for value in values:
                assert value.encode() not in data, (path, value)


@pytest.mark.parametrize(
    "text",
    [
        'bash -c "mysql --user=report --password=\\"GvAo^n*qeQ2zM*wpi=2\\" reporting"',  # a shell's "..."
        '{"v": 1, "id": "cut", "text": "mysql -u app --password=\\"GvAo^n*qeQ2zM*wpi=2\\" app',  # a line cut short
        '{\\"db_password\\": \\"GvAo^n*qeQ2zM*wpi=2\\"}',  # a JSON string's text
        'sh -c "bash -c \\"mysql -p\\\\\\"GvAo^n*qeQ2zM*wpi=2\\\\\\" db\\""',  # escaped twice over
    ],
)
def test_a_value_between_escaped_quotes_is_redacted_whole(text: str) -> None:
    """`--password=\\"...\\"`: the backslash alone was taken for the value and the secret
    after it kept (a cut archive line in an export brought one into the archive)."""
    clean, kinds = redact(text)
    assert "GvAo^n*qeQ2zM*wpi=2" not in clean and kinds == ["password"], clean
