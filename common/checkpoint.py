"""Checkpoint files for both engines: numpy ``.npz``, written atomically, read without pickle.

::

    write_arrays(path, arrays)
      temp file in path's directory --np.savez--> flush --fsync--> os.replace(temp, path)
      (any failure before the rename: the temp file is removed, the old file untouched;
       a kill leaves the temp file, which remove_stale_temps deletes on a later save)

    read_arrays(path) -> {name: ndarray}
      1. the zip directory: every member a stored (uncompressed) .npy, named once, the
         members together no larger than the file                    (no array read yet)
      2. per member, its .npy header: no object dtype, and shape x itemsize exactly the
         bytes the member holds -- only then its array is allocated and read
      EVERY array is read (zip CRC checks), so a truncated or corrupted file fails
      here -- before a caller changes any state

A crash or a full disk mid-save leaves the previous checkpoint intact:
``os.replace`` is atomic on POSIX and Windows, and nothing is renamed before
the new bytes are on disk.  Loading never executes code: members are plain
arrays and object arrays are refused.  Loading never allocates more than the
file holds: a header cannot declare a terabyte in eight bytes, and compressed
members (a deflate bomb) are refused -- :func:`write_arrays` never compresses.
"""
from __future__ import annotations

import math
import os
import re
import struct
import tempfile
import tokenize
import zipfile
from typing import BinaryIO, Callable

import numpy as np

__all__ = ["CheckpointError", "write_arrays", "write_text", "atomic_write", "read_arrays",
           "remove_stale_temps", "source_name"]


_UMASK = os.umask(0o022)
os.umask(_UMASK)
_FILE_MODE = 0o666 & ~_UMASK

# A temp file is ".<target name>.<writer's pid>.<mkstemp's 8 random characters>.tmp".
_TEMP_NAME = re.compile(r"\.(?P<target>.+)\.(?P<pid>[0-9]+)\.[a-z0-9_]{8}\.tmp")
_writing: set[str] = set()   # this process's temp files still being written (by any thread)


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
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp",
                               prefix=f".{os.path.basename(path)}.{os.getpid()}.")
    _writing.add(tmp)
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
    finally:
        _writing.discard(tmp)
    _fsync_dir(directory)


def remove_stale_temps(directory: str, owns: Callable[[str], bool]) -> None:
    """Delete the temp files that killed saves of files ``owns(name)`` left in ``directory``.

    A save killed between its temp file's creation and its rename leaves
    ``.<name>.<pid>.<random>.tmp`` behind (nothing could clean up after a kill).
    Only files whose writer is gone are deleted: another process still alive
    (or, in this process, a save in progress on another thread) may be writing
    the rest.  Where a process cannot be asked about safely (Windows), other
    processes' temp files are left alone.
    """
    try:
        names = os.listdir(directory or ".")
    except OSError:
        return
    for name in names:
        m = _TEMP_NAME.fullmatch(name)
        if m is None or not owns(m["target"]):
            continue
        path = os.path.join(directory, name)
        if _writer_gone(int(m["pid"]), os.path.abspath(path)):
            try:
                os.remove(path)
            except OSError:  # removed meanwhile, or not ours to remove
                pass


def _writer_gone(pid: int, path: str) -> bool:
    if pid == os.getpid():
        return path not in _writing
    if os.name != "posix":
        return False          # os.kill(pid, 0) would terminate the process on Windows
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:           # alive, another user's
        return False
    return False


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


# --- reading ------------------------------------------------------------------------------

_STORED = 0                      # zipfile.ZIP_STORED: np.savez never compresses
_UNSUPPORTED_FLAGS = 0x1 | 0x20 | 0x40  # encrypted, patched data, strong encryption


def read_arrays(path: str | os.PathLike | BinaryIO) -> dict[str, np.ndarray]:
    """Every array in the ``.npz`` at ``path``, fully read and checked, in native byte order.

    ``path`` may also be an open binary file (``io.BytesIO``, ``open(..., "rb")``): the
    archive is read from its current position to its end, as ``torch.load`` reads one.
    Raises the ``OSError`` of opening ``path`` (``FileNotFoundError`` for a missing
    file, as ``open`` words it) and :class:`CheckpointError` (naming the file and
    what is wrong) for anything that is not an intact checkpoint.  Nothing beyond
    the file's own size is allocated, whatever its headers declare.
    """
    if hasattr(path, "read"):
        return _read_archive(path, source_name(path))
    path = os.fspath(path)
    with open(path, "rb") as f:
        return _read_archive(f, path)


def source_name(f: str | os.PathLike | BinaryIO) -> str:
    """What messages call a checkpoint: its path, an open file's name, or its type
    (``<BytesIO>``)."""
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    name = getattr(f, "name", None)
    return name if isinstance(name, str) else f"<{type(f).__name__}>"


def _read_archive(f: BinaryIO, path: str) -> dict[str, np.ndarray]:
    """:func:`read_arrays` of the archive from ``f``'s position on (``path`` names it)."""
    start = f.tell()
    size = f.seek(0, os.SEEK_END) - start
    f.seek(start)
    head = f.read(6)
    if head and not head.startswith(b"PK"):
        raise _not_a_checkpoint(path, "it holds a single array, not an .npz archive of named "
                                      "arrays" if head == b"\x93NUMPY" else
                                      "it is not an .npz (zip) archive; pickled/object data is "
                                      "never loaded")
    f.seek(start)
    try:
        with zipfile.ZipFile(f) as z:
            members = _members(z, size, path)
            return {name: _read_member(z, info, path) for name, info in members.items()}
    except (zipfile.BadZipFile, struct.error, EOFError, OSError, ValueError, OverflowError,
            NotImplementedError) as e:   # what zipfile and numpy raise for damaged bytes
        raise CheckpointError(f"checkpoint {path!r} is truncated or corrupted and was not "
                              f"loaded ({type(e).__name__}: {e})") from None


def _not_a_checkpoint(path: str, reason: str) -> CheckpointError:
    return CheckpointError(f"checkpoint {path!r} is not a valid .npz checkpoint and was not "
                           f"loaded ({reason})")


def _members(z, size: int, path: str) -> dict:
    """``{array name: ZipInfo}``, each member checked against the file before any is read."""
    members, total = {}, 0
    for info in z.infolist():
        name = info.filename.removesuffix(".npy")
        if name == info.filename or name in members:
            raise _not_a_checkpoint(path, f"member {info.filename!r} is " + (
                "not an .npy array" if name == info.filename else "in the archive twice"))
        if info.compress_type != _STORED or info.flag_bits & _UNSUPPORTED_FLAGS:
            raise _not_a_checkpoint(path, f"member {info.filename!r} is compressed or encrypted; "
                                          f"checkpoints are written as stored .npy members")
        if info.compress_size != info.file_size:
            raise _damaged(path, f"member {info.filename!r} says it holds {info.file_size} "
                                 f"bytes in {info.compress_size}, but it is stored uncompressed")
        total += info.compress_size
        if total > size:
            raise _damaged(path, f"its members declare {total} bytes or more; the file has {size}")
        members[name] = info
    return members


def _damaged(path: str, reason: str) -> CheckpointError:
    return CheckpointError(f"checkpoint {path!r} is truncated or corrupted and was not loaded "
                           f"({reason})")


def _read_member(z, info, path: str) -> np.ndarray:
    """The member's array, in native byte order -- refused before anything is allocated if
    its .npy header declares an object dtype, or more (or fewer) bytes than it holds."""
    fmt = np.lib.format
    with z.open(info) as m:
        version = fmt.read_magic(m)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"member {info.filename!r} has .npy format version {version}, not "
                             f"1.0 or 2.0")
        read_header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        try:
            shape, fortran, dtype = read_header(m)
        except (SyntaxError, TypeError, tokenize.TokenError, RecursionError) as e:
            # numpy reads the header with ast.literal_eval (and tokenize), whose errors it
            # lets out for some damaged headers
            raise ValueError(f"member {info.filename!r} has an unreadable .npy header "
                             f"({type(e).__name__}: {e})") from None
        if dtype.hasobject:
            raise _not_a_checkpoint(path, f"member {info.filename!r} holds Python objects; "
                                          f"pickled/object data is never loaded")
        if any(n < 0 for n in shape) or dtype.itemsize == 0:
            raise _damaged(path, f"member {info.filename!r} declares shape {shape} of {dtype}")
        declared = math.prod(shape) * dtype.itemsize
        if m.tell() + declared != info.file_size:
            raise _damaged(path, f"member {info.filename!r} declares {dtype} {shape} ({declared} "
                                 f"bytes) but holds {info.file_size - m.tell()} bytes")
        array = np.empty(math.prod(shape), dtype)
        _read_into(m, array.view(np.uint8))
        if m.read(1):   # (reading to the end is also what makes zipfile check the CRC)
            raise EOFError(f"member {info.filename!r} holds more than its header declares")
    array = array.reshape(shape[::-1]).T if fortran else array.reshape(shape)
    if not array.dtype.isnative:   # written on a machine of the other endianness
        array = array.byteswap(inplace=True).view(array.dtype.newbyteorder("="))
    return array


def _read_into(f, out: np.ndarray, chunk: int = 2 ** 20) -> None:
    """Fill the bytes ``out`` from ``f`` (a chunk at a time: never two copies of a big array)."""
    for start in range(0, out.size, chunk):
        data = f.read(min(chunk, out.size - start))
        if len(data) != min(chunk, out.size - start):
            raise EOFError("the member ends before its data does")
        out[start:start + len(data)] = np.frombuffer(data, np.uint8)
