"""``import staticgraph`` stays cheap: the optional heavy libraries load only when used.

networkx (``tf.to_networkx``), onnx (``staticgraph.interop.onnx``), dask (``staticgraph.client.distributed``),
matplotlib and rich (the comparisons' pictures and tables) cost tens of milliseconds
each; a user who only builds and runs graphs never pays for them.
"""
from __future__ import annotations

import subprocess
import sys

OPTIONAL = ("networkx", "onnx", "dask", "matplotlib", "rich", "tqdm", "tensorboard")


def test_import_staticgraph_loads_no_optional_library():
    code = ("import sys, staticgraph; "
            f"print(','.join(m for m in {OPTIONAL!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_to_networkx_still_imports_it_when_called():
    import staticgraph as tf
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape=(2,), name="x")
        tf.add(x, x, name="y")
    nxg = tf.to_networkx(g)
    assert sorted(nxg.nodes) == ["x", "y"] and nxg.number_of_edges() == 2
