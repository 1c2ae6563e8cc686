"""Write an output file so that a failure or Ctrl-C never leaves a half-written file behind.

Every command that writes a file (export, import, fmt, build, render, play --log, diff --plot)
goes through `write_atomically`: the data goes to a temporary file beside the target, which is
renamed over it once complete. Two cases a plain rename gets wrong are handled here:
- a symbolic link is followed, so the file it points to is replaced, not the link;
- a target that exists but is not a regular file (`/dev/stdout`, a named pipe, a terminal) is
  written to directly: renaming over it would replace the device instead of writing to it.
A new file gets the usual permissions (0666 minus the umask), not mkstemp's private 0600; a
replaced file keeps its permissions.
"""

from __future__ import annotations

import os
import stat
import tempfile

from hansa.runtime.errors import HansaError, Span


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomically(
    path: str | os.PathLike[str], data: str | bytes, *, follow_links: bool = True
) -> None:
    """Write `data` (text as UTF-8 with '\\n' line ends kept as given, or bytes) to `path`.

    `follow_links=False` (a folder the caller owns, like a build's output): a symbolic link at
    `path` is itself replaced by the new regular file, atomically; nothing is written through it.

    Raises `HansaError` naming the path on any I/O failure (missing folder, a directory, no
    permission, disk full); the target is then untouched and no temporary file is left.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    name = os.fspath(path)

    def fail(exc: OSError) -> HansaError:
        return HansaError(f"cannot write: {exc.strerror or exc}", Span(name, 0, 0))

    try:
        # follows links: what is written to in the end (unless the link itself is replaced)
        info = os.stat(name) if follow_links or not os.path.islink(name) else None
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise fail(exc) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise HansaError("cannot write: is a directory", Span(name, 0, 0))
    if info is not None and not stat.S_ISREG(info.st_mode):
        try:  # a device or pipe: there is nothing to replace, only a stream to write to
            with open(name, "wb") as stream:
                stream.write(payload)
        except OSError as exc:
            raise fail(exc) from None
        return
    # a link is kept and the file it points to replaced, unless follow_links is off
    target = os.path.realpath(name) if follow_links else os.path.abspath(name)
    folder = os.path.dirname(target)
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder
        )
    except OSError as exc:
        raise fail(exc) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
        mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise fail(exc) from None
        raise
