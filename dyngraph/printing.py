"""``repr(tensor)`` exactly as PyTorch prints it; the recorded tape as text (:func:`format_tape`).

Follows the layout rules of PyTorch's ``torch/_tensor_str.py`` (BSD licence):
one formatter per tensor decides the element style from all (finite, non-zero)
values -- integers-as-floats (``20.``), fixed with 4 decimals (``0.5000``) or
scientific (``1.0000e-05``) -- and the common width; rows wrap at 80
columns, tensors over 1000 elements are summarized with ``...``; suffixes
(``dtype=``, ``requires_grad=True``, ``grad_fn=<...>``) follow the values.

>>> import dyngraph as torch
>>> torch.tensor([[1., 2.], [3., 4.5]])
tensor([[1.0000, 2.0000],
        [3.0000, 4.5000]])
"""
from __future__ import annotations

import math

import numpy as np

from .dtypes import get_default_dtype

__all__ = ["tensor_repr", "PRINT_OPTS", "set_printoptions", "format_tape"]


class _Options:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _Options()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     sci_mode=None) -> None:
    for name, value in [("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)]:
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    """Picks one style and width for all elements of a tensor."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            self.max_width = max((len(_plain_str(v)) for v in flat.tolist()), default=1)
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        mags = np.abs(finite)
        lo, hi = mags.min(), mags.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
                         if PRINT_OPTS.sci_mode is None else PRINT_OPTS.sci_mode)
        p = PRINT_OPTS.precision
        if self.sci_mode:
            strs = [f"{v:.{p}e}" for v in finite.tolist()]
        elif self.int_mode:
            strs = [f"{v:.0f}." for v in finite.tolist()]
        else:
            strs = [f"{v:.{p}f}" for v in finite.tolist()]
        self.max_width = max(len(s) for s in strs)

    def format(self, value) -> str:
        if self.floating:
            p = PRINT_OPTS.precision
            if self.sci_mode:
                s = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                s = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
            else:
                s = f"{value:.{p}f}"
        else:
            s = _plain_str(value)
        return (self.max_width - len(s)) * " " + s


class _ComplexFormatter:
    """A complex tensor's two formatters, as PyTorch's: one for the real parts, one for the
    imaginary parts (each picks its own style), joined as ``1.0000+2.0000j``."""

    def __init__(self, values: np.ndarray):
        self.real, self.imag = _Formatter(values.real), _Formatter(values.imag)
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, value) -> str:
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return self.real.format(value.real) + (imag if imag[0] in "+-" else "+" + imag)


def _formatter(values: np.ndarray):
    return _ComplexFormatter(values) if values.dtype.kind == "c" else _Formatter(values)


def _plain_str(v) -> str:
    return str(v)


def _summarized(a: np.ndarray) -> np.ndarray:
    """The values that will be shown (edges only) so the formatter looks at just those."""
    e = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:e], a[-e:]]) if len(a) > 2 * e else a
    rows = list(a[:e]) + list(a[-e:]) if len(a) > 2 * e else list(a)
    return np.stack([_summarized(r) for r in rows])


def _vector(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / (fmt.max_width + 2)))
    e = PRINT_OPTS.edgeitems
    if summarize and len(a) > 2 * e:
        data = ([fmt.format(v) for v in a[:e].tolist()] + [" ..."]
                + [fmt.format(v) for v in a[-e:].tolist()])
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _body(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    e = PRINT_OPTS.edgeitems
    if summarize and len(a) > 2 * e:
        rows = ([_body(a[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."]
                + [_body(a[i], indent + 1, summarize, fmt) for i in range(len(a) - e, len(a))])
    else:
        rows = [_body(r, indent + 1, summarize, fmt) for r in a]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            parts.append(", " + s)
            last += len(s) + 2
    return "".join(parts) + ")"


_INT64, _BOOL = np.dtype(np.int64), np.dtype(np.bool_)


def tensor_repr(t, prefix: str = "tensor(") -> str:
    a = t._data
    indent = len(prefix)
    suffixes = []
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        if a.dtype != get_default_dtype().np:
            suffixes.append(f"dtype={t.dtype}")
        body = "[]"
    else:
        summarize = a.size > PRINT_OPTS.threshold
        default = get_default_dtype()   # repr leaves out it, its complex, int64 and bool
        if a.dtype not in (default.np, _INT64, _BOOL) and not (
                a.dtype.kind == "c" and a.dtype.itemsize == 2 * default.itemsize):
            suffixes.append(f"dtype={t.dtype}")
        fmt = _formatter(_summarized(a) if summarize else a)
        body = _body(a, indent, summarize, fmt)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t._rg:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, indent)


def _snake(name: str) -> str:
    """``MatMul`` -> ``mat_mul``, ``RealDiv`` -> ``real_div``: torch.fx's node-name style."""
    out = []
    for k, c in enumerate(name):
        if c.isupper() and k and not name[k - 1].isupper():
            out.append("_")
        out.append(c.lower())
    return "".join(out)


def format_tape(g) -> str:
    """A :func:`dyngraph.graph_of` export in torch.fx's text form.

    Leaves first (placeholders, named by ``graph_of(..., names=)`` or ``leaf``,
    ``leaf_1``...), then one ``call_function`` per recorded op in recording
    order, its arguments the nodes feeding each input position (``_`` for an
    input that needs no gradient), then ``return`` of the output's node.
    """
    if not g.number_of_nodes():
        return "graph():\n    return None"
    order = sorted(g.nodes, key=lambda n: (g.nodes[n]["seq"] >= 0, g.nodes[n]["seq"], n))
    fx: dict[str, str] = {}
    used: dict[str, int] = {}
    for n in order:
        d = g.nodes[n]
        base = (d.get("name") or "leaf") if d["op"] == "AccumulateGrad" else _snake(d["op"])
        k = used.get(base, 0)
        used[base] = k + 1
        fx[n] = base if k == 0 else f"{base}_{k}"
    lines = ["graph():"]
    for n in order:
        d = g.nodes[n]
        users = g.out_degree(n) + (n == g.graph["output"])   # ``return`` uses the output
        head = f"    %{fx[n]} : [num_users={users}] = "
        if d["op"] == "AccumulateGrad":
            lines.append(f"{head}placeholder[target={fx[n]}]  # AccumulateGrad {d['leaf_type']}")
            continue
        args = ["_"] * d["arity"]
        for src, _, e in g.in_edges(n, data=True):
            for i in e["inputs"]:
                args[i] = f"%{fx[src]}"
        text = "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"
        lines.append(f"{head}call_function[target={d['op']}](args = {text}, kwargs = {{}})"
                     f"  # {d['label']}")
    lines.append(f"    return {fx[g.graph['output']]}")
    return "\n".join(lines)
