"""The tutorial notebook runs top to bottom in a real Jupyter kernel, and is kept without outputs.

The kernel is this interpreter (``sys.executable``), named by a kernel spec written into a
temporary directory for this test only: nothing is registered globally, and a ``python3``
kernel a user installed elsewhere cannot be picked up instead of the project's venv.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "static_vs_dynamic.ipynb"
KERNEL = "dyngraph-staticgraph-test"


def _kernel_manager(tmp_path: Path) -> KernelManager:
    """A kernel manager whose only kernel spec runs ``sys.executable -m ipykernel_launcher``."""
    spec_dir = tmp_path / "kernels" / KERNEL
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "project venv", "language": "python"}))
    specs = KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")], ensure_native_kernel=False)
    return KernelManager(kernel_name=KERNEL, kernel_spec_manager=specs)


def test_the_notebook_runs_top_to_bottom_in_a_kernel_and_draws_its_graphs(tmp_path, monkeypatch):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # the kernel imports this checkout's packages (also where the editable install is another's)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT),
                                                                   os.environ.get("PYTHONPATH")])))
    started = time.perf_counter()
    client = NotebookClient(nb, km=_kernel_manager(tmp_path), timeout=120,
                            resources={"metadata": {"path": str(ROOT)}})
    client.execute()               # raises CellExecutionError on the first failing cell
    took = time.perf_counter() - started
    assert took < 60, f"the notebook took {took:.0f} s (it must run within a minute)"
    shown = [set(o.get("data", {})) for c in nb.cells if c.cell_type == "code" for o in c.outputs
             if o.output_type in ("display_data", "execute_result")]
    assert sum("image/svg+xml" in s for s in shown) >= 8      # Graphs and tapes drawn inline
    assert sum("text/html" in s for s in shown) >= 3          # explain, the diff, the results
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
