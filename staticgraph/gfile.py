"""``tf.gfile`` (and ``tf.io.gfile``): TF's file API -- names only; the code lives in
``platform/gfile.py``."""
from __future__ import annotations

from .platform.gfile import *  # noqa: F403

__all__ = ["GFile", "FastGFile", "Open", "Exists", "IsDirectory", "MakeDirs", "MkDir", "Glob",
           "ListDirectory", "Remove", "Rename", "Copy", "DeleteRecursively", "Stat", "Walk",
           "exists", "isdir", "makedirs", "mkdir", "glob", "listdir", "remove", "rename", "copy",
           "rmtree", "stat", "walk", "join"]
