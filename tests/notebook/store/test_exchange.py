"""`rolebook import rolebook FILE`: an export from anywhere is read without a traceback.
Deep nesting is refused whole, naming the file and line; a `raw_b64` line brings back one
archive line, never records smuggled inside it; anything else bad is a listed bad line."""

from __future__ import annotations

import base64
import json
import os
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rolebook.agents.cli import app
from rolebook.notebook.errors import InputError
from rolebook.notebook.store.exchange import MAX_DEPTH, nesting, read_export
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from roots import project

runner = CliRunner()
HEADER = {"format": "rolebook-export", "v": 1, "rolebook": "0.1.0", "at": "2026-01-01T00:00:00Z", "roles": ["coder"]}
RECORD = {"v": 1, "id": "a1b2c3d4e5f6", "op": "added", "role": "coder", "section": "learnings", "date": "2026-01-01"}


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    project(root)
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def export(path: Path, *lines: str | dict[str, object]) -> Path:
    rows = [json.dumps(HEADER)] + [line if isinstance(line, str) else json.dumps(line) for line in lines]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def files(root: Path) -> list[str]:
    """The files the project holds beyond its rolebook.yaml, the derived folder aside."""
    derived = root / "agents/state/.rolebook"
    held = (p for p in root.rglob("*") if p.is_file() and derived not in p.parents) if root.exists() else ()
    return sorted(str(p.relative_to(root)) for p in held if p != root / "rolebook.yaml")


def test_an_export_nested_a_million_levels_deep_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    deep = "[" * 1_000_000 + "]" * 1_000_000
    nested: list[object] = []
    for _ in range(MAX_DEPTH + 5):  # deep enough to be refused, shallow enough for any parser
        nested = [nested]
    cases = {
        "header.jsonl": (deep + "\n", 1),
        "notebook.jsonl": (json.dumps(HEADER) + '\n{"notebook": "coder", "text": "x", "deep": ' + deep + "}\n", 2),
        "record.jsonl": (json.dumps(HEADER) + '\n{"archive": "coder", "record": ' + deep[:60_000] + "}\n", 2),
        "shallow.jsonl": (
            json.dumps(HEADER) + "\n" + json.dumps({"archive": "coder", "record": {**RECORD, "o": nested}}),
            2,
        ),
    }
    for name, (text, line) in cases.items():
        source = tmp_path / name
        source.write_text(text, encoding="utf-8")
        code, out, err = rb(tmp_path / "root", "import", "rolebook", str(source), "--skip-bad")
        assert code == 2 and err.count("\n") == 1 and err.startswith(f"rolebook: {source}:{line}: "), (name, err)
        assert "nested" in err and "Traceback" not in out + err
        assert files(tmp_path / "root") == []


def test_a_raw_b64_line_that_holds_more_than_one_line_or_a_record_is_refused(tmp_path: Path) -> None:
    smuggled = json.dumps({**RECORD, "text": "one"}) + "\n" + json.dumps({**RECORD, "id": "b2", "text": "two"}) + "\n"
    record = json.dumps({**RECORD, "text": "a record sent as bytes"}) + "\n"
    source = export(
        tmp_path / "e.jsonl",
        {"archive": "coder", "raw_b64": base64.b64encode(smuggled.encode()).decode()},
        {"archive": "coder", "raw_b64": base64.b64encode(record.encode()).decode()},
        {"archive": "coder", "raw_b64": base64.b64encode(b'{"v":1,"id":"cut short').decode()},
    )
    code, _, err = rb(tmp_path / "root", "import", "rolebook", str(source))
    assert code == 2 and files(tmp_path / "root") == []
    assert f"{source}:2: raw_b64 holds 2 lines, not one archive line" in err
    assert f"{source}:3: raw_b64 holds a record" in err
    code, _, err = rb(tmp_path / "root", "import", "rolebook", str(source), "--skip-bad")
    assert code == 0, err
    archive = (tmp_path / "root/agents/state/archive/coder.jsonl").read_bytes()
    assert archive == b'{"v":1,"id":"cut short\n'  # the one malformed line, kept as it was; no smuggled record
    # what an export writes as raw_b64 (a line that is not a record, a last line cut short) still comes back
    source, target = tmp_path / "a", tmp_path / "b"
    assert rb(source, "update", "coder", "-l", "kept")[0] == 0
    archive_path = source / "agents/state/archive/coder.jsonl"
    archive_path.write_bytes(archive_path.read_bytes() + b"not json at all \xff\n" + b'{"v":1,"id":"cut')
    code, out, _ = rb(source, "export")
    (tmp_path / "again.jsonl").write_text(out, encoding="utf-8")
    assert code == 0 and rb(target, "import", "rolebook", str(tmp_path / "again.jsonl"))[0] == 0
    assert (target / "agents/state/archive/coder.jsonl").read_bytes() == archive_path.read_bytes() + b"\n"


def test_nesting_is_counted_without_recursion() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert nesting(deep) == MAX_DEPTH + 1 and nesting({"a": [1, {"b": 2}]}) == 3 and nesting("x") == 0


# -- anything at all: a Bundle or one InputError, never another exception

_json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20), st.just("\ud800")
)
_json = st.recursive(
    _json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
_line = st.one_of(
    _json.map(lambda v: json.dumps(v)),
    st.builds(
        lambda r: json.dumps({"archive": "coder", "record": r}),
        st.fixed_dictionaries({}, optional={**{k: _json for k in RECORD}, "text": _json}),
    ),
    st.builds(lambda r: json.dumps({"archive": "coder", "record": {**RECORD, "text": r}}), st.text(max_size=30)),
    st.builds(lambda t: json.dumps({"notebook": "coder", "text": t}), st.text(max_size=80)),
    st.builds(
        lambda b: json.dumps({"archive": "coder", "raw_b64": base64.b64encode(b).decode()}), st.binary(max_size=60)
    ),
    st.builds(lambda s: json.dumps({"archive": "coder", "raw_b64": s}), st.text(max_size=30)),
    st.builds(lambda r, s: json.dumps({"rule": r, "line": s}), st.one_of(st.just("coder"), _json), _json),
    st.builds(
        lambda b: json.dumps({"archive": "coder", "record": RECORD, "raw_b64": base64.b64encode(b).decode()}),
        st.one_of(st.binary(max_size=60), st.just(json.dumps(RECORD, indent=1).encode())),
    ),
    st.integers(min_value=1, max_value=5000).map(lambda n: "[" * n + "]" * n),
    st.integers(min_value=1, max_value=5000).map(lambda n: '{"archive": "coder", "record": ' + "[" * n + "]" * n + "}"),
    st.integers(min_value=4000, max_value=6000).map(
        lambda n: '{"archive": "coder", "record": {"count": ' + "9" * n + "}}"
    ),
    st.just('{"archive": "coder", "record": {"v": 1, "id": "x", "op": "added", "count": 1e999999}}'),
    st.text(max_size=40),
    st.builds(lambda r: json.dumps({"failures": "coder", "record": r}), _json),
    st.builds(
        lambda b: json.dumps({"failures": "coder", "raw_b64": base64.b64encode(b).decode()}), st.binary(max_size=60)
    ),
    st.builds(lambda r, s: json.dumps({"failures": r, "raw_b64": s}), _json, _json),
)
_file = st.builds(
    lambda bom, lines, crlf, head: (
        (b"\xef\xbb\xbf" if bom else b"")
        + (b"\r\n" if crlf else b"\n").join(line.encode("utf-8", "surrogatepass") for line in [head, *lines])
    ),
    st.booleans(),
    st.lists(_line, max_size=6),
    st.booleans(),
    st.one_of(st.just(json.dumps(HEADER)), _line),
)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(_file)
def test_reading_any_export_gives_a_bundle_or_one_input_error(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "e.jsonl"
        path.write_bytes(data)
        try:
            bundle = read_export(path)
        except InputError as exc:
            assert str(exc).startswith(f"{path}:") and "\n" not in str(exc)
            return
        for lines in [*bundle.lines.values(), *bundle.journals.values()]:
            assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in lines)


@settings(max_examples=40 if os.environ.get("HYPOTHESIS_PROFILE") != "long" else 1000, deadline=None)
@given(_file, st.booleans())
def test_importing_any_export_exits_0_or_2_with_every_line_said_by_rolebook(data: bytes, skip_bad: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "e.jsonl"
        path.write_bytes(data)
        result = runner.invoke(
            app, ["--root", f"{folder}/root", "import", "rolebook", str(path), *(["--skip-bad"] * skip_bad)]
        )
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code in (0, 2)
        assert all(line.startswith("rolebook: ") for line in result.stderr.splitlines()), result.stderr
        assert result.exit_code == 0 or result.stderr


# -- a round trip gives back every archive line byte for byte, and the rule lines


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30),
    st.booleans(),
    st.sampled_from([(",", ":"), (", ", ": "), (",", ": ")]),
    st.permutations(["v", "id", "op", "role", "section", "date", "text"]),
    st.lists(
        st.sampled_from(
            [
                "- Keep the bubble in. _(coder; incidents 2026-01-01)_",
                "* Ask. _(coder; incidents 2026-01-02, 2026-01-03)_",
            ]
        ),
        max_size=2,
    ),
)
def test_an_archive_line_in_any_json_form_and_the_rule_lines_come_back_as_written(
    text: str, ascii_only: bool, separators: tuple[str, str], order: list[str], rules: list[str]
) -> None:
    from rolebook.notebook.store.exchange import export_lines
    from rolebook.notebook.store.layout import Layout

    record = {**RECORD, "text": text or "x"}
    raw = json.dumps({k: record[k] for k in order}, ensure_ascii=ascii_only, separators=separators).encode() + b"\n"
    with tempfile.TemporaryDirectory() as folder:
        layout = Layout.default(Path(folder))
        layout.archive.mkdir(parents=True)
        layout.archive_path("coder").write_bytes(raw)
        path = Path(folder) / "e.jsonl"
        lines = export_lines(layout, ["coder"], "0", "2026-01-01T00:00:00Z", [("coder", r) for r in rules])
        path.write_text("".join(lines), encoding="utf-8")
        bundle = read_export(path)
    assert bundle.problems == [] and bundle.lines == {"coder": [raw]}
    assert [(role, line) for _, role, line in bundle.rules] == [("coder", r) for r in rules]


def test_bytes_beside_a_record_that_say_another_record_are_refused(tmp_path: Path) -> None:
    other = json.dumps({**RECORD, "text": "not what the record says"}).encode() + b"\n"
    count_true = json.dumps({**RECORD, "count": True}).encode() + b"\n"
    source = export(
        tmp_path / "e.jsonl",
        {"archive": "coder", "record": {**RECORD, "text": "said"}, "raw_b64": base64.b64encode(other).decode()},
        {"archive": "coder", "record": {**RECORD, "count": 1}, "raw_b64": base64.b64encode(count_true).decode()},
        {"rule": "coder", "line": "not a rule"},
        {"rule": "coder", "line": "- Ask. _(designer; incidents 2026-01-01)_"},
    )
    code, _, err = rb(tmp_path / "root", "import", "rolebook", str(source))
    assert code == 2 and files(tmp_path / "root") == []
    assert f"{source}:2: raw_b64 beside a record holds another record than it" in err
    assert f"{source}:3: raw_b64 beside a record holds another record than it" in err
    assert f"{source}:4: not a rule line" in err
    assert f"{source}:5: a rule line of role 'designer' given for role 'coder'" in err


# -- a failure journal: every line comes back as it was, one rolebook cannot read included

_journal_line = st.one_of(
    _json.map(lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")),
    _json.map(lambda v: json.dumps(v).encode()),  # another hand's spacing
    st.builds(
        lambda kind, text: json.dumps(
            {"type": kind, "failure": "f1", "text": text}, ensure_ascii=False, separators=(",", ":")
        ).encode("utf-8", "surrogatepass"),
        st.sampled_from(["failure", "link", "seen", "a-kind-from-later"]),
        st.text(max_size=20),
    ),
    st.integers(min_value=60, max_value=3000).map(lambda n: b'{"a":' + b"[" * n + b"]" * n + b"}"),
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_journal_line, max_size=6), st.booleans())
def test_any_failure_journal_comes_back_from_an_export_line_for_line(lines: list[bytes], torn: bool) -> None:
    from rolebook.notebook.store.exchange import export_lines
    from rolebook.notebook.store.failures import failures_path
    from rolebook.notebook.store.layout import Layout

    with tempfile.TemporaryDirectory() as folder:
        layout = Layout.default(Path(folder))
        journal = failures_path(layout, "coder")
        journal.parent.mkdir(parents=True)
        journal.write_bytes(b"\n".join(lines) + (b"" if torn or not lines else b"\n"))
        path = Path(folder) / "e.jsonl"
        path.write_text("".join(export_lines(layout, ["coder"], "0", "2026-01-01T00:00:00Z")), encoding="utf-8")
        bundle = read_export(path)
    kept = [line + b"\n" for line in lines if line.strip()]
    assert bundle.problems == [] and bundle.journals == ({"coder": kept} if kept else {})
