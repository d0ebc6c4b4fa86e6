"""``tf.logging`` (TF1): the ``tensorflow`` Python logger under TF's names and levels.

>>> import staticgraph as tf
>>> tf.logging.set_verbosity(tf.logging.INFO)
>>> tf.logging.get_verbosity()
20
"""
from __future__ import annotations

import inspect
import logging as _logging

__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", "set_verbosity", "get_verbosity", "debug",
           "info", "warn", "warning", "error", "fatal", "log", "log_every_n", "log_first_n",
           "vlog"]

DEBUG, INFO, WARN, ERROR, FATAL = (_logging.DEBUG, _logging.INFO, _logging.WARN, _logging.ERROR,
                                   _logging.FATAL)

_logger = _logging.getLogger("tensorflow")
if _logger.level == _logging.NOTSET:
    _logger.setLevel(WARN)               # TF's default verbosity
if not _logger.handlers:
    _logger.addHandler(_logging.StreamHandler())


def set_verbosity(v: int) -> None:
    _logger.setLevel(v)


def get_verbosity() -> int:
    return _logger.getEffectiveLevel()


def log(level: int, msg, *args, **kwargs) -> None:
    _logger.log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs) -> None:
    _logger.debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs) -> None:
    _logger.info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs) -> None:
    _logger.warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs) -> None:
    _logger.error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs) -> None:
    _logger.fatal(msg, *args, **kwargs)


def vlog(level: int, msg, *args, **kwargs) -> None:
    _logger.log(level, msg, *args, **kwargs)


_counts: dict = {}


def log_every_n(level: int, msg, n: int, *args) -> None:
    """Logs on the 1st, (n+1)th, (2n+1)th... call from the same place."""
    caller = inspect.stack()[1]
    key = (caller.filename, caller.lineno)
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count % n == 0:
        _logger.log(level, msg, *args)


def log_first_n(level: int, msg, n: int, *args) -> None:
    caller = inspect.stack()[1]
    key = ("first", caller.filename, caller.lineno)
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count < n:
        _logger.log(level, msg, *args)
