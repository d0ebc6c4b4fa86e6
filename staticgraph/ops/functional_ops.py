"""``tf.map_fn``, ``tf.scan``, ``tf.foldl``, ``tf.foldr``: one ``while_loop`` over the first axis.

Each unstacks its ``elems`` into TensorArrays (read by the loop counter), runs ``fn`` in
the loop body, and -- for map_fn and scan -- writes every step's result into an output
TensorArray that is stacked afterwards.  Gradients come from the loop's and the
TensorArray ops' own rules::

    map_fn(fn, elems)            [fn(elems[0]), fn(elems[1]), ...]
    scan(fn, elems, init)        [a1, a2, ...]  with a_k = fn(a_{k-1}, elems[k])
    foldl(fn, elems, init)       a_n            (foldr: from the last element down)

``elems`` may be a (nested) tuple/list/dict of tensors sharing their first dimension.

>>> import staticgraph as tf
>>> tf.map_fn(lambda x: x * 2.0, tf.constant([1.0, 2.0])).shape.as_list()
[2]
"""
from __future__ import annotations

from typing import Any, Callable

from ..framework.build import convert_to_tensor
from ..control.control_flow import while_loop
from ..framework.graph import Tensor, name_scope
from ..util.nest import flatten, pack_sequence_as, structure_error
from .tensor_array import TensorArray
from .array_ops import shape
from .core_ops import gather_index

__all__ = ["map_fn", "scan", "foldl", "foldr"]


def _elems(elems: Any) -> tuple[list[Tensor], Any, int | Tensor]:
    """Flat element tensors, and the number of steps (static when known)."""
    flat = [convert_to_tensor(e) for e in flatten(elems)]
    if not flat:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors. Got []")
    for t in flat:
        if t.ndim == 0:
            raise ValueError(f"Elements in elems must be 1+ dimensional Tensors, not scalars: {t}")
    n = flat[0]._shape[0] if flat[0]._shape is not None else None
    if n is None:
        n = gather_index(shape(flat[0]), 0)
    return flat, elems, n


def _tas(flat: list[Tensor], n) -> list[TensorArray]:
    size = n if isinstance(n, int) else None
    return [TensorArray(t.dtype, size=size, dynamic_size=size is None).unstack(t) for t in flat]


def _outputs(structure: Any, n, dtypes: list) -> list[TensorArray]:
    size = n if isinstance(n, int) else None
    return [TensorArray(d, size=size, dynamic_size=size is None) for d in dtypes]


def map_fn(fn: Callable, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """``fn`` applied to each slice of ``elems`` along the first axis; the results stacked."""
    with name_scope(name, "map"):
        flat, structure, n = _elems(elems)
        in_tas = _tas(flat, n)
        signature = fn_output_signature if fn_output_signature is not None else dtype
        out_structure = structure if signature is None else signature
        out_dtypes = [t.dtype for t in flat] if signature is None else \
            [getattr(s, "dtype", s) for s in flatten(signature)]
        out_tas = _outputs(out_structure, n, out_dtypes)

        def body(i, *tas):
            x = pack_sequence_as(structure, [ta.read(i) for ta in in_tas])
            result = fn(x)
            y = [convert_to_tensor(v) for v in flatten(result)]
            if len(y) != len(tas) or structure_error(out_structure, result):   # TF's words, then ours
                raise (ValueError if len(y) != len(tas) else TypeError)(
                    f"{structure_error(out_structure, result)}\n\n(fn returned {len(y)} tensors "
                    f"where {len(tas)} were expected: pass dtype= or fn_output_signature= when fn "
                    f"changes the structure)")
            return (i + 1, *[ta.write(i, v) for ta, v in zip(tas, y)])

        results = while_loop(lambda i, *_: i < n, body, [0, *out_tas], back_prop=back_prop,
                             return_same_structure=True)
        return pack_sequence_as(out_structure, [ta.stack() for ta in results[1:]])


def scan(fn: Callable, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The running accumulation ``a_k = fn(a_{k-1}, elems[k])`` stacked (``a_0``: initializer,
    or the first element, which then starts the output)."""
    with name_scope(name, "scan"):
        flat, structure, n = _elems(elems)
        in_tas = _tas(flat, n)
        start, acc, out_tas, limit = _fold_start(flat, structure, initializer, in_tas, n, reverse)
        if initializer is None:
            first = 0 if not reverse else n - 1
            out_tas = [ta.write(first, a) for ta, a in zip(out_tas, acc)]
        k = len(acc)

        def body(i, *state):
            a, tas = list(state[:k]), list(state[k:])
            x = pack_sequence_as(structure, [ta.read(i) for ta in in_tas])
            a = [convert_to_tensor(v) for v in flatten(fn(pack_sequence_as(_acc_structure(initializer, structure), a), x))]
            return (i - 1 if reverse else i + 1, *a, *[ta.write(i, v) for ta, v in zip(tas, a)])

        results = while_loop(limit, body, [start, *acc, *out_tas], back_prop=back_prop,
                             return_same_structure=True)
        return pack_sequence_as(_acc_structure(initializer, structure), [ta.stack() for ta in results[1 + k:]])


def _acc_structure(initializer, structure):
    return structure if initializer is None else initializer


def _fold_start(flat, structure, initializer, in_tas, n, reverse):
    """The loop's first index, the accumulator, output TensorArrays and the loop condition."""
    if initializer is None:
        acc = [ta.read(n - 1 if reverse else 0) for ta in in_tas]
        start = (n - 2) if reverse else 1
    else:
        acc = [convert_to_tensor(v) for v in flatten(initializer)]
        start = (n - 1) if reverse else 0
    out_tas = _outputs(None, n, [a.dtype for a in acc])
    limit = (lambda i, *_: i >= 0) if reverse else (lambda i, *_: i < n)
    return start, acc, out_tas, limit


def _fold(fn, elems, initializer, back_prop, name, default, reverse):
    with name_scope(name, default):
        flat, structure, n = _elems(elems)
        in_tas = _tas(flat, n)
        start, acc, _, limit = _fold_start(flat, structure, initializer, in_tas, n, reverse)
        acc_structure = _acc_structure(initializer, structure)
        k = len(acc)

        def body(i, *a):
            x = pack_sequence_as(structure, [ta.read(i) for ta in in_tas])
            a = [convert_to_tensor(v) for v in flatten(fn(pack_sequence_as(acc_structure, list(a)), x))]
            return (i - 1 if reverse else i + 1, *a)

        results = while_loop(limit, body, [start, *acc], back_prop=back_prop,
                             return_same_structure=True)
        return pack_sequence_as(acc_structure, list(results[1:1 + k]))


def foldl(fn: Callable, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``fn(...fn(fn(init, e0), e1)..., e_last)``."""
    return _fold(fn, elems, initializer, back_prop, name, "foldl", reverse=False)


def foldr(fn: Callable, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``fn(...fn(fn(init, e_last), e_last-1)..., e0)``."""
    return _fold(fn, elems, initializer, back_prop, name, "foldr", reverse=True)
