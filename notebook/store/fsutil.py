"""File-system edges of the write path: the role lock, fsync, atomic replace; and the one
way rolebook opens a file a repository could have planted (`open_file`)."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..errors import LockTimeout, NotAFile, OutsideRoot, StorageError

#: open() flags that make opening a planted thing harmless: never through a link swapped
#: in after the check, never waiting for a pipe's writer or a device (0 where unknown).
_SAFE_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def open_file(path: Path, within: Path | None = None, place: str = "the root") -> BinaryIO:
    """`path` opened for reading in binary, when it is a regular file (through links) that
    resolves inside `within`: the one rule for every file rolebook reads from a repository
    (notebooks, archives, the rules file, cited code, config, imports, the derived folder).

    A cloned repository can plant a link leading out of the project (a private file would
    be read, then written into the committed archive), a named pipe (a plain open waits
    for its writer for good) or a device. The path is resolved, checked, then opened
    without following a link and without blocking, and fstat decides what it is.

    Raises:
        OutsideRoot: the path resolves outside `within` (a link, or a folder on the way).
        NotAFile: a pipe, device or socket.
        IsADirectoryError, FileNotFoundError, OSError: as `open` raises them.
    """
    real = os.path.realpath(path)
    if within is not None and not Path(real).is_relative_to(os.path.realpath(within)):
        raise OutsideRoot(f"a link leads outside {place} ({within}) to {real}; not read", path)
    fd = os.open(real, _SAFE_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise NotAFile(f"{kind_of(mode)} stands where rolebook reads a file; not read: remove it", path)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_file(path: Path, within: Path | None = None, limit: int | None = None, place: str = "the root") -> bytes:
    """The bytes of `path`, opened as `open_file` does; at most `limit` + 1 bytes when a
    limit is given (so a caller can tell a file over it).

    Raises:
        OutsideRoot, NotAFile, OSError: see `open_file`.
    """
    with open_file(path, within, place) as f:
        return f.read() if limit is None else f.read(limit + 1)


def kind_of(mode: int) -> str:
    """What a non-regular file is, in a user's words."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "something that is not a file"


def planted(root: Path, paths: list[Path]) -> list[str]:
    """What a repository planted among `paths` and the files directly in them (folders are
    looked into one level): links leading out of `root`, and pipes, devices and sockets.
    One line each, `path: what`; nothing is opened."""
    found: list[str] = []
    top = os.path.realpath(root)
    seen: set[str] = set()
    for start in paths:
        for path in _with_children(start):
            if str(path) in seen:
                continue
            seen.add(str(path))
            try:
                st = os.stat(path)
            except OSError:
                continue  # missing, or a dangling link: nothing can be read through it
            real = os.path.realpath(path)
            if not Path(real).is_relative_to(top):
                found.append(f"{path}: a link leading outside the project (to {real}); rolebook will not read it")
            elif not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                found.append(f"{path}: {kind_of(st.st_mode)} where rolebook reads files; remove it")
    return found


def _with_children(path: Path) -> list[Path]:
    out = [path]
    if path.is_dir() and not path.is_symlink():
        with contextlib.suppress(OSError):
            out += sorted(path.iterdir())
    return out


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in `path` durable (a no-op where dirs can't be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, spare: Path | None = None) -> None:
    """Replace `path` (or, for a symlink, its target) with `data`: temp file, fsync,
    rename, fsync dir. The temp file goes in `spare` (the derived folder's, see
    `Replacement`), else beside the file.

    A reader sees the old file or the new one, never a mix; a crash leaves the old one.
    """
    with Replacement(path, data, spare=spare) as replacement:
        replacement.commit()


class Replacement:
    """A file's new content, written and fsynced, put in its place by `commit`.

    The write path prepares the notebook's replacement before it appends to the archive,
    so a folder that refuses the notebook refuses the whole write, with nothing appended.
    Leaving the block without `commit` removes the temp file: the file is as it was.

    The temp file is made in `spare` (a git-ignored folder) when that is on the file's
    own file system, where a rename is atomic; else beside the file. A writer killed
    between the two steps then leaves nothing that `git add -A` would commit.

    Raises:
        StorageError: the temp file cannot be made or written (on entering), or put in
            place (on commit).
    """

    def __init__(
        self, path: Path, data: bytes, refused: str = "the file is as it was", spare: Path | None = None
    ) -> None:
        # through a symlink to its target (CLAUDE.md -> AGENTS.md): the link stays a link;
        # callers check that the target is inside the root (layout.inside)
        self.path = path.resolve() if path.is_symlink() else path
        self.data = data
        self.refused = refused  # what the error says when the new content cannot be written
        self.spare = spare
        self.tmp: str | None = None
        self.mode = 0o644

    def __enter__(self) -> Replacement:
        path = self.path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644 & ~_umask()
        except OSError as exc:
            raise StorageError(path, "write", exc, self.refused) from None
        self._prepare(_spare_for(path, self.spare))
        return self

    def _prepare(self, folder: Path) -> None:
        """Write the temp file in `folder`, fsynced, with the file's mode; beside the file
        instead when `folder` (the derived one) goes while it is written (`git clean -fdX`
        takes the temp file with it)."""
        try:
            self._write_temp(folder)
        except FileNotFoundError as exc:
            if folder == self.path.parent:
                raise StorageError(self.path, "write", exc, self.refused) from None
            self._prepare(self.path.parent)
        except OSError as exc:
            raise StorageError(self.path, "write", exc, self.refused) from None

    def _write_temp(self, folder: Path) -> None:
        fd, self.tmp = _temp_in(folder, self.path.name)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self.data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(self.tmp, self.mode)
        except BaseException:
            self._discard()
            raise

    def commit(self, why: str = "the file is as it was") -> None:
        """Put the new content in place (rename, fsync the folder)."""
        assert self.tmp is not None
        try:
            try:
                os.replace(self.tmp, self.path)
            except FileNotFoundError:
                if os.path.dirname(self.tmp) == str(self.path.parent):
                    raise
                # the derived folder went while we wrote (`git clean -fdX`): write beside
                self.tmp = None
                self._prepare(self.path.parent)
                assert self.tmp is not None
                os.replace(self.tmp, self.path)
        except OSError as exc:
            self._discard()
            raise StorageError(self.path, "write", exc, why) from None
        self.tmp = None
        fsync_dir(self.path.parent)

    def _discard(self) -> None:
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None

    def __exit__(self, *exc: object) -> None:
        self._discard()


def _spare_for(path: Path, spare: Path | None) -> Path:
    """`spare` when it can be made and is on `path`'s file system (a rename is atomic only
    within one), else the file's own folder."""
    if spare is None:
        return path.parent
    try:
        spare.mkdir(parents=True, exist_ok=True)
        if os.stat(spare).st_dev == os.stat(path.parent).st_dev:
            return spare
    except OSError:
        pass
    return path.parent


def _temp_in(folder: Path, name: str) -> tuple[int, str]:
    """A new file `.<name>.<random>.tmp` in `folder`, opened for writing (what
    tempfile.mkstemp does, without its import on every write)."""
    for _ in range(100):
        tmp = str(folder / f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def role_lock(path: Path, timeout: float = 30.0) -> Iterator[None]:
    """Hold an exclusive lock on `path` for the block: a folder (locked as it is, made if
    missing) or a lock file of its own (created if missing; it notes the holder's pid,
    so that doctor can tell a killed writer's).

    An OS lock (flock, or msvcrt on Windows): the kernel releases it when the holder
    dies, so a killed writer never leaves a lock that blocks the next one.

    Raises:
        LockTimeout: the lock was still held by another process after `timeout` seconds.
        StorageError: the lock cannot be taken (a read-only or missing place).
    """
    folder = path.suffix != ".lock"
    try:
        if folder:
            path.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDONLY)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StorageError(path, "take the lock", exc) from None
    try:
        deadline = time.monotonic() + timeout
        delay = 0.001
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                raise LockTimeout(f"{path}: another rolebook writer held this lock for {timeout:.0f}s")
            import random  # only when the lock is busy

            # short, jittered waits: with waits growing to 50 ms, a writer that releases
            # and takes the lock again in a loop starved the others (3 such writers against
            # one: 2 turns in 4 s; now 23, and 118 when the loopers pause 0.5 ms)
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.002)
        if not folder:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
        try:
            yield
        finally:
            # a clean release clears the pid: one left behind marks a writer that was killed
            if not folder:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
            _unlock(fd)
    finally:
        os.close(fd)


def lock_is_held(path: Path) -> bool:
    """Whether some process holds the lock on `path` right now."""
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        if _try_lock(fd):
            _unlock(fd)
            return False
        return True
    finally:
        os.close(fd)


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
