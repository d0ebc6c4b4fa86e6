"""Checkpoint files for both engines: numpy ``.npz``, written atomically, read without pickle.

::

    write_arrays(path, arrays)
      temp file in path's directory --np.savez--> flush --fsync--> os.replace(temp, path)
      (any failure before the rename: the temp file is removed, the old file untouched)

    read_arrays(path) -> {name: ndarray}
      np.load(allow_pickle=False) and read EVERY array now, so a truncated or
      corrupted file fails here (zip CRC checks) -- before a caller changes any state

A crash or a full disk mid-save leaves the previous checkpoint intact:
``os.replace`` is atomic on POSIX and Windows, and nothing is renamed before
the new bytes are on disk.  Loading never executes code: ``.npz`` members are
plain arrays and object arrays are refused (``allow_pickle=False``).
"""
from __future__ import annotations

import os
import zlib
from typing import BinaryIO, Callable

import numpy as np

__all__ = ["CheckpointError", "write_arrays", "write_text", "atomic_write", "read_arrays"]


_UMASK = os.umask(0o022)
os.umask(_UMASK)
_FILE_MODE = 0o666 & ~_UMASK


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be read: truncated, corrupted, or not a checkpoint at all."""


def write_arrays(path: str | os.PathLike, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` as ``.npz``, atomically (exactly ``path``: no suffix added)."""
    atomic_write(path, lambda f: np.savez(f, **arrays))


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (a meta graph next to a checkpoint)."""
    atomic_write(path, lambda f: f.write(text.encode("utf-8")))


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], object]) -> None:
    """``write(f)`` into a temp file beside ``path``, fsync it, then rename it over ``path``."""
    import tempfile  # here, not at import: it pulls in random, shutil, bz2, lzma (~10 ms)
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        os.chmod(tmp, _FILE_MODE)  # mkstemp makes 0600; a checkpoint gets the usual umask mode
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    _fsync_dir(directory)


def _fsync_dir(directory: str) -> None:
    """Make the rename itself durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_arrays(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Every array in the ``.npz`` at ``path``, fully read and checked.

    Raises ``FileNotFoundError`` for a missing file and :class:`CheckpointError`
    (naming the file and what is wrong) for anything that is not an intact
    checkpoint.
    """
    import zipfile  # here, not at import (np.load needs it anyway)
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"No such checkpoint file: {path!r}")
    try:
        npz = np.load(path, allow_pickle=False)
        if not isinstance(npz, np.lib.npyio.NpzFile):
            raise ValueError("it holds a single array, not an .npz archive of named arrays")
        with npz:
            return {name: npz[name] for name in npz.files}
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError) as e:
        raise CheckpointError(f"checkpoint {path!r} is truncated or corrupted and was not "
                              f"loaded ({type(e).__name__}: {e})") from None
    except ValueError as e:  # object arrays (need pickle) or a damaged array header
        reason = "pickled/object data is never loaded" if "pickle" in str(e) else str(e)
        raise CheckpointError(f"checkpoint {path!r} is not a valid .npz checkpoint and was not "
                              f"loaded ({reason})") from None
