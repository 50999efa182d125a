"""The typer app and what every command shares: the global options, the one error
translator (a RolebookError is one line on stderr and its exit code: 2, or 1 for "no
match" and "duplicate, nothing written"), the `hot` commands' body, and output helpers.
Commands register on `app` from the other modules here; `__init__.py` imports them all."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rolebook.notebook import RolebookError
from rolebook.notebook.display import shown
from rolebook.notebook.store import WriteResult
from typer.core import TyperGroup

if TYPE_CHECKING:  # the click that typer 0.26-0.28 vendors (click itself is not installed)
    from typer._click import Context as ClickContext

from .. import fastpath
from ..session_io import Globals, begin, print_json, warn

#: the commands of a session and promote, listed first by `rolebook --help`; the rest follow
#: in the order they are registered
FIRST = ("init", "read", "update", "promote")


class _Group(TyperGroup):
    def list_commands(self, ctx: ClickContext) -> list[str]:
        names = super().list_commands(ctx)
        return [n for n in FIRST if n in names] + [n for n in names if n not in FIRST]


app = typer.Typer(
    name="rolebook",
    cls=_Group,
    help="Memory for AI agents, per role: a small notebook read at every session start, "
    "an archive that loses nothing, rules from mistakes that keep coming back.",
    no_args_is_help=True,
    # --install-completion / --show-completion: a completion request has no arguments, so typer answers it
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

F = TypeVar("F", bound=Callable[..., Any])


def _globals(ctx: typer.Context) -> Globals:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Globals) else Globals()


def hot(name: str) -> Callable[[F], F]:
    """A hot command (agents/fastpath.py): its body is `fastpath.COMMANDS[name]`, called with the
    values typer parsed, as the fast path calls it with the values it read from the same
    definition. The typer function only declares the parameters, help and docstring."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(ctx: typer.Context, **values: Any) -> None:
            raise typer.Exit(fastpath.call(name, _globals(ctx), values, ctx.args))

        return wrapper  # type: ignore[return-value]

    return decorate


def _errors(fn: F) -> F:
    """Turn a RolebookError into one line on stderr and its exit code, and Ctrl-C into a
    line saying what was done (exit 130)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RolebookError as exc:
            sys.stderr.write(f"rolebook: {shown(str(exc))}\n")
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            from ..watch import interrupted

            raise typer.Exit(interrupted()) from None

    return wrapper  # type: ignore[return-value]


def _say_redacted(kinds: Sequence[str]) -> None:
    """Tell the writer which kinds of secret were redacted before writing."""
    if kinds:
        sys.stderr.write(f"rolebook: redacted before writing: {', '.join(kinds)}\n")


_print_json = print_json

JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON document on stdout, for scripts and agents.")]
NewRoleOpt = Annotated[
    bool,
    typer.Option("--new-role", help="Start a role that has no notebook yet (on purpose: a mistyped role is refused)."),
]


def _version(given: bool) -> None:
    if given:
        from rolebook import __version__

        print(f"rolebook {__version__}")
        raise typer.Exit(0)


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
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", is_eager=True, expose_value=False, callback=_version, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    ctx.obj = begin(root, as_role, session)


def _warn(*results: WriteResult) -> None:
    for result in results:
        warn(result.warnings)
