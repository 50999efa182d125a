"""The typer app and what every command shares: the global options, the one error
translator (a RolebookError is one line on stderr and its exit code: 2, or 1 for "no
match" and "duplicate, nothing written"), and output helpers. Commands register on
`app` from the cli_* modules; `cli.py` is the one place that imports them all."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rolebook.notebook import InputError, RolebookError
from rolebook.notebook.store import Writer, WriteResult, check_role

from ..config import Config, find_root, load_config
from ..session import open_session

if TYPE_CHECKING:
    from ..session import Session

app = typer.Typer(
    name="rolebook",
    help="Memory for AI agents, per role: a small notebook read at every session start, "
    "an archive that loses nothing, rules from mistakes that keep coming back.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Globals:
    root: Path | None
    as_role: str | None
    session_id: str | None

    def config(self) -> Config:
        return load_config(self.root.absolute() if self.root else find_root())

    def session(self, config: Config | None = None, new_roles: bool = False) -> Session:
        """The session API over this root, as this writer (`new_roles`: --new-role given)."""
        return open_session(config or self.config(), self.writer(), new_roles)

    def writer(self) -> Writer:
        return Writer(check_role(self.as_role) if self.as_role else None, self.session_id)


def _globals(ctx: typer.Context) -> Globals:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Globals) else Globals(None, None, None)


def _errors(fn: F) -> F:
    """Turn a RolebookError into one line on stderr and its exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RolebookError as exc:
            sys.stderr.write(f"rolebook: {exc}\n")
            raise typer.Exit(exc.exit_code) from None

    return wrapper  # type: ignore[return-value]


def _say_redacted(kinds: Sequence[str]) -> None:
    """Tell the writer which kinds of secret were redacted before writing."""
    if kinds:
        sys.stderr.write(f"rolebook: redacted before writing: {', '.join(kinds)}\n")


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON document on stdout, for scripts and agents.")]
NewRoleOpt = Annotated[
    bool,
    typer.Option("--new-role", help="Start a role that has no notebook yet (on purpose: a mistyped role is refused)."),
]


@app.callback()
def _main(
    ctx: typer.Context,
    root: Annotated[
        Path | None,
        typer.Option(
            "--root", envvar="ROLEBOOK_ROOT", help="The project root (default: found from the working directory)."
        ),
    ] = None,
    as_role: Annotated[
        str | None,
        typer.Option("--as", envvar="ROLEBOOK_ROLE", help="The role you write as: writes to other roles are refused."),
    ] = None,
    session: Annotated[
        str | None, typer.Option("--session", envvar="ROLEBOOK_SESSION", help="A session id, kept on every record.")
    ] = None,
) -> None:
    ctx.obj = Globals(root, as_role, session)
    from rolebook.notebook import progress

    progress.listen(lambda message: sys.stderr.write(f"rolebook: {message}\n"))


def _read_input(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        with open(source, encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError("no such file", source) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", source) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", source) from None


def _warn(*results: WriteResult) -> None:
    for result in results:
        for warning in result.warnings:
            sys.stderr.write(f"rolebook: warning: {warning}\n")


def _search_warnings(warnings: tuple[str, ...]) -> None:
    for warning in warnings:
        sys.stderr.write(f"rolebook: warning: {warning}\n")
