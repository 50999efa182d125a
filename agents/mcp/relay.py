"""What passes between the client and the SDK server once the front has decided.

A request the front answered that the SDK must still see (it changes the SDK's state:
`initialize`, the era's first request, a `subscriptions/listen` stream) goes to the SDK
under a marker id of its own. The SDK's answers under a marker are the front's to settle:
an answer the front already gave is dropped (and checked against what the front sent),
what the front did not give (a listen stream's end) goes to the client under its own id,
and a client's `notifications/cancelled` for such a stream reaches the SDK under the
marker. The relay also counts the answers the SDK still owes, so that at end of input
the front lets the SDK see the end only once they came (`Front.read`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from . import shapes
from .listing import ACKNOWLEDGED, SUBSCRIPTION_ID


def dumps(value: Any) -> str:
    """JSON as the SDK writes it (pydantic's serializer: compact, UTF-8 as is)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Marked:
    """A request the SDK sees under a marker: the client's id, and what the front sent for it."""

    rid: Any
    result: str | None = None  # the result sent (the SDK's own is dropped); None: the SDK's goes out
    ack: str | None = None  # a listen stream's acknowledgement sent (its params)


class Relay:
    """The client's lines on their way to the SDK, and the SDK's lines on their way out."""

    def __init__(self) -> None:
        self.prefix = f"rolebook-front-{os.urandom(6).hex()}-"
        self.marked: dict[str, Marked] = {}
        self.listening: dict[Any, str] = {}  # a client's id (as the SDK compares) -> its listen's marker
        self.owed: dict[Any, int] = {}  # a request id (as the SDK compares) -> answers the SDK owes

    def mark(self, message: dict[str, Any], marked: Marked) -> str:
        """`message` as the SDK gets it: under a fresh marker id."""
        marker = f"{self.prefix}{len(self.marked)}"
        self.marked[marker] = marked
        if marked.ack is not None:
            self.listening[shapes.coerced(marked.rid)] = marker
        return dumps({**message, "id": marker}) + "\n"

    def took(self, rid: Any) -> None:
        """A request came with this id: it now holds the id, as in the SDK's table of
        requests in flight (a listen stream under it can no longer be cancelled by it)."""
        self.listening.pop(shapes.coerced(rid), None)

    def to_sdk(self, line: str) -> str:
        """A client line on its way to the SDK (a cancellation of a stream opened under a
        marker is addressed to the marker)."""
        if '"id"' not in line and "notifications/cancelled" not in line:
            return line
        try:
            value = shapes.parse(line)
        except ValueError:
            return line  # not counted: the SDK may read it otherwise
        kind = shapes.message(value)
        if kind == "request" and not str(value["id"]).startswith(self.prefix):
            rid = shapes.coerced(value["id"])
            self.took(rid)
            if value["method"] != "subscriptions/listen":  # a stream is answered only at its end
                self.owed[rid] = self.owed.get(rid, 0) + 1
        elif kind == "notification" and value["method"] == "notifications/cancelled":
            params = value.get("params") or {}
            rid = params.get("requestId")
            if shapes.request_id(rid):
                self.owed.pop(shapes.coerced(rid), None)  # a cancelled request is never answered
                marker = self.listening.get(shapes.coerced(rid))
                if marker is not None:
                    return dumps({**value, "params": {**params, "requestId": marker}}) + "\n"
        return line

    def from_sdk(self, text: str) -> tuple[str | None, str | None]:
        """A line the SDK wrote: what to write of it (None: nothing), and a warning when
        it contradicts what the front sent early (which must never happen)."""
        message = json.loads(text) if self.owed or self.prefix in text else {}
        rid = message.get("id") if "method" not in message else None
        if shapes.request_id(rid):
            left = self.owed.pop(shapes.coerced(rid), 0) - 1
            if left > 0:
                self.owed[shapes.coerced(rid)] = left
        if self.prefix not in text:
            return text, None
        if "method" in message:
            return self._on_stream(message, text)
        marked = self.marked.pop(rid, None) if isinstance(rid, str) else None
        if marked is None:
            return text, None
        if marked.result is None:  # a listen stream's end, the client's to see
            return dumps({**message, "id": marked.rid}) + "\n", None
        if "result" in message and dumps(message["result"]) == marked.result:
            return None, None
        return None, f"rolebook mcp: the SDK's answer differs from the one sent early: {text[:300]}"

    def owes(self) -> bool:
        """Whether the SDK still owes an answer to a request it was passed."""
        return bool(self.owed)

    def _on_stream(self, message: dict[str, Any], text: str) -> tuple[str | None, str | None]:
        """A notification on a listen stream the SDK knows by its marker."""
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        marker = meta.get(SUBSCRIPTION_ID) if isinstance(meta, dict) else None
        marked = self.marked.get(marker) if isinstance(marker, str) else None
        if marked is None or not isinstance(params, dict) or not isinstance(meta, dict):
            return text, None
        params = {**params, "_meta": {**meta, SUBSCRIPTION_ID: marked.rid}}
        if message["method"] == ACKNOWLEDGED and marked.ack is not None:
            sent, marked.ack = marked.ack, None
            if dumps(params) == sent:
                return None, None
            return None, f"rolebook mcp: the SDK's acknowledgement differs from the one sent early: {text[:300]}"
        return dumps({**message, "params": params}) + "\n", None
