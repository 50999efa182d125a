"""The errors rolebook raises, one tree.

    RolebookError                 anything rolebook refuses or cannot do (exit 2)
    ├── InputError                bad input: names the file and 1-based line when known
    │   ├── RoleError             a role name that is not [a-z0-9][a-z0-9_-]{0,63}
    │   ├── EntryError            an entry that is empty, too long, holds control chars
    │   ├── ConfigError           rolebook.yaml or frontmatter that cannot be used
    │   ├── OutsideRoot           a path that resolves outside the root (a symlink out of it)
    │   └── NotAFile              a pipe, device or socket where rolebook reads a file
    ├── StorageError              a file could not be written: disk full, read-only, permissions
    ├── LockTimeout               another writer held the role's lock too long
    ├── ScopeError                a write outside the role the writer is scoped to
    ├── Interrupted               stopped by Ctrl-C: says what was written (exit 130)
    ├── ModelError                the semantic model failed to run: callers use keywords
    └── NoMatch                   nothing matched (exit 1, like grep): not a failure

Adapters translate once: the CLI prints `str(error)` on one line of stderr and exits 2;
an MCP tool lets it raise.
"""

from __future__ import annotations

from pathlib import Path


class RolebookError(Exception):
    """Anything rolebook refuses or cannot do."""

    exit_code = 2


class InputError(RolebookError):
    """Bad input, located at `path:line` when a file and line are known."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path or ""
        if where and self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}" if where else self.message


class RoleError(InputError):
    """A role name rolebook will not build a path from."""


class EntryError(InputError):
    """An entry rolebook will not write."""


class ConfigError(InputError):
    """A configuration (rolebook.yaml, frontmatter limits) that cannot be used."""


class OutsideRoot(InputError):
    """A file rolebook would read or write that resolves outside its root: a symlink (or
    a folder on the way that is one) leading out of the project."""


class NotAFile(InputError):
    """Something that is not a regular file (a named pipe, a device, a socket) where rolebook
    reads one: never opened in a way that could block, never read."""


class StorageError(RolebookError):
    """The file system refused a read or write; nothing was left half-written."""

    def __init__(self, path: str | Path, action: str, exc: OSError, note: str = "nothing was written"):
        reason = exc.strerror or str(exc) or exc.__class__.__name__
        super().__init__(f"{path}: cannot {action}: {reason} ({note})")
        self.path = str(path)
        self.cause = exc


class LockTimeout(RolebookError):
    """The role's lock stayed taken for longer than the writer was willing to wait."""


class ScopeError(RolebookError):
    """A write to a role other than the one the writer is scoped to."""


class Interrupted(RolebookError):
    """Ctrl-C stopped a long command; the message says what was written before it."""

    exit_code = 130


class ModelError(RolebookError):
    """The semantic extra's model failed as it ran (its config disagreeing with its
    weights, a tokenizer error): every caller falls back to keywords, saying why once."""


class NoMatch(RolebookError):
    """Nothing matched what was asked for; scripts read it as exit code 1."""

    exit_code = 1
