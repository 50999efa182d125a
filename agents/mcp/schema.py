"""A tool's declaration, as table.py writes it: its parameters (`Param`: the JSON Schema a
client lists and the check of what it sends, from one declaration), the row (`Tool`: the
listing, the argument check, the handler) and what a handler works with (`Call`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rolebook.notebook import InputError

if TYPE_CHECKING:
    from ..session import Session

#: A tool's answer: its text and its structured content.
Answer = tuple[str, dict[str, Any]]
REQUIRED: Any = object()
_TYPES = {str: "string", int: "integer", bool: "boolean", list: "array"}


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a tool: its JSON Schema in the listing and its check of a call."""

    name: str
    kind: type
    description: str = ""
    default: Any = REQUIRED
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": _TYPES[self.kind]}
        if self.kind is list:
            out["items"] = {"type": "string"}
        if self.choices:
            out["enum"] = list(self.choices)
        if self.low is not None:
            out["minimum"] = self.low
        if self.high is not None:
            out["maximum"] = self.high
        if self.description:
            out["description"] = self.description
        if self.default is not REQUIRED and self.default is not None:
            out["default"] = self.default
        return out

    def check(self, value: Any) -> Any:
        """The value as the handler gets it; a ValueError says what is wrong with it."""
        if value is None and self.default is not REQUIRED:
            return self.default  # JSON null: as if not given
        if self.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            if not (isinstance(value, float) and value.is_integer()):
                raise ValueError("must be an integer")
            value = int(value)
        elif self.kind is list:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError("must be an array of strings")
        elif self.kind is not int and not isinstance(value, self.kind):
            raise ValueError(f"must be a {_TYPES[self.kind]}")
        if self.low is not None and value < self.low:
            raise ValueError(f"must be at least {self.low}")
        if self.high is not None and value > self.high:
            raise ValueError(f"must be at most {self.high}")
        if self.choices and value not in self.choices:
            raise ValueError(f"must be one of {', '.join(self.choices)}")
        return list(value) if self.kind is list else value


class Call:
    """What a handler works with: the session where the call works, and the role it acts for."""

    def __init__(self, session: Callable[[], Session], scope: str | None):
        self._session = session
        self.scope = scope

    def session(self) -> Session:
        return self._session()

    def who(self, role: str | None) -> str:
        """The role a tool acts for: the one given, else the server's scope."""
        if role:
            return role
        if self.scope:
            return self.scope
        raise InputError("say which role: pass role (e.g. coder), or start the server with --as ROLE")


@dataclass(frozen=True, slots=True)
class Tool:
    """One row of the table: what the client lists, and what runs a call."""

    name: str
    description: str
    params: tuple[Param, ...]
    handler: Callable[[Call, dict[str, Any]], Answer]
    read_only: bool

    def listing(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": {p.name: p.schema() for p in self.params}}
        required = [p.name for p in self.params if p.default is REQUIRED]
        if required:
            schema["required"] = required
        hints = {"readOnlyHint": True} if self.read_only else _WRITES
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": schema,
            "annotations": {**hints, "openWorldHint": False},
        }

    def check(self, arguments: Any) -> dict[str, Any]:
        """The arguments the handler gets; a ValueError names the first one that is wrong."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ValueError("arguments must be an object")
        known = {p.name: p for p in self.params}
        unknown = sorted(set(arguments) - set(known))
        if unknown:
            raise ValueError(f"unknown argument {unknown[0]!r} (this tool takes {', '.join(known)})")
        checked: dict[str, Any] = {}
        for p in self.params:
            if p.name not in arguments:
                if p.default is REQUIRED:
                    raise ValueError(f"{p.name}: required")
                checked[p.name] = list(p.default) if isinstance(p.default, list) else p.default
                continue
            try:
                checked[p.name] = p.check(arguments[p.name])
            except ValueError as exc:
                raise ValueError(f"{p.name}: {exc}") from None
        return checked


_WRITES = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True}
