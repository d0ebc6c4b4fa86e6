"""Run cached TensorFlow test files through the adapter; compare two backends.

    # on real TF (the peers venv) and on staticgraph, then the comparison table:
    /work/peers/bin/python -m tools.tf_tests.run --backend tf  --out tf.json  FILES...
    python -m tools.tf_tests.run --backend staticgraph --out sg.json FILES...
    python -m tools.tf_tests.run --compare tf.json sg.json

Each test's outcome is recorded as pass / fail / error / set-aside, with the
exception's type and first line, and a *class* for staticgraph's failures:
missing name, missing keyword argument, TF-internal name (a private
attribute, out of scope), wrong value, wrong message, wrong
exception type, nothing raised, unexpected exception, timeout.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import sys
import threading
import time
import traceback
import unittest
from typing import Any

from tools.tf_tests import adapter

TIMEOUT_S = 30


class Timeout(Exception):
    """A test ran past TIMEOUT_S."""


def classify(exc: BaseException) -> str:
    """The failure class of a test's exception (see the module docstring)."""
    text = str(exc)
    if isinstance(exc, Timeout):
        return "timeout"
    if isinstance(exc, AssertionError):
        for tag in ("wrong message", "wrong exception type", "nothing raised"):
            if text.startswith(f"[{tag}]"):
                cause = exc.__cause__
                if tag == "wrong exception type" and cause is not None:
                    inner = classify(cause)
                    if inner.startswith("missing"):
                        return inner
                return tag
        return "wrong value"
    if isinstance(exc, AttributeError) and "attribute '_" in text:
        return "TF-internal name"
    if isinstance(exc, adapter.MissingName) or "MissingDType" in text:
        return "missing name"
    if isinstance(exc, AttributeError) and "has no attribute" in text:
        return "missing name"
    if isinstance(exc, TypeError) and ("unexpected keyword argument" in text
                                       or "got multiple values" in text):
        return "missing keyword argument"
    return "unexpected exception"


def _line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".splitlines()
    return text[0][:300] if text else type(exc).__name__


def _where(exc: BaseException) -> str:
    """The innermost frame in a test file or in the backend, for the report."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        if "/tftests/" in frame.filename or "staticgraph" in frame.filename:
            return f"{os.path.basename(frame.filename)}:{frame.lineno}"
    return ""


class Recorder(unittest.TestResult):
    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, dict[str, Any]] = {}

    def _put(self, test: unittest.TestCase, status: str, exc: BaseException | None = None,
             reason: str = "") -> None:
        row: dict[str, Any] = {"status": status}
        if exc is not None:
            row.update(cls=classify(exc), error=_line(exc), where=_where(exc))
        if reason:
            row["reason"] = reason
        self.rows[test.id().split(".", 1)[-1]] = row

    def addSuccess(self, test: unittest.TestCase) -> None:
        self._put(test, "pass")

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:
        self._put(test, "fail", err[1])

    def addError(self, test: unittest.TestCase, err: Any) -> None:
        self._put(test, "fail", err[1])

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        self._put(test, "set aside" if reason.startswith(adapter.SET_ASIDE) else "skip",
                  reason=reason)

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:
        if err is not None:
            self._put(test, "fail", err[1])


def _alarm(_signum: int, _frame: Any) -> None:
    raise Timeout(f"ran past {TIMEOUT_S} s")


def _tests(suite: unittest.TestSuite) -> list[unittest.TestCase]:
    out: list[unittest.TestCase] = []
    for item in suite:
        out.extend(_tests(item) if isinstance(item, unittest.TestSuite) else [item])
    return out


def run_file(path: str) -> dict[str, Any]:
    name = os.path.splitext(os.path.basename(path))[0]
    try:
        module = adapter.load_test_file(path, name)
    except BaseException as exc:  # the file itself does not load
        return {"__load__": {"status": "fail", "cls": classify(exc), "error": _line(exc)}}
    recorder = Recorder()
    signal.signal(signal.SIGALRM, _alarm)
    for test in _tests(unittest.defaultTestLoader.loadTestsFromModule(module)):
        if test.id().split(".")[-2].endswith("Benchmark") or test.id().endswith(
                ".test_session"):
            continue
        signal.alarm(TIMEOUT_S)
        try:
            test.run(recorder)
        except Timeout as exc:
            recorder._put(test, "fail", exc)
        finally:
            signal.alarm(0)
        tid = test.id().split(".", 1)[-1]
        if tid not in recorder.rows:
            recorder._put(test, "pass")
    return recorder.rows


def compare(tf_path: str, sg_path: str, sg_before: str | None = None) -> str:
    """The per-file table and the failure classes (tests passing on TF only)."""
    tf_res, sg_res = json.load(open(tf_path)), json.load(open(sg_path))
    before = json.load(open(sg_before)) if sg_before else None
    lines = ["| file | TF passes | staticgraph passes" + (" (before)" if before else "")
             + " | set aside |", "|---|---|---|---|"]
    classes: collections.Counter = collections.Counter()
    examples: dict[str, list[str]] = collections.defaultdict(list)
    totals = [0, 0, 0]
    for fname in sorted(tf_res):
        tf_rows, sg_rows = tf_res[fname], sg_res.get(fname, {})
        passing = [t for t, r in tf_rows.items() if r["status"] == "pass"]
        aside = sum(r["status"] == "set aside" for r in tf_rows.values())
        ok = [t for t in passing if sg_rows.get(t, {}).get("status") == "pass"]
        cell = str(len(ok))
        if before is not None:
            old = before.get(fname, {})
            cell += f" ({sum(old.get(t, {}).get('status') == 'pass' for t in passing)})"
        lines.append(f"| {fname} | {len(passing)} | {cell} | {aside} |")
        totals[0] += len(passing)
        totals[1] += len(ok)
        totals[2] += aside
        for t in passing:
            row = sg_rows.get(t) or sg_rows.get("__load__") or {"cls": "not run",
                                                                 "error": ""}
            if row.get("status") == "pass":
                continue
            cls = row.get("cls", row.get("status", "?"))
            classes[cls] += 1
            examples[cls].append(f"{fname}:{t}: {row.get('error', row.get('reason', ''))}"
                                 f" [{row.get('where', '')}]")
    lines.append(f"| **total** | {totals[0]} | {totals[1]} "
                 f"({100 * totals[1] / max(totals[0], 1):.0f}%) | {totals[2]} |")
    lines.append("")
    for cls, count in classes.most_common():
        lines.append(f"## {cls}: {count}")
        lines.extend("  " + e for e in examples[cls])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["tf", "staticgraph"])
    parser.add_argument("--out")
    parser.add_argument("--compare", nargs="+", metavar="JSON",
                        help="TF_JSON SG_JSON [SG_BEFORE_JSON]")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    if args.compare:
        print(compare(*args.compare))
        return
    adapter.use_backend(args.backend)
    adapter.TEST_DIRS[:] = sorted({os.path.dirname(os.path.abspath(f)) for f in args.files})
    results = {}
    for path in args.files:
        start = time.time()
        rows = run_file(path)
        name = os.path.basename(path)
        results[name] = rows
        n_pass = sum(r["status"] == "pass" for r in rows.values())
        print(f"{name}: {n_pass}/{len(rows)} pass ({time.time() - start:.0f} s)",
              file=sys.stderr, flush=True)
    with open(args.out, "w") as handle:
        json.dump(results, handle, indent=1, sort_keys=True)
    if threading.active_count() > 1:
        # A failed multithreaded test can leave a thread waiting forever (e.g. on an
        # Event its partner never sets); the results are written, so do not wait for it.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


if __name__ == "__main__":
    main()
