"""Writes output files safely: never over an existing path without --force, never half-written.

Every output file (PDFs, pages, PNG plots) goes through write_atomic (or write_together): the bytes
go to a hidden temporary file beside the target, which is renamed into place when complete.
Temporary files are registered while they exist, so the command line's Ctrl-C and SIGTERM handling
can remove them.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from paperplay.errors import InputError

# Temporary files being written right now; remove_temporary_files() deletes what is left.
_PENDING: set[str] = set()
# Output folders this run created, outermost first; remove_empty_folders() deletes those left empty.
_MADE: list[Path] = []


OUT_HINT = "a file name ending in .pdf with --out"
"""What to give instead of an unusable path, by default (each output names its own option)."""


def check_writable(path: Path, force: bool, hint: str = OUT_HINT) -> None:
    """Fails early, before any work, when the output cannot or may not be written.

    Any existing path counts as existing, a dangling symbolic link included: without --force
    nothing already at the path is replaced. Only files are written: a device, a pipe or a socket
    at the path is refused even with --force (`hint` says what to give instead of a folder).
    """
    if str(path) == "-":  # the usual name of standard output, which takes no PDF or page here
        raise InputError(f"-: paperplay writes this output to a file, not to standard output; give {hint}")
    try:
        is_dir, exists = path.is_dir(), path.exists() or path.is_symlink()
        special = path.exists() and not is_dir and not path.is_file()
    except OSError as exc:  # a name too long, a loop of links
        raise InputError(f"{path}: is not a usable file name ({exc.strerror})") from None
    if is_dir:
        raise InputError(f"{path}: is a folder; give {hint}")
    if special:  # before "already exists": --force would not help
        raise InputError(f"{path}: is not a file (a device, a pipe or a socket); give {hint}")
    if exists and not force:
        raise InputError(f"{path}: already exists; use --force to overwrite it, or give another name")
    folder = _destination(path).parent  # where the file lands: a link's target's folder
    blocking = next(  # a file where a folder of the path should be
        (level for level in reversed([folder, *folder.parents]) if level.exists() and not level.is_dir()), None)
    if blocking is not None:
        raise InputError(f"{blocking}: is not a folder, so the output {path.name} cannot go in it; "
                         "give another path")
    try:
        _make_folder(folder)
    except OSError as exc:
        raise InputError(f"{folder}: cannot create the output folder ({exc.strerror})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{folder}: the output folder is not writable")


def check_not_an_input(path: Path | None, option: str, inputs: Iterable[Path | str | None]) -> None:
    """Refuses an output path that is one of the command's input files (by any name: a link, another
    spelling), which --force would otherwise replace: nothing given to read is ever overwritten."""
    source = input_at(path, inputs)
    if source is not None:
        raise InputError(f"{option}: is {str(path)!r}, which is also an input of this command ({source}); "
                         "give the output another name")


def input_at(path: Path | None, inputs: Iterable[Path | str | None]) -> Path | str | None:
    """The input that is the same file as the output `path`, if one is."""
    if path is None:
        return None
    return next((source for source in inputs if source is not None and _same_file(path, Path(source))), None)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # one of them does not exist (yet), or a name the system refuses
        return os.path.realpath(a) == os.path.realpath(b)


def _destination(path: Path) -> Path:
    """Where writing `path` lands: through a symbolic link to a file (the link is kept, its file
    replaced), else the path itself (a dangling link is replaced)."""
    try:
        if path.is_symlink():
            target = path.resolve()
            if target.is_file():
                return target
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13): the link is replaced
        pass
    return path


def write_atomic(path: Path, data: bytes, force: bool, hint: str = OUT_HINT) -> None:
    """Writes data to a temporary file beside path, then renames it into place.

    A crash mid-write leaves no file at path; the temporary file is removed on any failure,
    Ctrl-C and SIGTERM included. A file overwritten (--force) keeps its permissions.
    """
    write_together([(path, data, hint)], force)


def write_together(files: Sequence[tuple[Path, bytes, str]], force: bool) -> None:
    """write_atomic for files that belong together (a scanned sheet and its check page, a kit and its
    projector page), each (path, bytes, hint for check_writable): every one is written to its
    temporary file first, and only when all are whole are they renamed into place: a full disk (or a
    Ctrl-C) while they are written leaves none of them, never one without the other."""
    staged: list[tuple[str, Path, Path]] = []
    try:
        for path, data, hint in files:
            staged.append(_stage(path, data, force, hint))
        for tmp_name, path, target in staged:
            if not force and (path.exists() or path.is_symlink()):
                raise InputError(f"{path}: appeared while writing; use --force to overwrite it")
        with _signals_held():  # a Ctrl-C between two renames would leave one file without the other
            for tmp_name, path, target in staged:
                try:
                    os.replace(tmp_name, target)
                except OSError as exc:
                    raise InputError(f"{path}: could not be written ({exc.strerror})") from None
                _PENDING.discard(tmp_name)
    finally:
        for tmp_name, _, _ in staged:
            if tmp_name in _PENDING:
                _discard(tmp_name)


def _stage(path: Path, data: bytes, force: bool, hint: str) -> tuple[str, Path, Path]:
    """Writes data to a temporary file beside path's destination (see write_atomic); returns its name,
    path and the destination. Nothing is left behind when it fails."""
    check_writable(path, force, hint)
    umask = os.umask(0)
    os.umask(umask)
    mode = 0o666 & ~umask  # what a normal new file gets
    try:
        target = _destination(path)
        mode = os.stat(target).st_mode & 0o777 if force and target.is_file() else mode  # no set-user-ID
        # at most 255 bytes a name: the temporary name (15 more than a target's) is cut, not the target's
        handle, tmp_name = tempfile.mkstemp(prefix=f".{_cut(target.name, TEMP_NAME_ROOM)}.", suffix=".part",
                                            dir=target.parent)
    except OSError as exc:
        raise InputError(f"{path.parent}: cannot write in the output folder ({exc.strerror})") from None
    _PENDING.add(tmp_name)
    try:
        os.chmod(tmp_name, mode)  # mkstemp makes the file private (0600)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
    except OSError as exc:
        _discard(tmp_name)
        raise InputError(f"{path}: could not be written ({exc.strerror})") from None
    except BaseException:
        _discard(tmp_name)
        raise
    return tmp_name, path, target


TEMP_NAME_ROOM = 200
"""Bytes of the target's name kept in its temporary file's name (".NAME.XXXXXXXX.part")."""


def _cut(name: str, room: int) -> str:
    """The start of a file name that fits `room` bytes of the file system's encoding (whole characters)."""
    encoded = os.fsencode(name)
    if len(encoded) <= room:
        return name
    for end in range(room, room - 4, -1):  # a UTF-8 character is at most 4 bytes
        try:
            return encoded[:end].decode()
        except UnicodeDecodeError:
            continue
    return os.fsdecode(encoded[:room])  # not UTF-8: the bytes as they are (surrogate escapes)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block is done (the main thread of a Unix process; elsewhere
    nothing is held)."""
    import signal
    import threading

    hold = getattr(signal, "pthread_sigmask", None)
    if hold is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    mask = hold(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        hold(signal.SIG_SETMASK, mask)


def _discard(tmp_name: str) -> None:
    try:
        os.unlink(tmp_name)
    except FileNotFoundError:
        pass
    _PENDING.discard(tmp_name)


def remove_temporary_files() -> None:
    """Deletes every temporary file still being written (on Ctrl-C or SIGTERM)."""
    for tmp_name in list(_PENDING):
        try:
            _discard(tmp_name)
        except OSError:
            pass


def _make_folder(folder: Path) -> None:
    """Makes a folder and its missing parents, outermost first, and records those this call made
    (only those: a level that exists, however the path names it, is left alone)."""
    for level in reversed([folder, *folder.parents]):
        try:
            os.mkdir(level)
        except FileExistsError:
            continue
        _MADE.append(level.absolute())


def remove_empty_folders() -> None:
    """Deletes the output folders this run created that are still empty (say, every photo given to
    scan failed): a command that wrote nothing leaves nothing behind."""
    while True:
        try:
            folder = _MADE.pop()  # innermost first
        except IndexError:  # none left (the watchdog and main() may both be here)
            return
        try:
            folder.rmdir()  # fails, as it should, on a folder with anything in it
        except OSError:
            pass
