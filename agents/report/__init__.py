"""`rolebook report`: one self-contained HTML page with charts of a root's memory.

    figures   what the page shows, from stats, promote's list and the rule reports
    page      the page: inline CSS, inline SVG, every stored text escaped
    svg       the charts

`build(session, roles)` returns the page as text; the CLI writes it.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from .figures import Report, collect
from .page import render_page

if TYPE_CHECKING:
    from ..session import Session

__all__ = ["Report", "build", "collect", "render_page"]


def build(session: Session, roles: list[str], health: str, today: dt.date | None = None) -> str:
    """The report page for these roles of the session's root.

    Raises:
        InputError: a notebook that is not UTF-8. ConfigError: bad limits in a notebook's frontmatter.
    """
    from rolebook import __version__

    return render_page(collect(session, roles, today or dt.date.today(), health), __version__)
