"""gradient: the seeds' ``y = (x + w) * (w + 1)`` and its gradients in both engines.

Run: ``python -m comparisons.gradient [--out DIR]``.

dyngraph records three nodes while computing ``y`` and walks them in
``backward()``, then frees them; staticgraph's ``gradients()`` adds the
backward computation to the graph as ordinary nodes, run by a Session like
any others (and as often as wanted).
"""
from __future__ import annotations

import dyngraph as torch
import staticgraph as tf

from .sidebyside import (agree, columns, draw_eager, draw_static, facts, heading, parse_args,
                         recorded_summary, run_seed, show_programs)

__all__ = ["main", "SEED"]

SEED = """import torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)

a = torch.add(w, x) # a = w + x
b = torch.add(w, 1) # b = w + 1
y = torch.mul(a, b) # y = a * b

y.backward()
print(w.grad)
"""


def eager_gradient():
    w = torch.tensor([1.], requires_grad=True)
    x = torch.tensor([2.], requires_grad=True)
    a = torch.add(w, x)
    a.retain_grad()
    b = torch.add(w, 1)
    y = torch.mul(a, b)
    y.backward()
    return w, x, a, b, y


def static_gradient():
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable([1.0], name="w")
        x = tf.placeholder(tf.float32, (1,), name="x")
        a = tf.add(w, x)
        b = tf.add(w, 1.0)
        y = tf.multiply(a, b)
        forward_ops = len(g.get_operations())
        dw, dx, da = tf.gradients(y, [w, x, a])
    return g, x, y, (dw, dx, da), forward_ops


def _second_backward(y) -> str:
    try:
        y.backward()
    except RuntimeError as e:
        return f"{type(e).__name__}: {str(e).split('.')[0]}."
    return "no error"


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    heading("the tutorial's snippet with `import dyngraph as torch`")
    print(run_seed(SEED, "dyngraph", "torch"))
    heading("both engines")
    show_programs(eager_gradient, static_gradient)
    w, x, a, b, y = eager_gradient()
    g, xp, yt, (dw, dx, da), forward_ops = static_gradient()
    draw_static(args.out, "gradient_static", g, "staticgraph: y = (x + w) * (w + 1) and gradients()")
    with g.as_default():
        init = tf.global_variables_initializer()
    grad_ops = [op.name for op in g.get_operations() if op.name.startswith("gradients")]
    with tf.Session(graph=g) as sess:
        sess.run(init)
        yv, dwv, dxv, dav = sess.run([yt, dw, dx, da], {xp: [2.0]})
        again = sess.run(dw, {xp: [2.0]})
    print()
    columns([("y", y, yv), ("dy/dw", w.grad, dwv), ("dy/dx", x.grad, dxv),
             ("dy/da", f"{a.grad}  (a.retain_grad())", f"{dav}  (just another fetch)"),
             ("is_leaf w x a b y", " ".join(str(t.is_leaf) for t in (w, x, a, b, y)),
              "no such notion: every tensor is a graph edge"),
             ("grad_fn w x a b y", " ".join(_fn(t) for t in (w, x, a, b, y)),
              f"ops producing y: {yt.op.type}; inputs {[i.op.name for i in yt.op.inputs]}"),
             ("graph nodes", f"{recorded_summary(y)} recorded during the forward pass",
              f"{forward_ops} ops for the forward graph, +{len(grad_ops)} from gradients()"),
             ("run backward again", _second_backward(y), f"dy/dw = {again} (same graph, rerun)")])
    facts([f"dyngraph built its graph while computing: {recorded_summary(y)} appeared as the "
           f"ops ran, backward() consumed them and freed their saved values, so a second "
           f"backward() fails unless retain_graph=True.",
           f"staticgraph built {forward_ops} ops before any value existed; gradients() added "
           f"{len(grad_ops)} more (the backward pass as graph nodes: "
           f"{', '.join(grad_ops[:6])}{', ...' if len(grad_ops) > 6 else ''}); the Session ran "
           f"them with a fed x, and can rerun them without rebuilding.",
           "y, dy/dw, dy/dx, dy/da: the engines "
           + agree([(y, yv), (w.grad, dwv), (x.grad, dxv), (a.grad, dav)])
           + "; by hand dy/dw = b + a = 5 and dy/dx = b = 2."])
    draw_eager(args.out, "gradient_eager", y, "dyngraph: graph recorded for y = (x + w) * (w + 1)",
               {"w": w, "x": x})


def _fn(t) -> str:
    fn = t.grad_fn
    return "None" if fn is None else f"<{fn.name()}>"


if __name__ == "__main__":
    main()
