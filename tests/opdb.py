"""dyngraph against PyTorch's own operator database (``op_db``), sample by sample.

PyTorch describes its operators in
``torch.testing._internal.common_methods_invocations.op_db``: ~700 ``OpInfo`` entries whose
``sample_inputs`` cover broadcasting, 0-d and empty tensors, keyword arguments and edge values.
This module runs those samples through dyngraph, as a new user would call it, and compares
with what torch answered::

    torch (peers venv)                           dyngraph (any venv)
    op_db -> samples -> outputs, gradients  -->  fixture (npz + json)  -->  replay, classify
                 \\________________ live: the same records, compared at once _______/

Each sample is classified (:data:`FORWARD_CLASSES`): the output agrees (rtol 1e-4, atol 1e-5),
has a wrong value, shape or dtype, dyngraph raises where torch answers (or the reverse), both
raise (same or other exception type), or the name is missing. Then the first-order gradients of
a fixed weighted sum of the float outputs, with respect to every float input that requires
grad, are compared the same way.

Commands (torch importable, e.g. ``/work/peers/bin/python``; ``expecttest`` is needed by
torch's test package)::

    python -m tests.opdb             # live: compare, print the coverage table
    python -m tests.opdb --record    # ... and rewrite the fixture, known-agreeing list, table

``tests/test_opdb.py`` replays the fixture without torch (CI): the agreeing set never shrinks.
"""
from __future__ import annotations

import argparse
import builtins
import contextlib
import inspect
import itertools
import json
import math
import signal
import sys
import warnings
from pathlib import Path
from typing import Any, Iterator

import numpy as np

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE_JSON = FIXTURES / "opdb.json"
FIXTURE_NPZ = FIXTURES / "opdb.npz"
COVERAGE_MD = FIXTURES / "opdb_coverage.md"
README = Path(__file__).parent.parent / "README.md"
README_START, README_END = "<!-- opdb-coverage -->", "<!-- /opdb-coverage -->"

RTOL, ATOL = 1e-4, 1e-5
MAX_SAMPLES = 8        # the first samples of each OpInfo per dtype
MAX_ELEMENTS = 4096    # a sample whose inputs and outputs hold more elements is left out
DTYPES = ("float32", "float64")
RECORDED_DTYPES = ("float32", "float64")   # what the fixture keeps (both are small)
NAMESPACES = ("nn.functional", "linalg", "fft", "special")

#: OpInfos not run, each with its reason.
SKIP_PREFIXES = {
    "sparse": "sparse layouts: dyngraph has dense CPU tensors only",
    "to_sparse": "sparse layouts: dyngraph has dense CPU tensors only",
    "_refs": "torch's Python references, not user API",
    "cuda": "CUDA-only",
}
#: Ops whose result is random or uninitialised memory: torch's and dyngraph's streams differ.
RANDOM_OPS = {
    "bernoulli", "multinomial", "normal", "uniform", "rand_like", "randn_like", "randint_like",
    "randint", "randn", "rand", "empty", "empty_like", "empty_strided", "empty_permuted",
    "new_empty", "new_empty_strided", "nn.functional.dropout", "nn.functional.dropout2d",
    "nn.functional.dropout3d", "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
    "nn.functional.rrelu", "nn.functional.gumbel_softmax", "cauchy", "exponential", "geometric",
    "log_normal", "randperm", "nn.functional.multi_head_attention_forward",
    "torch._scaled_mm",
}

#: OpInfos whose ``op`` is a wrapper reordering torch's arguments: the same wrapper around the
#: dyngraph callable (``call``, as a new user reaches the name).
MIRRORED = {
    "where": lambda call, self, condition, other, **kw: call(condition, self, other, **kw),
    "polygamma": lambda call, x, n, **kw: call(n, x, **kw),
    "special.polygamma": lambda call, x, n, **kw: call(n, x, **kw),
    "einsum": lambda call, tensors, equation: call(equation, tensors),
    "nn.functional.embedding": lambda call, weight, idx, **kw: call(idx, weight, **kw),
    "zero_": lambda call, x: call(x.clone()),
    "nn.functional.embedding_bag": lambda call, weight, idx, **kw: call(idx, weight, **kw),
    # torch's ``wrapper_set_seed``: seed 42 on the default generator (dyngraph's draws the
    # same stream), so the pooling windows and dropout masks come from the same draws
    "nn.functional.fractional_max_pool2d": lambda call, *a, **kw: _seeded(call, *a, **kw),
    "nn.functional.fractional_max_pool3d": lambda call, *a, **kw: _seeded(call, *a, **kw),
    "nn.functional.scaled_dot_product_attention": lambda call, *a, **kw: _seeded(call, *a, **kw),
    # variants whose ``op`` wraps the name (keyed ``name.variant``)
    "linalg.lstsq.grad_oriented": lambda call, a, b, driver: call(a, b, driver=driver)[:2],
    "linalg.pinv.singular": lambda call, a, b: call(a @ b.mT),
}


def _seeded(call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call`` after ``manual_seed(42)``, the generator's state restored afterwards."""
    import dyngraph
    state = dyngraph.get_rng_state()
    dyngraph.manual_seed(42)
    try:
        return call(*args, **kwargs)
    finally:
        dyngraph.set_rng_state(state)

FORWARD_CLASSES = ("agree", "both raise", "wrong value", "wrong shape", "wrong dtype",
                   "wrong type", "dyngraph raises", "dyngraph answers", "both raise (other type)",
                   "missing name")
FORWARD_AGREE = ("agree", "both raise")
GRAD_CLASSES = ("agree", "wrong value", "wrong shape", "dyngraph raises", "no gradient",
                "torch raises")


class Unrecordable(Exception):
    """A sample holds a value the fixture cannot carry (complex, a Generator, a callable...)."""


# ---------------------------------------------------------------------------------------------
# torch side: samples -> records (only this part imports torch)
# ---------------------------------------------------------------------------------------------

def skip_reason(op: Any) -> str | None:
    """Why an OpInfo is not run, or None."""
    for prefix, reason in SKIP_PREFIXES.items():
        if op.name.startswith(prefix):
            return reason
    if op.name in RANDOM_OPS:
        return "random or uninitialised output: the two random streams differ"
    return None


class _Encoder:
    """torch values -> JSON trees; tensors go to ``arrays`` under keys ``a<n>``."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.arrays = arrays
        self.memo: dict[int, str] = {}

    def __call__(self, v: Any) -> Any:
        import torch
        if isinstance(v, torch.Tensor):
            if id(v) in self.memo:
                return {"t": self.memo[id(v)], "rg": bool(v.requires_grad)}
            if v.layout != torch.strided or v.dtype in (torch.bfloat16, torch.complex32):
                raise Unrecordable(f"tensor {v.dtype} {v.layout}")
            key = f"a{len(self.arrays)}"
            self.arrays[key] = v.detach().numpy(force=True).copy()
            self.memo[id(v)] = key
            return {"t": key, "rg": bool(v.requires_grad)}
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else {"float": repr(v)}
        if isinstance(v, torch.Size):
            return {"size": list(v)}
        if isinstance(v, torch.dtype):
            return {"dtype": str(v).split(".")[-1]}
        if isinstance(v, torch.memory_format):
            return {"memory_format": str(v).split(".")[-1]}
        if isinstance(v, torch.layout):
            return {"layout": str(v).split(".")[-1]}
        if isinstance(v, torch.device):
            return {"device": str(v)}
        if v is Ellipsis:
            return {"ellipsis": True}
        if isinstance(v, slice):
            return {"slice": [self(v.start), self(v.stop), self(v.step)]}
        if isinstance(v, list):
            return {"list": [self(x) for x in v]}
        if isinstance(v, tuple):
            return {"tuple": [self(x) for x in v]}
        if isinstance(v, dict) and all(isinstance(k, str) for k in v):
            return {"dict": {k: self(x) for k, x in v.items()}}
        raise Unrecordable(type(v).__name__)


def _flat(v: Any) -> list[Any]:
    """Leaves of nested tuples/lists, in order (torch's and dyngraph's outputs alike)."""
    if isinstance(v, (tuple, list)):
        return [leaf for x in v for leaf in _flat(x)]
    return [v]


def _as_real(lib: Any, t: Any) -> Any:
    """A complex output as real (real, imag) pairs (``view_as_real``): the loss weighs both
    parts, so its gradient checks the complex convention; a real output as it is."""
    return lib.view_as_real(t.resolve_conj()) if t.is_complex() else t


def weights(shape: tuple[int, ...], k: int) -> np.ndarray:
    """The fixed weights of output ``k`` in the summed loss (no two entries alike)."""
    n = int(np.prod(shape, dtype=np.int64))
    return np.cos(np.arange(n) * 0.37 + k).reshape(shape)


def _elements(tree: Any, arrays: dict[str, np.ndarray]) -> int:
    keys = set(_keys(tree))
    return sum(arrays[k].size for k in keys)


def _keys(tree: Any) -> Iterator[str]:
    if isinstance(tree, dict):
        if "t" in tree:
            yield tree["t"]
        else:
            for v in tree.values():
                yield from _keys(v)
    elif isinstance(tree, list):
        for v in tree:
            yield from _keys(v)


def record_sample(op: Any, sample: Any, arrays: dict[str, np.ndarray]) -> dict:
    """Run one sample through torch; return its record (inputs, outputs, gradients)."""
    import torch
    enc = _Encoder(arrays)
    rec: dict[str, Any] = {"input": enc(sample.input), "args": enc(tuple(sample.args)),
                           "kwargs": enc(dict(sample.kwargs))}
    leaves = [t for t in _flat([sample.input, list(sample.args), list(sample.kwargs.values())])
              if isinstance(t, torch.Tensor) and t.requires_grad and t.is_leaf]
    leaves = list({id(t): t for t in leaves}.values())
    try:
        out = op(sample.input, *sample.args, **sample.kwargs)
    except Exception as e:  # torch refuses: recorded, dyngraph should refuse too
        rec["raises"] = [type(e).__name__, str(e).splitlines()[0][:200] if str(e) else ""]
        return rec
    rec["output"] = _Encoder(arrays)(out)
    flat = _flat(out)
    diff = [i for i, o in enumerate(flat) if isinstance(o, torch.Tensor) and o.requires_grad
            and (o.is_floating_point() or o.is_complex())]
    if not diff or not leaves:
        return rec
    rec["grad_outputs"] = diff
    rec["leaves"] = [enc.memo[id(t)] for t in leaves]
    try:
        loss = sum((_as_real(torch, flat[i]) * torch.as_tensor(
            weights(tuple(_as_real(torch, flat[i]).shape), k),
            dtype=_as_real(torch, flat[i]).dtype)).sum() for k, i in enumerate(diff))
        grads = torch.autograd.grad(loss, leaves, allow_unused=True)
    except Exception as e:
        rec["grad_raises"] = [type(e).__name__, str(e).splitlines()[0][:200] if str(e) else ""]
        return rec
    enc_g = _Encoder(arrays)
    rec["grads"] = [None if g is None else enc_g(g) for g in grads]
    return rec


def record_op(op: Any, dtype_name: str, arrays: dict[str, np.ndarray]) -> dict:
    """The records of an OpInfo's first samples at one dtype (or why there are none)."""
    import torch
    dtype = getattr(torch, dtype_name)
    entry: dict[str, Any] = {"name": op.name, "variant": op.variant_test_name,
                             "dtype": dtype_name, "samples": []}
    reason = skip_reason(op)
    if reason is None and dtype not in op.supported_dtypes("cpu"):
        reason = f"torch does not support {dtype_name} on CPU for this op"
    if reason:
        entry["skip"] = reason
        return entry
    try:
        with torch.random.fork_rng():
            torch.manual_seed(0)
            samples = list(itertools.islice(
                op.sample_inputs("cpu", dtype, requires_grad=op.supports_autograd), MAX_SAMPLES))
    except Exception as e:
        entry["skip"] = f"torch's sample generator fails: {type(e).__name__}"
        return entry
    for i, sample in enumerate(samples):
        local: dict[str, np.ndarray] = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rec = record_sample(op, sample, local)
        except Unrecordable as e:
            entry["samples"].append({"index": i, "skip": f"not recordable: {e}"})
            continue
        except Exception as e:  # torch's own side failed outside the op call
            entry["samples"].append({"index": i, "skip": f"torch fails: {type(e).__name__}"})
            continue
        if _elements([rec], local) > MAX_ELEMENTS:
            entry["samples"].append({"index": i, "skip": "giant sample"})
            continue
        renamed = {k: f"a{len(arrays) + n}" for n, k in enumerate(sorted(local))}
        arrays.update({renamed[k]: v for k, v in local.items()})
        rec = json.loads(json.dumps(rec), object_hook=lambda d: _rename(d, renamed))
        rec["index"] = i
        entry["samples"].append(rec)
    return entry


def _rename(d: dict, renamed: dict[str, str]) -> dict:
    if "t" in d and isinstance(d["t"], str):
        d["t"] = renamed[d["t"]]
    if "leaves" in d:
        d["leaves"] = [renamed[k] for k in d["leaves"]]
    return d


def record_all(dtypes: tuple[str, ...] = DTYPES, only: list[str] | None = None
               ) -> tuple[list[dict], dict[str, np.ndarray]]:
    """Every OpInfo (or those named in ``only``) at every dtype: the entries and the arrays
    their records point to."""
    from torch.testing._internal.common_methods_invocations import op_db
    arrays: dict[str, np.ndarray] = {}
    entries = [record_op(op, d, arrays) for d in dtypes for op in op_db
               if not only or op.name in only]
    return entries, arrays


# ---------------------------------------------------------------------------------------------
# dyngraph side: records -> classes (no torch here)
# ---------------------------------------------------------------------------------------------

def resolve(name: str) -> tuple[str, Any] | None:
    """How a new user reaches ``name`` in dyngraph: ('function', f), ('method', name),
    ('attribute', name) -- or None when it is missing."""
    import dyngraph
    head, _, last = name.rpartition(".")
    if head:
        obj: Any = dyngraph
        for part in head.split("."):
            obj = getattr(obj, part, None)
        f = getattr(obj, last, None)
        return ("function", f) if callable(f) else None
    f = getattr(dyngraph, name, None)
    if callable(f) and not isinstance(f, type):
        return ("function", f)
    static = inspect.getattr_static(dyngraph.Tensor, name, None)
    if isinstance(static, property):
        return ("attribute", name)
    if static is not None:
        return ("method", name)
    return None


class _Decoder:
    """JSON trees -> dyngraph values; the same array key gives the same tensor."""

    def __init__(self, arrays: Any) -> None:
        self.arrays = arrays
        self.memo: dict[str, Any] = {}

    def __call__(self, v: Any) -> Any:
        import dyngraph
        if isinstance(v, dict):
            if "t" in v:
                key = v["t"]
                if key not in self.memo:
                    self.memo[key] = dyngraph.tensor(np.array(self.arrays[key]),
                                                     requires_grad=v["rg"])
                return self.memo[key]
            (kind, x), = v.items()
            if kind == "float":
                return float(x)
            if kind == "size":
                return dyngraph.Size(x)
            if kind in ("dtype", "memory_format", "layout"):
                return getattr(dyngraph, x, _Missing(f"torch.{x}"))
            if kind == "device":
                return dyngraph.device(x)
            if kind == "ellipsis":
                return Ellipsis
            if kind == "slice":
                return slice(*(self(y) for y in x))
            if kind == "list":
                return [self(y) for y in x]
            if kind == "tuple":
                return tuple(self(y) for y in x)
            if kind == "dict":
                return {k: self(y) for k, y in x.items()}
        return v


class _Missing:
    """Stands for a torch object dyngraph does not have (say ``torch.channels_last``)."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __repr__(self) -> str:
        return f"<missing {self.what}>"


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """Stop a dyngraph call that runs away (main thread only; elsewhere no limit)."""
    def handler(signum: int, frame: Any) -> None:
        raise _Timeout(f"more than {seconds} s")
    try:
        old = signal.signal(signal.SIGALRM, handler)
    except ValueError:
        yield
        return
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _same_exception(e: BaseException, torch_type: str) -> bool:
    """dyngraph's exception is torch's type (by class, for builtins; by name otherwise)."""
    expected = getattr(builtins, torch_type, None)
    if isinstance(expected, type) and issubclass(expected, BaseException):
        return isinstance(e, expected)
    return torch_type in {c.__name__ for c in type(e).__mro__}


def _compare_value(ref: Any, got: Any, arrays: Any) -> str:
    """One output tree against dyngraph's: a :data:`FORWARD_CLASSES` entry."""
    import dyngraph
    if isinstance(ref, dict) and "t" in ref:
        if not isinstance(got, dyngraph.Tensor):
            return "wrong type"
        want = arrays[ref["t"]]
        have = got.detach().numpy()
        if tuple(have.shape) != tuple(want.shape):
            return "wrong shape"
        if have.dtype != want.dtype:
            return "wrong dtype"
        return "agree" if _close(have, want) else "wrong value"
    if isinstance(ref, dict) and len(ref) == 1 and next(iter(ref)) in ("tuple", "list"):
        items = next(iter(ref.values()))
        if not isinstance(got, (tuple, list)) or len(got) != len(items):
            return "wrong type"
        for r, g in zip(items, got):
            c = _compare_value(r, g, arrays)
            if c != "agree":
                return c
        return "agree"
    if isinstance(ref, dict) and "size" in ref:
        return "agree" if isinstance(got, tuple) and list(got) == ref["size"] else "wrong value"
    if isinstance(ref, dict) and "float" in ref:
        ref = float(ref["float"])
    if isinstance(ref, dict) and "dtype" in ref:
        return "agree" if str(got) == f"torch.{ref['dtype']}" else "wrong value"
    if isinstance(ref, (bool, int, float)):
        if isinstance(got, dyngraph.Tensor) or not isinstance(got, (bool, int, float)):
            return "wrong type"
        return "agree" if _close(np.asarray(got), np.asarray(ref)) else "wrong value"
    return "agree" if got == ref else "wrong value"


def _close(have: np.ndarray, want: np.ndarray) -> bool:
    if want.dtype.kind in "biu" or have.dtype.kind in "biu":
        return bool(np.array_equal(have, want))
    wide = np.complex128 if "c" in (have.dtype.kind, want.dtype.kind) else np.float64
    return bool(np.allclose(have.astype(wide), want.astype(wide),
                            rtol=RTOL, atol=ATOL, equal_nan=True))


def _call(name: str, how: tuple[str, Any], inp: Any, args: tuple, kwargs: dict) -> Any:
    if name in MIRRORED:
        return MIRRORED[name](lambda *a, **k: _plain_call(how, a[0], a[1:], k), inp, *args,
                              **kwargs)
    return _plain_call(how, inp, args, kwargs)


def _plain_call(how: tuple[str, Any], inp: Any, args: tuple, kwargs: dict) -> Any:
    kind, target = how
    if kind == "function":
        return target(inp, *args, **kwargs)
    if kind == "attribute":
        return getattr(inp, target)
    return getattr(inp, target)(*args, **kwargs)


def replay_sample(name: str, rec: dict, arrays: Any,
                  variant: str = "") -> tuple[str, str | None]:
    """(forward class, gradient class or None) of one recorded sample, through dyngraph."""
    import dyngraph
    how = resolve(name)
    if how is None:
        return "missing name", None
    dec = _Decoder(arrays)
    inp, args, kwargs = dec(rec["input"]), dec(rec["args"]), dec(rec["kwargs"])
    try:
        with warnings.catch_warnings(), _time_limit(20):
            warnings.simplefilter("ignore")
            out = _call(f"{name}.{variant}" if f"{name}.{variant}" in MIRRORED else name,
                        how, inp, args, kwargs)
    except Exception as e:
        if "raises" not in rec:
            return "dyngraph raises", None
        return ("both raise" if _same_exception(e, rec["raises"][0])
                else "both raise (other type)"), None
    if "raises" in rec:
        return "dyngraph answers", None
    forward = _compare_value(rec["output"], out, arrays)
    if "grad_outputs" not in rec:
        return forward, None
    if "grad_raises" in rec:
        return forward, "torch raises"
    return forward, _replay_grad(rec, out, dec, dyngraph)


def _replay_grad(rec: dict, out: Any, dec: _Decoder, dyngraph: Any) -> str:
    flat = _flat(out)
    leaves = [dec.memo[k] for k in rec["leaves"]]
    try:
        terms = []
        for k, i in enumerate(rec["grad_outputs"]):
            o = flat[i] if i < len(flat) else None
            if not isinstance(o, dyngraph.Tensor) or not o.requires_grad:
                return "no gradient"
            o = _as_real(dyngraph, o)
            w = dyngraph.tensor(weights(tuple(o.shape), k).astype(o.detach().numpy().dtype))
            terms.append((o * w).sum())
        loss = terms[0]
        for t in terms[1:]:
            loss = loss + t
        for leaf in leaves:
            leaf.grad = None
        with warnings.catch_warnings(), _time_limit(20):
            warnings.simplefilter("ignore")
            loss.backward()
    except Exception:
        return "dyngraph raises"
    for leaf, ref in zip(leaves, rec["grads"]):
        want = np.zeros(leaf.shape, arrays_dtype(leaf)) if ref is None else dec.arrays[ref["t"]]
        have = (np.zeros(want.shape, want.dtype) if leaf.grad is None
                else leaf.grad.detach().numpy())
        if tuple(have.shape) != tuple(want.shape):
            return "wrong shape"
        if not _close(have, want):
            return "wrong value"
    return "agree"


def arrays_dtype(t: Any) -> np.dtype:
    return t.detach().numpy().dtype


def sample_id(entry: dict, rec: dict) -> str:
    """``dtype:name[.variant]#index`` -- the key of the known-agreeing list."""
    variant = f".{entry['variant']}" if entry["variant"] else ""
    return f"{entry['dtype']}:{entry['name']}{variant}#{rec['index']}"


def replay(entries: list[dict], arrays: Any) -> dict[str, tuple[str, str | None]]:
    """Every recorded sample's classes, by :func:`sample_id`."""
    results: dict[str, tuple[str, str | None]] = {}
    for entry in entries:
        for rec in entry.get("samples", ()):
            if "skip" not in rec:
                results[sample_id(entry, rec)] = replay_sample(entry["name"], rec, arrays, entry["variant"])
    return results


def agreeing(results: dict[str, tuple[str, str | None]]) -> list[str]:
    """Samples whose forward agrees (or both refuse alike) and whose gradient, if any, agrees."""
    return sorted(k for k, (f, g) in results.items()
                  if f in FORWARD_AGREE and g in (None, "agree"))


# ---------------------------------------------------------------------------------------------
# coverage table
# ---------------------------------------------------------------------------------------------

def namespace_of(name: str) -> str:
    for ns in NAMESPACES:
        if name.startswith(ns + "."):
            return ns
    return "torch / Tensor"


def coverage(entries: list[dict], results: dict[str, tuple[str, str | None]]) -> str:
    """The README table: names present, forward and gradient samples agreeing, per namespace."""
    rows = []
    for dtype in DTYPES:
        groups: dict[str, dict[str, Any]] = {}
        for entry in (e for e in entries if e["dtype"] == dtype):
            g = groups.setdefault(namespace_of(entry["name"]),
                                  {"names": set(), "present": set(), "fwd": [0, 0], "grad": [0, 0]})
            g["names"].add(entry["name"])
            if resolve(entry["name"]) is None:
                continue
            g["present"].add(entry["name"])
            for rec in entry.get("samples", ()):
                res = results.get(sample_id(entry, rec))
                if res is None:
                    continue
                g["fwd"][0] += res[0] in FORWARD_AGREE
                g["fwd"][1] += 1
                if res[1] is not None:
                    g["grad"][0] += res[1] == "agree"
                    g["grad"][1] += 1
        total = {"names": set(), "present": set(), "fwd": [0, 0], "grad": [0, 0]}
        for ns in sorted(groups, key=lambda n: (n != "torch / Tensor", n)):
            g = groups[ns]
            rows.append(_row(dtype, ns, g))
            for k in ("names", "present"):
                total[k] |= g[k]
            for k in ("fwd", "grad"):
                total[k] = [a + b for a, b in zip(total[k], g[k])]
        rows.append(_row(dtype, "**all**", total))
    head = ("| dtype | namespace | names present | forward samples agreeing "
            "| gradient samples agreeing |\n|---|---|---|---|---|\n")
    return head + "\n".join(rows) + "\n"


def _row(dtype: str, ns: str, g: dict) -> str:
    def frac(a: int, b: int) -> str:
        return f"{a} / {b} ({100 * a / b:.0f}%)" if b else "-"
    return (f"| {dtype} | {ns} | {len(g['present'])} / {len(g['names'])} | "
            f"{frac(*g['fwd'])} | {frac(*g['grad'])} |")


def summary(results: dict[str, tuple[str, str | None]]) -> str:
    """Counts of each class, forward and gradient, per dtype."""
    lines = []
    for dtype in DTYPES:
        fwd: dict[str, int] = {}
        grad: dict[str, int] = {}
        for k, (f, g) in results.items():
            if k.startswith(dtype + ":"):
                fwd[f] = fwd.get(f, 0) + 1
                if g is not None:
                    grad[g] = grad.get(g, 0) + 1
        lines.append(f"{dtype} forward: {dict(sorted(fwd.items(), key=lambda x: -x[1]))}")
        lines.append(f"{dtype} gradient: {dict(sorted(grad.items(), key=lambda x: -x[1]))}")
    return "\n".join(lines)


def load_fixture() -> tuple[dict, Any]:
    """The recorded entries (json) and their arrays (npz)."""
    with open(FIXTURE_JSON) as f:
        doc = json.load(f)
    return doc, unpack(np.load(FIXTURE_NPZ), doc["layout"])


def pack(arrays: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, list]]:
    """The arrays as one flat buffer per dtype, and where each lies: ``{key: [dtype, offset,
    shape]}``.  Tens of thousands of small arrays, one zip member each, cost more in member
    headers than in data (the fixture took 12.8 MB that way, 2.5 MB packed)."""
    by_dtype: dict[str, list[np.ndarray]] = {}
    layout: dict[str, list] = {}
    sizes: dict[str, int] = {}
    for k in sorted(arrays):
        a = np.asarray(arrays[k])
        dt = a.dtype.str
        layout[k] = [dt, sizes.get(dt, 0), list(a.shape)]
        sizes[dt] = sizes.get(dt, 0) + a.size
        by_dtype.setdefault(dt, []).append(a.ravel())
    return {dt: np.concatenate(parts) for dt, parts in by_dtype.items()}, layout


def unpack(packed: Any, layout: dict[str, list]) -> dict[str, np.ndarray]:
    """:func:`pack`'s inverse: each key's array, a view of its dtype's buffer."""
    flat = {dt: packed[dt] for dt in {v[0] for v in layout.values()}}
    return {k: flat[dt][off:off + math.prod(shape)].reshape(shape)
            for k, (dt, off, shape) in layout.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.opdb", description=__doc__.split("\n")[0])
    p.add_argument("--record", action="store_true",
                   help="rewrite tests/fixtures/opdb.{json,npz} and opdb_coverage.md")
    p.add_argument("--replay", action="store_true", help="use the fixture, not torch")
    p.add_argument("--only", nargs="*", help="op names to run")
    p.add_argument("--show", action="store_true", help="print every disagreeing sample")
    a = p.parse_args(argv)
    if a.replay:
        doc, arrays = load_fixture()
        entries = doc["entries"]
    else:
        entries, arrays = record_all(DTYPES, None if a.record else a.only)
    if a.only:
        entries = [e for e in entries if e["name"] in a.only]
    results = replay(entries, arrays)
    if a.show:
        for k, (f, g) in sorted(results.items()):
            if f != "missing name" and (f not in FORWARD_AGREE or g not in (None, "agree")):
                print(f"{k}: forward {f}, gradient {g}")
    table = coverage(entries, results)
    print(table)
    print(summary(results))
    if a.record:
        _write(entries, arrays, results, table)
    return 0


def _write(entries: list[dict], arrays: dict[str, np.ndarray],
           results: dict[str, tuple[str, str | None]], table: str) -> None:
    """The fixture keeps the present names' samples (the others only their name)."""
    kept = []
    for e in entries:
        if e["dtype"] not in RECORDED_DTYPES or resolve(e["name"]) is None:
            e = {k: v for k, v in e.items() if k != "samples"}
        kept.append(e)
    used = sorted({k for e in kept for k in _keys(e.get("samples", []))}
                  | {k for e in kept for r in e.get("samples", []) for k in r.get("leaves", [])})
    packed, layout = pack({k: arrays[k] for k in used})
    np.savez_compressed(FIXTURE_NPZ, **packed)
    with open(FIXTURE_JSON, "w") as f:
        json.dump({"entries": kept, "known_agreeing": agreeing(results), "layout": layout}, f,
                  separators=(",", ":"))
    COVERAGE_MD.write_text(table)
    readme = README.read_text()
    head, rest = readme.split(README_START, 1)
    README.write_text(head + README_START + "\n" + table + rest[rest.index(README_END):])


if __name__ == "__main__":
    sys.exit(main())
