"""A checkpoint directory's files: each checkpoint's file names, and the ``checkpoint`` state file.

::

    run/checkpoint                         the state file, TF's text format:
        model_checkpoint_path: "model-2"          the newest checkpoint
        all_model_checkpoint_paths: "model-1"     every one kept, oldest first
        all_model_checkpoint_paths: "model-2"
    run/model-2.index                      present only once the checkpoint is whole
    run/model-2.data-00000-of-00001        the values
    run/model-2.meta                       the graph

The state file is read as TF 2.21 reads it (``text_format.Merge`` of a
``CheckpointState``): C-escaped strings in double or single quotes, adjacent
strings joined, ``#`` comments, the two timestamp fields of TF 2's
``CheckpointManager``.  What cannot be parsed is ignored with TF's two warnings
and gives ``None``; a file naming no newest checkpoint is TF's ``ValueError``.

Paths are trusted as TF trusts them: a relative path is joined to the folder
without normalising it, so ``../other/model`` names a checkpoint outside the
folder, and an absolute path is used as it is.  Whoever can write the state
file can point a restore at any checkpoint the process can read -- which loads
values, never code (see :mod:`common.checkpoint`).
"""
from __future__ import annotations

import codecs
import os
import re
import warnings

from common.checkpoint import write_text

from ..platform import tf_logging

__all__ = ["CheckpointState", "get_checkpoint_state", "latest_checkpoint", "checkpoint_exists",
           "data_path", "index_path", "write_state", "STATE_FILE"]

STATE_FILE = "checkpoint"


def data_path(prefix: str) -> str:
    """Where the values of checkpoint ``prefix`` live (TF's single-shard data file name)."""
    return prefix + ".data-00000-of-00001"


def index_path(prefix: str) -> str:
    """Checkpoint ``prefix``'s index: its variables' names, shapes and dtypes."""
    return prefix + ".index"


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """Whether a checkpoint was saved under ``checkpoint_prefix`` (its ``.index`` exists)."""
    return os.path.isfile(index_path(checkpoint_prefix))


class CheckpointState:
    """What ``get_checkpoint_state`` returns (TF's ``CheckpointState`` proto, its two path fields)."""

    def __init__(self, model_checkpoint_path: str, all_model_checkpoint_paths: list[str]):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = all_model_checkpoint_paths

    def __str__(self) -> str:
        return "".join([f"model_checkpoint_path: {_quote(self.model_checkpoint_path)}\n"] +
                       [f"all_model_checkpoint_paths: {_quote(p)}\n"
                        for p in self.all_model_checkpoint_paths])

    __repr__ = __str__


def write_state(save_path: str, kept: list[str]) -> None:
    """``<dir>/checkpoint`` naming ``kept`` (newest last), atomically, in TF's text format;
    paths as the program gave them (absolute stay absolute; relative ones are written
    relative to the directory), as TF writes them."""
    directory = os.path.dirname(save_path) or "."
    rel = [p if os.path.isabs(p) else os.path.relpath(p, directory) for p in kept]
    write_text(os.path.join(directory, STATE_FILE), str(CheckpointState(rel[-1], rel)))


def get_checkpoint_state(checkpoint_dir: str, latest_filename: str | None = None) -> CheckpointState | None:
    """The ``checkpoint`` file of ``checkpoint_dir`` (relative paths joined to the directory),
    or None when there is none or it cannot be read or parsed (logged, as TF).

    Raises ``ValueError("Invalid checkpoint state loaded from <dir>")`` for a file
    that names no newest checkpoint (TF's error).  As in TF 2.21, the paths may lead
    out of the folder: ``../run2/model`` gives ``<dir>/../run2/model``, and an
    absolute path stays as it is.

    >>> ckpt = tf.train.get_checkpoint_state("run")   # doctest: +SKIP
    >>> if ckpt and ckpt.model_checkpoint_path: saver.restore(sess, ckpt.model_checkpoint_path)
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    state = os.path.join(checkpoint_dir, latest_filename or STATE_FILE)
    if not os.path.isfile(state):
        return None
    try:
        with open(state, "rb") as f:
            newest, kept = _parse(f.read())
    except (OSError, ParseError) as e:   # TF: "It's ok if the file cannot be read"
        tf_logging.warning("%s: %s", type(e).__name__, e)
        tf_logging.warning("%s: Checkpoint ignored", state)
        return None
    if not newest:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)

    def join(path: str) -> str:   # as TF: joined to the folder, not normalised, not confined
        return path if os.path.isabs(path) else os.path.join(checkpoint_dir, path)
    return CheckpointState(join(newest), [join(p) for p in kept])


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The newest checkpoint path the state file of ``checkpoint_dir`` names, if that
    checkpoint's index exists -- inside the folder or not, as TF 2.21 (which globs for it;
    this looks for the file); otherwise None, after TF's "Couldn't match files" error log."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None:
        return None
    if not checkpoint_exists(state.model_checkpoint_path):
        tf_logging.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
        return None
    return state.model_checkpoint_path


# --- TF's text format, as much of it as a CheckpointState uses --------------------------------

class ParseError(ValueError):
    """A state file that is not a ``CheckpointState`` in text format (protobuf's ParseError)."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"{line}:{column} : {message}")


_PATH_FIELDS = ("model_checkpoint_path", "all_model_checkpoint_paths")
_TIME_FIELDS = ("all_model_checkpoint_timestamps", "last_preserved_timestamp")
_SKIP = re.compile(r"(\s|#.*$)+", re.MULTILINE)
_TOKEN = re.compile(            # protobuf's tokens: identifier, number, quoted strings
    r"[a-zA-Z_][0-9a-zA-Z_+-]*|([0-9+-]|\.[0-9])[0-9a-zA-Z_.+-]*|"
    r"\"[^\"\n\\]*((\\.)+[^\"\n\\]*)*(\"|\\?$)|'[^'\n\\]*((\\.)+[^'\n\\]*)*('|\\?$)", re.MULTILINE)
_IDENTIFIER = re.compile(r"\w+")
_ESCAPES = {"\n": r"\n", "\r": r"\r", "\t": r"\t", '"': r"\"", "'": r"\'", "\\": r"\\"}


def _quote(path: str) -> str:
    """``path`` as TF writes a string: C escapes for quotes, backslashes and control
    characters; other characters (UTF-8 included) as they are."""
    return '"' + "".join(_ESCAPES.get(c) or (f"\\{ord(c):03o}" if ord(c) < 32 or ord(c) == 127
                                             else c) for c in path) + '"'


def _parse(data: bytes) -> tuple[str | None, list[str]]:
    """(model_checkpoint_path, all_model_checkpoint_paths) of a state file's bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:   # TF 2.21 lets this escape; it is a file TF cannot parse
        raise ParseError(f"the file is not UTF-8 text ({e})", 1, 1) from None
    tokens = _Tokens(text)
    newest, kept = None, []
    while tokens.peek():
        name, line, col = tokens.next()
        if not _IDENTIFIER.match(name):
            raise tokens.error(f"Expected identifier or number, got {name}.", line, col)
        if name not in _PATH_FIELDS + _TIME_FIELDS:
            raise ParseError(f'Message type "tensorflow.CheckpointState" has no field named '
                             f'"{name}".', line, col)
        token, line, col = tokens.next()
        if token != ":":
            raise tokens.error('Expected ":".', line, col)
        if name in _TIME_FIELDS:
            _number(tokens)
        elif name == "model_checkpoint_path":
            newest = _string(tokens)
        else:
            kept.append(_string(tokens))
        if tokens.peek() in (",", ";"):
            tokens.next()
    return newest, kept


class _Tokens:
    """protobuf's tokenizer, one token at a time: ``(token, line, column)``, 1-based;
    whitespace and comments skipped; ``""`` at the end."""

    def __init__(self, text: str):
        self._lines = text.split("\n")
        self._stream = self._scan()
        self._ahead = next(self._stream)

    def _scan(self):
        for number, line in enumerate(self._lines, 1):
            col = 0
            while col < len(line):
                skip = _SKIP.match(line, col)
                if skip:
                    col = skip.end()
                    continue
                m = _TOKEN.match(line, col)
                end = m.end() if m else col + 1
                yield line[col:end], number, col + 1
                col = end
        while True:
            yield "", len(self._lines), len(self._lines[-1]) + 1

    def peek(self) -> str:
        return self._ahead[0]

    def next(self) -> tuple[str, int, int]:
        token, self._ahead = self._ahead, next(self._stream)
        return token

    def error(self, message: str, line: int, col: int) -> ParseError:
        """A ParseError at a token, quoting its line as protobuf does."""
        return ParseError(f"'{self._lines[line - 1]}': {message}", line, col)


def _string(tokens: _Tokens) -> str:
    """One string value: adjacent quoted strings, joined, C-unescaped, UTF-8 decoded."""
    token, line, col = tokens.next()
    if token[:1] not in ("'", '"'):
        raise tokens.error(f"Expected string but found: {token!r}", line, col)
    parts = []
    while True:
        if len(token) < 2 or token[-1] != token[0]:
            raise tokens.error(f"String missing ending quote: {token!r}", line, col)
        try:
            parts.append(_unescape(token[1:-1]))
        except UnicodeDecodeError as e:
            raise tokens.error(str(e), line, col) from None
        if tokens.peek()[:1] not in ("'", '"'):
            break
        token, line, col = tokens.next()
    try:
        return b"".join(parts).decode("utf-8")
    except UnicodeDecodeError as e:
        raise tokens.error(f"Couldn't parse string: {e}", line, col) from None


def _unescape(body: str) -> bytes:
    """protobuf's CUnescape: C escapes (octal, hex, \\n ...) to bytes; other text as UTF-8."""
    body = re.sub(r"(\\+)x([0-9a-fA-F])(?![0-9a-fA-F])",   # \xA means \x0A, as in C
                  lambda m: m[1] + "x0" + m[2] if len(m[1]) % 2 else m[0], body)
    with warnings.catch_warnings():   # "invalid escape sequence": kept as it is, as protobuf
        warnings.simplefilter("ignore", DeprecationWarning)
        return codecs.decode(body.encode("utf-8"), "unicode_escape").encode("raw_unicode_escape")


def _number(tokens: _Tokens) -> float:
    token, line, col = tokens.next()
    try:
        return float(token.removesuffix("f").removesuffix("F"))
    except ValueError:
        raise tokens.error(f"Couldn't parse float: {token}", line, col) from None
