"""tutorial: static vs dynamic graphs for a learner -- the notebook and its one-page HTML twin.

Run: ``python -m comparisons --html DIR`` (writes ``DIR/index.html``), or open
``examples/static_vs_dynamic.ipynb`` in Jupyter.

:data:`CELLS` is the tutorial, once: ``examples/static_vs_dynamic.ipynb`` is written from it
(:func:`write_notebook`; a test checks the stored notebook still matches), and
:func:`write_html` runs the same cells in this process and lays out what each one shows --
through the objects' own ``_repr_html_``/``_repr_svg_`` (:mod:`common.display`), exactly as
Jupyter would -- as one self-contained page: inline SVG pictures and plots, HTML tables, no
file beside it and nothing fetched.
"""
from __future__ import annotations

import ast
import contextlib
import html
import io
import json
import os
import re
from pathlib import Path

__all__ = ["CELLS", "NOTEBOOK", "notebook", "write_notebook", "run_cells", "page", "write_html",
           "main"]

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "static_vs_dynamic.ipynb"
"""Where the notebook lives in a checkout of the project."""

CELLS: list[tuple[str, str]] = [
    ("markdown", """
# Static vs dynamic computation graphs, side by side

PyTorch builds its graph **while your code runs** (define-by-run, *dynamic*); TensorFlow 1.x
has you **build the graph first and run it later** in a `Session` (define-then-run, *static*).
This tutorial runs the same small programs in both styles, with the two engines of this
project: `dyngraph` (imported as `torch`, PyTorch's surface) and `staticgraph` (imported as
`tf`, TensorFlow's `compat.v1` surface). Both run on numpy, so everything here is plain
Python you can step into.

Every graph below draws itself: a staticgraph `Graph`, the tape `torch.graph_of(t)` of an
eager tensor, `sess.explain(...)`, a diff of two eager passes and a benchmark's results are
shown inline just by being the last value of a cell.
"""),
    ("code", """
import numpy as np
import dyngraph as torch      # eager: PyTorch's API
import staticgraph as tf      # graph mode: TensorFlow 1.x's tf.compat.v1 API
"""),
    ("markdown", """
## 1. A loop: the counter

**Eager.** A Python `while` over tensors: Python checks `first < second` on real numbers each
time round. Nothing requires a gradient, so nothing is recorded — there is no graph at all.
"""),
    ("code", """
first, second = torch.tensor(0.0), torch.tensor(10.0)
while first < second:        # Python decides, on values
    first += 2
    second += 1
first, second
"""),
    ("markdown", """
**Static.** The loop is *one node* of a graph, `while_loop`, built once; the bound `n` is a
placeholder fed at run time. The picture shows the loop's condition and body as framed
sub-graphs under the `while` node.
"""),
    ("code", """
g = tf.Graph()
with g.as_default():
    n = tf.placeholder(tf.float32, (), name="n")
    first, second = tf.while_loop(lambda a, b: a < b,
                                  lambda a, b: (a + 2.0, b + 1.0),
                                  [tf.constant(0.0), n])
g
"""),
    ("markdown", """
Running it is a separate step. One graph serves every `n`; the session compiles the graph into
Python source, and `sess.explain` shows what it did (click a section to open it).
"""),
    ("code", """
sess = tf.Session(graph=g)
print(sess.run([first, second], {n: 10.0}), sess.run([first, second], {n: 1000.0}))
sess.explain([first, second], {n: 10.0})
"""),
    ("markdown", """
## 2. The gradient of `y = (x + w) * (w + 1)`

**Eager.** Every op on a tensor that requires a gradient is recorded on a *tape*;
`backward()` walks it in reverse. `torch.graph_of(y)` shows that tape (PyTorch's `grad_fn`
nodes, leaves as `AccumulateGrad`).
"""),
    ("code", """
w = torch.tensor([1.0], requires_grad=True)
x = torch.tensor([2.0], requires_grad=True)
y = (x + w) * (w + 1)
y.backward()
print("dy/dw =", w.grad, " dy/dx =", x.grad)
torch.graph_of(y, names={"w": w, "x": x})
"""),
    ("markdown", """
**Static.** `tf.gradients` adds the backward computation to the graph as ordinary nodes
(pink, under `gradients/`), which the session runs like any others, as often as you like.
"""),
    ("code", """
g = tf.Graph()
with g.as_default():
    w = tf.Variable([1.0], name="w")
    x = tf.placeholder(tf.float32, (1,), name="x")
    y = (x + w) * (w + 1.0)
    dw, dx = tf.gradients(y, [w, x])
    init = tf.global_variables_initializer()
with tf.Session(graph=g) as sess:
    sess.run(init)
    print(sess.run([dw, dx], {x: [2.0]}))
g
"""),
    ("markdown", """
## 3. An RNN cell

The same cell, `h' = tanh(W_h h + W_x x)`, in both engines. Eagerly, a sequence of `T` steps
records `T` copies of the cell; statically, a `while_loop` holds one copy for any length.
"""),
    ("code", """
rng = np.random.default_rng(0)
W_H = rng.standard_normal((4, 4)).astype(np.float32) * 0.3
W_X = rng.standard_normal((4, 3)).astype(np.float32) * 0.3
XS = rng.standard_normal((3, 3, 1)).astype(np.float32)      # 3 time steps

W_h, W_x = torch.tensor(W_H, requires_grad=True), torch.tensor(W_X, requires_grad=True)
h = torch.zeros(4, 1)
for x_t in torch.tensor(XS):            # a Python loop: one cell recorded per step
    h = torch.tanh(torch.mm(W_h, h) + torch.mm(W_x, x_t))
loss = h.sum()
torch.graph_of(loss, names={"W_h": W_h, "W_x": W_x})
"""),
    ("code", """
g = tf.Graph()
with g.as_default():
    W_h, W_x = tf.Variable(W_H, name="W_h"), tf.Variable(W_X, name="W_x")
    xs = tf.placeholder(tf.float32, (None, 3, 1), name="xs")
    cell = lambda h, x: tf.tanh(tf.matmul(W_h, h) + tf.matmul(W_x, x))
    _, h = tf.while_loop(lambda t, h: t < tf.shape(xs)[0],
                         lambda t, h: (t + 1, cell(h, xs[t])),
                         [tf.constant(0), tf.zeros((4, 1))])
    loss_s = tf.reduce_sum(h)
    init = tf.global_variables_initializer()
with tf.Session(graph=g) as sess:
    sess.run(init)
    print("eager", float(loss.item()), " static", float(sess.run(loss_s, {xs: XS})))
g
"""),
    ("markdown", """
The loop body is a graph of its own (a *sub-graph*); it displays on its own too:
"""),
    ("code", """
loop = next(op for op in g.get_operations() if op.type == "While")
loop.attrs["body"].graph
"""),
    ("markdown", """
## 4. A data-dependent branch

**Eager.** The data decides which ops run, so two inputs record two *different* graphs.
`diff` shows what one pass built that the other did not (red: only in A, green: only in B).
"""),
    ("code", """
from comparisons.graphdiff import diff

def branch(x):
    if x[0] > 0:          # Python decides, on the value
        return x * 2
    return x + 1

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
diff(branch(a), branch(-a))
"""),
    ("markdown", """
**Static.** A Python `if` on a tensor cannot work while the graph is being built (the tensor
has no value yet), so both branches go into the graph and `tf.cond` picks one at run time.
"""),
    ("code", """
g = tf.Graph()
with g.as_default():
    x = tf.placeholder(tf.float32, (3,), name="x")
    y = tf.cond(x[0] > 0, lambda: x * 2, lambda: x + 1)
with tf.Session(graph=g) as sess:
    print(sess.run(y, {x: [1, 2, 3]}), sess.run(y, {x: [-1, 2, 3]}))
g
"""),
    ("markdown", """
## 5. A small CNN, trained in both engines

Two conv + max-pool blocks and two dense layers, a few SGD steps on synthetic images, from
identical weights (`comparisons/cnn.py` holds the two programs). The losses agree step by step.
"""),
    ("code", """
from comparisons import cnn
eager_losses, eager_loss = cnn.eager_training(cnn.IMAGES, cnn.LABELS, steps=4)
static_losses, cnn_graph = cnn.static_training(cnn.IMAGES, cnn.LABELS, steps=4)
for step, (e, s) in enumerate(zip(eager_losses, static_losses)):
    print(f"step {step}: eager {e:.5f}   static {s:.5f}")
"""),
    ("markdown", """
The eager tape of the last step is small: one node per layer call. The static graph holds the
forward pass, the gradients and the optimizer's updates — too many nodes to read one by one,
so the picture folds each name scope into one box with its op count.
"""),
    ("code", "torch.graph_of(eager_loss)"),
    ("code", "cnn_graph"),
    ("markdown", """
## 6. One function, two bridges: tracing vs autograph

`program` doubles `x` until `x[0] >= 10`, then branches on the sign of `x[1]`.
`torch.jit.trace` *runs* it once and records the ops that ran: the loop's trip count and the
branch taken are frozen (it warns you). `tf.function` *converts* it (autograph rewrites
`while`/`if` into `while_loop`/`cond`), so the graph keeps the control flow.
"""),
    ("code", """
import warnings
from comparisons.bridges import program, EXAMPLE, OTHER

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    traced = torch.jit.trace(program, torch.tensor(EXAMPLE))
print(len(caught), "tracer warnings, e.g.:", str(caught[0].message)[:80])

converted = tf.function(program)
for v in (EXAMPLE, OTHER):
    print(v, " eager:", program(torch.tensor(v)).item(), " traced:", traced(torch.tensor(v)).item(),
          " autograph:", float(converted(np.array(v, np.float32))))
"""),
    ("markdown", "The graph autograph built keeps the loop and the branch:"),
    ("code", "converted.get_concrete_function(np.array(EXAMPLE, np.float32)).graph"),
    ("markdown", """
## 7. When does building a graph pay off?

A static engine pays up front (building, compiling) and then runs each step faster; an eager
one pays the same every step. Measured here on the counter loop, the plot shows cumulative
time against the number of runs and where the lines cross. (`python -m comparisons bench`
runs the whole suite.)
"""),
    ("code", """
from comparisons.bench.suite import ENGINES, WORKLOADS, run_suite
from comparisons.bench.timing import Budget

results = run_suite([w for w in WORKLOADS if w.name == "counter_10"],
                    [e for e in ENGINES if e.name in ("numpy", "dyngraph", "staticgraph")],
                    budget=Budget(), quick=True)
results
"""),
    ("markdown", """
## Where next

* `python -m comparisons` runs every side-by-side script; `python -m comparisons --html DIR`
  writes this material as one page for a browser.
* `README.md` explains both engines and how they differ from PyTorch and TensorFlow.
"""),
]
"""``(kind, source)``: ``"markdown"`` prose or ``"code"`` run in one shared namespace."""


def notebook() -> dict:
    """The tutorial as an nbformat 4 notebook (JSON), without outputs (they are made by running it)."""
    def lines(text: str) -> list[str]:
        return text.strip().splitlines(keepends=True)
    cells = []
    for k, (kind, source) in enumerate(CELLS):
        cell = {"cell_type": kind, "id": f"cell-{k}", "metadata": {}, "source": lines(source)}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"},
                         "language_info": {"name": "python"}}}


def write_notebook(path: Path = NOTEBOOK) -> Path:
    """Write :func:`notebook` to ``path`` (outputs stripped: git stores the source only)."""
    path.write_text(json.dumps(notebook(), indent=1, ensure_ascii=False) + "\n")
    return path


def _shown(value) -> str:
    """What Jupyter would show for a cell's value: its HTML, else its SVG, else its repr."""
    for method in ("_repr_html_", "_repr_svg_"):
        shown = getattr(value, method, None)
        shown = shown() if shown is not None else None
        if shown:
            return f'<div class="out">{shown}</div>'
    return f'<pre class="out">{html.escape(repr(value))}</pre>'


def run_cells(cells=CELLS) -> list[tuple[str, str, str]]:
    """Run the code cells in order in one namespace: ``(kind, source, output HTML)`` per cell,
    the output being what the cell printed and the rich display of its last expression."""
    namespace: dict = {"__name__": "__tutorial__"}
    out = []
    for kind, source in cells:
        if kind != "code":
            out.append((kind, source, ""))
            continue
        tree = ast.parse(source.strip())
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(tree, "<tutorial>", "exec"), namespace)
            value = eval(compile(ast.Expression(last.value), "<tutorial>", "eval"),
                         namespace) if last is not None else None
        shown = f'<pre class="out">{html.escape(printed.getvalue())}</pre>' \
            if printed.getvalue() else ""
        out.append((kind, source, shown + ("" if value is None else _shown(value))))
    return out


def _inline(text: str) -> str:
    """Markdown's inline marks the tutorial uses (``code``, **bold**, *italic*), escaped first."""
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"(?<![*\w])\*([^*]+)\*(?![*\w])", r"<em>\1</em>", text)


def markdown(text: str) -> str:
    """The little Markdown the tutorial's prose uses: headings, paragraphs, ``*`` lists."""
    blocks = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.splitlines()
        if lines[0].startswith("#"):
            level = len(lines[0]) - len(lines[0].lstrip("#"))
            blocks.append(f"<h{level}>{_inline(lines[0][level:].strip())}</h{level}>")
            lines = lines[1:]
        if lines and lines[0].startswith("* "):
            items = re.split(r"\n\* ", "\n".join(lines)[2:])
            blocks.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
        elif lines:
            blocks.append(f"<p>{_inline(' '.join(lines))}</p>")
    return "\n".join(blocks)


STYLE = """
body { font-family: system-ui, sans-serif; max-width: 760px; margin: 2em auto; padding: 0 12px;
       line-height: 1.45; color: #222; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; font-size: 12px; max-width: 100%; }
pre.out { background: #fff; border-left: 3px solid #ddd; }
.out svg { max-width: 100%; height: auto; }
.out table { border-collapse: collapse; font-size: 12px; }
.out th, .out td { border-bottom: 1px solid #ddd; padding: 2px 6px; text-align: right; }
details summary { cursor: pointer; font-weight: 600; }
code { background: #f0f0f0; padding: 0 3px; }
pre code { background: none; padding: 0; }
"""


def page(cells=None) -> str:
    """The whole tutorial, run, as one self-contained HTML page."""
    body = []
    for kind, source, shown in run_cells(CELLS if cells is None else cells):
        if kind == "markdown":
            body.append(markdown(source))
        else:
            body.append(f'<pre class="in"><code>{html.escape(source.strip())}</code></pre>{shown}')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>Static vs dynamic computation graphs</title><style>{STYLE}</style></head>"
            "<body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_html(out_dir: str) -> str:
    """Write ``out_dir/index.html`` (:func:`page`); returns its path."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "index.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(page())
    return path


def main(argv: list[str] | None = None) -> None:
    """``python -m comparisons.tutorial [DIR]``: write the page into DIR (default ``tutorial``)."""
    print(write_html((argv or ["tutorial"])[0]))


if __name__ == "__main__":
    import sys
    main(sys.argv[1:])
