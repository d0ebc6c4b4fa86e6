"""``tf.gfile`` / ``tf.io.gfile``: TF's file API over the local file system (``os``, ``open``).

TF1 programs reach for it to read label files, make checkpoint directories and list
data files.  Both spellings are here: TF1's (``GFile``, ``Exists``, ``MakeDirs``, ``Glob``,
``ListDirectory``, ``Remove``...) and ``tf.io.gfile``'s (``exists``, ``makedirs``,
``glob``, ``listdir``, ``remove``...).  Failures raise TF's error classes with TF's
words (``NotFoundError: <path>; No such file or directory``).

A ``GFile`` opens the file on first use, as TF's does; text modes read ``str``
(UTF-8), binary modes ``bytes``, and text-mode writes accept either.

>>> import os, tempfile, staticgraph as tf
>>> path = os.path.join(tempfile.mkdtemp(), "labels.txt")
>>> with tf.gfile.GFile(path, "w") as f:
...     f.write("cat\\ndog\\n")
>>> with tf.gfile.GFile(path) as f:
...     [line.strip() for line in f]
['cat', 'dog']
"""
from __future__ import annotations

import glob as _glob
import os
import shutil
from typing import Iterator, NamedTuple

from ..framework.errors import (AlreadyExistsError, FailedPreconditionError, NotFoundError,
                               PermissionDeniedError)

__all__ = ["GFile", "FastGFile", "Open", "Exists", "IsDirectory", "MakeDirs", "MkDir", "Glob",
           "ListDirectory", "Remove", "Rename", "Copy", "DeleteRecursively", "Stat", "Walk",
           "exists", "isdir", "makedirs", "mkdir", "glob", "listdir", "remove", "rename", "copy",
           "rmtree", "stat", "walk", "join"]


def _not_found(path: str) -> NotFoundError:
    return NotFoundError(None, None, f"{path}; No such file or directory")


class GFile:
    """A file handle as TF's: ``GFile(name, mode="r")``, opened lazily, a context manager."""

    def __init__(self, name: str, mode: str = "r"):
        self.name, self.mode = os.fspath(name), mode
        self._binary = "b" in mode
        self._file = None

    def _open(self, reading: bool):
        if reading and not ("r" in self.mode or "+" in self.mode):
            raise PermissionDeniedError(None, None, "File isn't open for reading")
        if not reading and not any(m in self.mode for m in "wa+"):
            raise PermissionDeniedError(None, None, "File isn't open for writing")
        if self._file is None:
            try:
                self._file = open(self.name, self.mode.replace("b", "") + "b")  # noqa: SIM115
            except FileNotFoundError:
                raise _not_found(self.name) from None
        return self._file

    def _text(self, data: bytes):
        return data if self._binary else data.decode("utf-8")

    def read(self, n: int = -1):
        return self._text(self._open(True).read(n))

    def readline(self):
        return self._text(self._open(True).readline())

    def readlines(self) -> list:
        return [self._text(line) for line in self._open(True).readlines()]

    def __iter__(self) -> Iterator:
        return iter(self.readline, self._text(b""))

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def write(self, data) -> None:
        self._open(False).write(data.encode("utf-8") if isinstance(data, str) else bytes(data))

    def size(self) -> int:
        return os.path.getsize(self.name)

    def seek(self, offset: int, whence: int = 0) -> None:
        self._open("r" in self.mode).seek(offset, whence)

    def tell(self) -> int:
        return self._open("r" in self.mode).tell()

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> "GFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


FastGFile = Open = GFile


def exists(path: str) -> bool:
    return bool(path) and os.path.exists(path)


def isdir(path: str) -> bool:
    return os.path.isdir(path)


def makedirs(path: str) -> None:
    """The directory and its missing parents; nothing if it exists."""
    try:
        os.makedirs(path, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        parent = path
        while parent and not os.path.exists(parent):
            parent = os.path.dirname(parent)
        raise FailedPreconditionError(None, None, f"{parent} is not a directory") from None


def mkdir(path: str) -> None:
    """One directory (its parent must exist); nothing if it exists, as TF."""
    try:
        os.mkdir(path)
    except FileExistsError:
        pass
    except FileNotFoundError:
        raise _not_found(path) from None


def glob(pattern: str) -> list[str]:
    return sorted(_glob.glob(pattern))


def listdir(path: str) -> list[str]:
    if not os.path.isdir(path):
        raise NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


def remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        raise _not_found(path) from None


def _check_target(dst: str, overwrite: bool) -> None:
    if not overwrite and os.path.exists(dst):
        raise AlreadyExistsError(None, None, "file already exists")


def rename(src: str, dst: str, overwrite: bool = False) -> None:
    _check_target(dst, overwrite)
    try:
        os.replace(src, dst)
    except FileNotFoundError:
        raise _not_found(src) from None


def copy(src: str, dst: str, overwrite: bool = False) -> None:
    _check_target(dst, overwrite)
    try:
        shutil.copyfile(src, dst)
    except FileNotFoundError:
        raise _not_found(src) from None


def rmtree(path: str) -> None:
    if not os.path.exists(path):
        raise NotFoundError(None, None, f"{path} not found")
    shutil.rmtree(path)


class FileStatistics(NamedTuple):
    length: int
    mtime_nsec: int
    is_directory: bool


def stat(path: str) -> FileStatistics:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _not_found(path) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))


def walk(top: str, topdown: bool = True, onerror=None) -> Iterator[tuple[str, list, list]]:
    """``(dir, subdirs, files)`` tuples, names sorted within a directory (as TF lists them)."""
    for root, dirs, files in os.walk(top, topdown=topdown, onerror=onerror):
        dirs.sort()
        yield root, list(dirs), sorted(files)


join = os.path.join

Exists, IsDirectory, MakeDirs, MkDir, Glob = exists, isdir, makedirs, mkdir, glob
ListDirectory, Remove, Rename, Copy = listdir, remove, rename, copy
DeleteRecursively, Stat, Walk = rmtree, stat, walk
