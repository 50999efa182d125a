"""What the SDK server answers without looking at the store, kept as data for `front.py`.

listing.json holds, for every protocol version the SDK speaks, the results of the
handshake (`initialize`, `server/discover`), of the listings and `ping`, the frame a
tool result is sent in, and the acknowledgement of a `subscriptions/listen` stream. It is
generated from the installed SDK by running the real server
(`python -m rolebook.agents.mcp.oracle --write`, again after any change to a tool or the
SDK); tests/agents/mcp/test_mcp_listing.py fails when it differs from what the SDK answers.
The front answers from it only when the installed SDK is the one it was made with.
"""

from __future__ import annotations

import functools
import json
import os
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from rolebook import __version__

PATH = Path(__file__).with_name("listing.json")

#: What the front may answer from the data, besides the handshake.
METHODS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list", "ping")
#: Placeholders in the stored tool-result frame and listen acknowledgement.
TEXT, DATA, ID = "\x00text", "\x00data", "\x00id"
#: The change notifications the agent CLIs ask for on `subscriptions/listen` (2026-07-28),
#: and the first frame of the stream: its acknowledgement, naming the stream by request id.
LISTEN = {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"

#: What the server is for and how to use it, as MCP clients show it to the model.
_PROTOCOL = (
    "Per-role memory that lasts between sessions (rolebook). {who} "
    "1. Before you start work, call `read` (with `task`: what you are about to do) and follow what the "
    "notebook says. 2. Before you repeat work, or when something fails, call `search` with `query`: a few "
    "words of the problem. 3. Before you finish, call `update` with `mistakes` (each: what went wrong; what "
    "to do instead), `learnings` and `log` ('TASK-ID: what you did'), one short line each; skip what the "
    "notebook already says. 4. When `read` says promotions are due, call `promote_review`, then "
    "`promote_apply` with the candidate's `id` and `text`: the rule, as an instruction. Change the notebook "
    "only through these tools."
)


def instructions(role: str | None) -> str:
    """The memory protocol for an agent that reaches rolebook over MCP: tools and their
    parameters (not CLI commands), and, for a scoped server, the agent's role."""
    who = (
        f"You work as the {role} role: the role parameter of every tool defaults to {role!r}."
        if role
        else "You work in a role (coder, designer, qa, ...): pass it as the role parameter."
    )
    return _PROTOCOL.format(who=who)


class Listing:
    """listing.json, read: the SDK server's answer to (method, protocol version)."""

    def __init__(self, data: dict[str, Any]):
        self.data = data
        self.handshake: tuple[str, ...] = tuple(data["handshake_versions"])
        self.modern: tuple[str, ...] = tuple(data["modern_versions"])
        self._results = {
            (method, version): group["result"]
            for method, groups in data["answers"].items()
            for group in groups
            for version in group["versions"]
        }

    def result(self, method: str, version: str) -> Any:
        """The SDK's result for `method` at `version` (None when it is not kept here)."""
        return self._results.get((method, version))

    def matches_installed(self) -> bool:
        """Whether the installed SDK and rolebook are the ones the data was made with."""
        if self.data.get("rolebook") != __version__:
            return False
        for dist, package in (("mcp", "mcp"), ("mcp_types", "mcp_types")):
            spec = find_spec(package)
            if spec is None or spec.origin is None:
                return False
            site = Path(spec.origin).parent.parent
            if not os.path.isdir(site / f"{dist}-{self.data['sdk'][dist]}.dist-info"):
                return False
        return True


@functools.cache
def load() -> Listing:
    """listing.json (read once)."""
    with open(PATH, encoding="utf-8") as f:
        return Listing(json.load(f))
