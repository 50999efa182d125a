"""Commands over rules: promote, rules, demote."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rolebook.notebook import InputError
from rolebook.notebook.display import shown

from .app import JsonOpt, _errors, _globals, _print_json, app

if TYPE_CHECKING:
    from rolebook.rules import Candidate, Promotion

    from ..session import Session

RulesFileOpt = Annotated[
    Path | None, typer.Option("--rules-file", help="The rules file (default: rules_file in rolebook.yaml, CLAUDE.md).")
]


@app.command("promote")
@_errors
def promote_cmd(
    ctx: typer.Context,
    role: Annotated[str | None, typer.Option("--role", help="Only this role.")] = None,
    min_dates: Annotated[
        int | None,
        typer.Option("--min", min=2, help="Incidents on at least this many dates (default: promote.min_dates, 3)."),
    ] = None,
    apply_id: Annotated[str | None, typer.Option("--apply", help="Promote this candidate (its id).")] = None,
    text: Annotated[str | None, typer.Option("--text", help="With --apply: the rule's wording.")] = None,
    split_id: Annotated[
        str | None,
        typer.Option("--split", help="These incidents are not one mistake: never group them together again."),
    ] = None,
    skip_id: Annotated[
        str | None, typer.Option("--skip", help="Not now: do not propose it again until a new incident joins it.")
    ] = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            help="Promote every candidate as proposed (not those with incidents from an import or another root).",
        ),
    ] = False,
    interactive: Annotated[
        bool | None, typer.Option("--interactive/--no-interactive", help="Ask per candidate (default: in a terminal).")
    ] = None,
    shared: Annotated[
        bool,
        typer.Option(
            "--shared",
            help="Review the shared root instead: mistakes shared from 2 or more repositories on 2 or more dates "
            "become team rules in its rules file.",
        ),
    ] = False,
    to: Annotated[str | None, typer.Option("--to", help="With --shared: which shared root (if several).")] = None,
    rules_file: RulesFileOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Review mistakes that keep coming back and make them rules in CLAUDE.md (or AGENTS.md).

    A candidate is a group of occurrences of one mistake on at least 3 distinct dates
    (--min) that is not a rule yet. In a terminal: promote, edit or skip each one.
    Promoting writes one line into the rolebook block of the rules file and moves the
    group's notebook entries to the archive as promoted. --split and --skip are kept in
    the archive: a split group's incidents are never grouped together again; a skipped
    one comes back when a new incident joins it.

    \b
    Example:  rolebook promote --json
              rolebook promote --apply g1a2b3c4 --text "Merge the shapes before export."
              rolebook promote --split g1a2b3c4
              rolebook promote --shared
    """
    from rolebook.rules import find_candidate

    session = _session(ctx, rules_file)
    if text is not None and apply_id is None:
        raise InputError("--text goes with --apply ID")
    if to is not None and not shared:
        raise InputError("--to goes with --shared")
    if sum(x is not None for x in (apply_id, split_id, skip_id)) + yes > 1:
        raise InputError("give one of --apply, --split, --skip, --yes")
    repos = 0
    here = session.layout.root
    if shared:  # the team's review: incidents from two or more repositories count
        team, session = session.shared_root(to)
        session = replace(session, rules_file=rules_file.absolute()) if rules_file else session
        min_dates, repos = min_dates or 2, 2
    path = session.rules_path
    one = apply_id or split_id or skip_id
    found = session.candidates(role, min_dates, skipped=one is not None, min_repos=repos)
    if split_id is not None or skip_id is not None:
        chosen_one = find_candidate(found, one or "")
        decided = session.split(chosen_one) if split_id is not None else session.skip(chosen_one)
        what = "split: its incidents will not be grouped together again" if split_id else "skipped until a new incident"
        if as_json:
            _print_json({"split" if split_id else "skipped": decided.to_dict()})
        else:
            print(shown(f"{decided.id} {decided.role}: {what}"))
        return
    skipped: list[tuple[Candidate, str]] = []
    reviewed: list[Promotion] = []
    if apply_id is not None:
        chosen = [(find_candidate(found, apply_id), text)]
    elif yes:  # a group with no rule text of its own, or with incidents from elsewhere, waits for a person
        chosen = [(c, None) for c in found if c.instruction and not c.foreign]
        skipped = [(c, why) for c in found if (why := _not_by_yes(c))]
        for c, why in skipped:
            said = f"{c.id} {c.role}: not promoted by --yes: {why}; review it and promote it with {_by_hand(c)}"
            sys.stderr.write(f"rolebook: {shown(said)}\n")
    elif as_json:
        rules = [session.rule_report(r) for r in session.rules(role)]
        _print_json({"rules_file": str(path), "candidates": [c.to_dict() for c in found], "rules": rules})
        return
    elif interactive if interactive is not None else sys.stdin.isatty():
        chosen = []
        reviewed = _review(session, found, path.name)
    else:
        for c in found:
            print(shown(c.review_line("cli")))
            for line in c.incident_lines():
                print(f"    {shown(line)}")
        many = f"{len(found)} candidate{'s' if len(found) != 1 else ''}"
        then = f"`rolebook promote{' --shared' if shared else ''} --apply ID`, `--split ID`, `--skip ID` or `--yes`"
        print(f"{many}: {then}" if found else "nothing to promote")
        return
    done = reviewed + [session.promote(c, t) for c, t in chosen]
    if as_json:
        _print_json(
            {
                "promoted": [
                    {"rule": p.rule.id, "line": p.rule.line(), "left": p.result.count("promoted")} for p in done
                ],
                "skipped": [{"id": c.id, "role": c.role, "reason": why} for c, why in skipped],
            }
        )
        return
    for p in done:
        print(_promoted(p, path.name))
    if not done:
        print(f"nothing promoted ({len(skipped)} left to review)" if skipped else "nothing promoted")
    elif shared:
        line = f"@{os.path.relpath(path, here)}"
        print(f"{team}: agents read these rules when a project's CLAUDE.md or AGENTS.md imports them: {line}")


def _not_by_yes(c: Candidate) -> str:
    """Why `promote --yes` leaves a group to a person ("" when it does not): incidents from
    an import, another root or an unconfirmed order (memory is data: those become rules when
    a person says so), or no rule text of its own (an incident report is not a rule)."""
    from rolebook.rules import NO_INSTRUCTION

    why = [f"incidents came from {', '.join(c.foreign)}"] if c.foreign else []
    return "; and ".join(why + ([] if c.instruction else [NO_INSTRUCTION]))


def _by_hand(c: Candidate) -> str:
    """The command that promotes a group `--yes` left, with the rule's text when it has none."""
    text = "" if c.instruction else ' --text "RULE"'
    return f"`rolebook promote --apply {c.id}{text}`"


def _promoted(p: Promotion, where: str) -> str:
    n = p.result.count("promoted")
    return shown(
        f"{p.rule.role}: promoted {p.rule.id} to {where}: {p.rule.text} "
        f"({n} notebook {'entry' if n == 1 else 'entries'} archived as promoted)"
    )


def _review(session: Session, found: list[Candidate], where: str) -> list[Promotion]:
    """Ask per candidate; every answer is applied as it is given (a promotion, a split, a
    skip), so what was decided before a Ctrl-C (or the end of the input) is kept, and
    said: exit 130 with what stands and what was not reviewed."""
    done: list[Promotion] = []
    kept: list[str] = []
    print("p promote · e edit the rule · x split (not one mistake) · s skip until it recurs · n next · q quit")
    n = 0
    try:
        for n, c in enumerate(found, 1):
            print(
                shown(
                    f"[{n}/{len(found)}] {c.role}: {c.count} incidents on {len(c.dates)} dates ({', '.join(c.dates)})"
                )
            )
            for line in c.incident_lines():
                print(f"  {shown(line)}")
            print(f"  proposed rule:  {shown(_proposed(c))}")
            answer = typer.prompt("  [p/e/x/s/n/q]", default="n").strip().lower()[:1]
            said = None
            if answer in ("p", "e") and not (answer == "p" and c.instruction):  # the reviewer writes the rule
                said = typer.prompt("  rule text", default=c.rule().text if c.instruction else None)
            if answer in ("p", "e"):
                done.append(session.promote(c, said))
                kept.append(f"promoted {done[-1].rule.id}")
            elif answer == "x":
                session.split(c)
                kept.append(f"split {c.id}")
                print("  split: these incidents will not be grouped together again")
            elif answer == "s":
                session.skip(c)
                kept.append(f"skipped {c.id}")
                print("  skipped until a new incident joins it")
            elif answer == "q":
                break
    except (typer.Abort, KeyboardInterrupt, EOFError):
        print()
        for p in done:
            print(_promoted(p, where))
        left = len(found) - n + 1
        stands = f"kept what was decided, each applied when answered: {', '.join(kept)}" if kept else "nothing decided"
        sys.stderr.write(
            shown(
                f"rolebook: review interrupted at [{n}/{len(found)}]: {stands}; {left} candidate"
                f"{'s' if left != 1 else ''} not reviewed: `rolebook promote` asks again"
            )
            + "\n"
        )
        raise typer.Exit(130) from None
    return done


def _proposed(c: Candidate) -> str:
    """The rule line a candidate would become, or why there is none to propose."""
    from rolebook.rules import NO_INSTRUCTION

    return c.rule().line() if c.instruction else f"(no rule proposed: {NO_INSTRUCTION}; write one)"


def _session(ctx: typer.Context, rules_file: Path | None) -> Session:
    """The session API, with the rules file --rules-file names if it does."""
    session = _globals(ctx).session()
    return replace(session, rules_file=rules_file.absolute()) if rules_file else session


@app.command("rules")
@_errors
def rules_cmd(
    ctx: typer.Context,
    role: Annotated[str | None, typer.Option("--role", help="Only this role.")] = None,
    rules_file: RulesFileOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the rules rolebook manages in the rules file, with their ids.

    \b
    Example:  rolebook rules --role designer
    """
    session = _session(ctx, rules_file)
    path = session.rules_path
    rules = session.rules(role)
    if as_json:
        _print_json({"rules_file": str(path), "rules": [session.rule_report(r) for r in rules]})
        return
    for r in rules:
        print(shown(f"{r.id} {r.role}: {r.text} (incidents {', '.join(r.incidents)})"))
    if not rules:
        print(f"no rules in {shown(path)} yet: `rolebook promote` reviews the mistakes that keep coming back")


@app.command("demote")
@_errors
def demote_cmd(
    ctx: typer.Context,
    rule_id: Annotated[str, typer.Argument(help="The rule's id, from `rolebook rules`.")],
    rules_file: RulesFileOpt = None,
) -> None:
    """Take a rule back out of the rules file; the archive keeps it as demoted.

    \b
    Example:  rolebook demote R3f9a1c
    """
    session = _session(ctx, rules_file)
    rule = session.demote(rule_id)
    print(shown(f"{rule.role}: demoted {rule.id} from {session.rules_path.name}: {rule.text}"))
