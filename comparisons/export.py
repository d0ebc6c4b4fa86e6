"""export: one model to ONNX from both engines -- the trace freezes its path, the static graph keeps it.

Run: ``python -m comparisons.export [--out DIR]`` (needs the ``[onnx]`` extra).

The model is :func:`comparisons.bridges.program`: double ``x`` until
``x[0] >= 10`` (a data-dependent loop), then branch on the sign of ``x[1]``.

* ``dyngraph.onnx.export`` traces one eager pass, as ``torch.onnx.export``
  does: the loop is unrolled to the trips the example took and the branch is
  the one it took (the trace warns, in PyTorch's words);
* ``staticgraph.interop.onnx.export`` of the same function under ``tf.function``
  (autograph made the loop a ``while_loop`` and the branch a ``cond``) writes
  ONNX ``Loop`` and ``If`` nodes.

Both models then run in onnxruntime on the example and on an input that needs
another trip count and the other branch.
"""
from __future__ import annotations

import collections
import os
import tempfile
import warnings

import numpy as np

import dyngraph as torch
import staticgraph as tf

from .bridges import EXAMPLE, OTHER, program
from .sidebyside import columns, facts, heading, parse_args

__all__ = ["main", "export_both"]


def export_both(out_dir: str) -> tuple[str, str, list[str]]:
    """Write ``program`` as ONNX from each engine; returns both paths and the trace's warnings."""
    import staticgraph.interop.onnx as sg_onnx
    eager_path = os.path.join(out_dir, "program_dyngraph.onnx")
    static_path = os.path.join(out_dir, "program_staticgraph.onnx")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.onnx.export(program, (torch.tensor(EXAMPLE),), eager_path)
    cf = tf.function(program).get_concrete_function(np.array(EXAMPLE, np.float32))
    model = sg_onnx.to_model(None, cf.outputs, cf.inputs, graph=cf.graph, input_names=["x"],
                             output_names=["output"])
    import onnx
    onnx.save(model, static_path)
    return eager_path, static_path, [f"{w.category.__name__}: {w.message}" for w in caught]


def _ops(path: str) -> collections.Counter:
    import onnx
    return collections.Counter(n.op_type for n in onnx.load(path).graph.node)


def _run(path: str, v) -> float:
    import onnxruntime as ort
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return float(sess.run(None, {sess.get_inputs()[0].name: np.array(v, np.float32)})[0])


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        print("needs onnx and onnxruntime: pip install -e '.[onnx]'")
        return
    out_dir = args.out or tempfile.mkdtemp(prefix="onnx_export_")
    os.makedirs(out_dir, exist_ok=True)
    eager_path, static_path, warned = export_both(out_dir)
    heading("the ONNX models")
    e_ops, s_ops = _ops(eager_path), _ops(static_path)
    fmt = lambda c: ", ".join(f"{k} x{v}" if v > 1 else k for k, v in sorted(c.items()))  # noqa: E731
    columns([("file", eager_path, static_path), ("ONNX nodes", fmt(e_ops), fmt(s_ops))],
            left="dyngraph.onnx.export (trace)", right="staticgraph.interop.onnx.export (tf.function)")
    heading("onnxruntime vs running the Python function eagerly")
    rows, right = [], {}
    for v in (EXAMPLE, OTHER):
        want = program(torch.tensor(v)).item()
        got_e, got_s = _run(eager_path, v), _run(static_path, v)
        right[tuple(v)] = (np.isclose(got_e, want, rtol=1e-5), np.isclose(got_s, want, rtol=1e-5))
        rows.append((f"x = {v} (eager: {want:.6g})", f"{got_e:.6g}  {'RIGHT' if right[tuple(v)][0] else 'WRONG'}",
                     f"{got_s:.6g}  {'RIGHT' if right[tuple(v)][1] else 'WRONG'}"))
    columns(rows, left="traced model in onnxruntime", right="static model in onnxruntime")
    ok_e, ok_s = right[tuple(OTHER)]
    facts([f"The traced export has {sum(e_ops.values())} ONNX nodes and no Loop or If: the "
           f"example's {e_ops.get('Mul', 0)} multiplications were recorded in a straight line, "
           f"so for x = {OTHER} (more doublings, the other branch) onnxruntime computes "
           f"{'the right' if ok_e else 'a WRONG'} answer. The trace said so only as "
           f"{len(warned)} warning(s): {warned[0] if warned else '(none)'}",
           f"The static export keeps the control flow: {s_ops.get('Loop', 0)} Loop and "
           f"{s_ops.get('If', 0)} If node(s) ({sum(s_ops.values())} top-level nodes), and is "
           f"{'RIGHT' if ok_s else 'WRONG'} for both inputs in onnxruntime."])


if __name__ == "__main__":
    main()
