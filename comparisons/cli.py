"""``python -m comparisons``: one subcommand per side-by-side script, plus ``bench``.

::

    python -m comparisons --help              # every comparison with a one-line summary
    python -m comparisons                     # run them all, in order
    python -m comparisons --only rnn,branch   # run some
    python -m comparisons rnn --out pics/     # run one, writing its pictures
    python -m comparisons bench --quick       # the benchmark suite (its own options)
    python -m comparisons --tensorboard DIR   # both engines' graphs + bench curves for TensorBoard
    python -m comparisons --html DIR          # the tutorial notebook as one HTML page, DIR/index.html

The options every script accepts live in :func:`add_shared_options`, once:
a new shared option is one ``add_argument`` line there, and it reaches the
top-level command, every subcommand and every ``python -m comparisons.NAME``.
"""
from __future__ import annotations

import argparse
import importlib

__all__ = ["SCRIPTS", "add_shared_options", "summary", "build_parser", "main"]

SCRIPTS = ["counter", "gradient", "rnn", "cnn", "seeded", "seeded_tf", "branch", "errors", "debugging",
           "registry_table", "bridges"]
"""The side-by-side scripts, in the order ``python -m comparisons`` runs them."""


def add_shared_options(p: argparse.ArgumentParser, *, in_subcommand: bool = False) -> None:
    """The options of every comparison script (and of ``python -m comparisons``).

    In a subcommand the defaults are suppressed, so an option given before the
    subcommand name (``--out D rnn``) is not reset by the subparser's default.
    """
    default = argparse.SUPPRESS if in_subcommand else None
    p.add_argument("--out", metavar="DIR", default=default,
                   help="also write each graph as DOT text and PNG/SVG pictures into DIR")
    p.add_argument("--lengths", metavar="N[,N]", default=default,
                   help="sequence lengths the rnn showcase measures (default 10,50,200)")


def summary(name: str) -> str:
    """A script's one-line summary: the first line of its module docstring, without ``name:``."""
    doc = importlib.import_module(f"comparisons.{name}").__doc__ or ""
    first = doc.strip().splitlines()[0].rstrip(".")
    return first.split(": ", 1)[1] if first.startswith(f"{name}: ") else first


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser: shared options, ``--only``, and one subcommand per script."""
    p = argparse.ArgumentParser(
        prog="python -m comparisons",
        description="Side-by-side comparisons of dyngraph (eager) and staticgraph (static). "
                    "Without a subcommand, runs every comparison in order.",
        epilog="Each comparison also runs alone: python -m comparisons.NAME [options].")
    add_shared_options(p)
    p.add_argument("--only", metavar="NAME[,NAME]", type=_names,
                   help="run only these comparisons (" + ", ".join(SCRIPTS) + ")")
    from .tensorboard import add_arguments as add_tensorboard_arguments
    add_tensorboard_arguments(p)
    p.add_argument("--html", metavar="DIR",
                   help="run the tutorial (examples/static_vs_dynamic.ipynb) and write it as one "
                        "self-contained page, DIR/index.html (inline SVG graphs, tables, plots)")
    sub = p.add_subparsers(dest="command", title="comparisons", metavar="NAME")
    for name in SCRIPTS:
        s = sub.add_parser(name, help=summary(name), description=summary(name))
        add_shared_options(s, in_subcommand=True)
    sub.add_parser("bench", add_help=False, prefix_chars="\0",
                   help="benchmark suite: both engines vs numpy, PyTorch, TF1 "
                        "(python -m comparisons bench --help)"
                   ).add_argument("bench_args", nargs=argparse.REMAINDER)
    return p


def _names(spec: str) -> list[str]:
    names = [n for n in spec.split(",") if n]
    unknown = [n for n in names if n not in SCRIPTS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown comparison {', '.join(unknown)}; known: {', '.join(SCRIPTS)}")
    return names


def _forward(args: argparse.Namespace) -> list[str]:
    """The shared options given, as a script's own ``main(argv)`` expects them (every option
    :func:`add_shared_options` declares, so a new one needs no change here)."""
    shared = argparse.ArgumentParser(add_help=False)
    add_shared_options(shared)
    argv: list[str] = []
    for action in shared._actions:
        value = getattr(args, action.dest, None)
        if value is None or value is False:
            continue
        argv.append(action.option_strings[0])
        if action.nargs != 0:
            argv.append(str(value))
    return argv


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.tensorboard:
        from .tensorboard import write
        write(args.tensorboard, args.bench_json)
        return 0
    if args.html:
        from .tutorial import write_html
        print(write_html(args.html))
        return 0
    if args.command == "bench":
        from .bench.cli import main as bench_main
        return bench_main(args.bench_args)
    names = [args.command] if args.command else (args.only or SCRIPTS)
    for name in names:
        module = importlib.import_module(f"comparisons.{name}")
        if len(names) > 1:
            print(f"\n=== comparisons.{name} " + "=" * (60 - len(name)))
        module.main(_forward(args))
    return 0
