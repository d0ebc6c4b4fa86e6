"""``tf.custom_gradient`` and ``tf.identity_n`` in graph mode, as TF builds them.

TF's graph-mode ``custom_gradient`` is three ordinary pieces, and so is ours::

    y, grad_fn = f(x)                                  the forward, built as usual
    RegisterGradient("CustomGradient-<n>")(g)          g calls the user's grad_fn
    with gradient_override_map({"IdentityN": ...}):    one IdentityN node over (y, x, vars):
        y', x', v' = identity_n([y, x, v])             its gradient gives x and v grad_fn's
    return y'                                          answer, and y's own inputs nothing

so ``tf.gradients`` reaches ``x`` only through ``grad_fn`` (f's inner ops get no gradient).
Variables ``f`` reads are found with a :class:`GradientTape` (as TF does) and get the
gradients ``grad_fn(..., variables=...)`` returns for them.

>>> @tf.custom_gradient
... def log1pexp(x):
...     e = tf.exp(x)
...     return tf.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))
"""
from __future__ import annotations

import functools
import inspect
import itertools
from typing import Callable

from ..framework.build import convert_to_tensor
from ..framework.graph import Operation, get_default_graph
from ..framework.kinds import defkind
from ..util.nest import flatten, map_structure, pack_sequence_as
from .gradient_tape import GradientTape
from .gradients import RegisterGradient, gradients
from ..ops.core_ops import identity

__all__ = ["custom_gradient", "identity_n", "recompute_grad"]

_uid = itertools.count(1)


def _identity(x):
    return x


def _identity_n(*xs):
    return xs


def _identity_n_grad(op: Operation, out_grads: list, wanted: list[bool]) -> list:
    return list(out_grads)


defkind("IdentityN", lambda op, ctx: _identity if len(op.outputs) == 1 else _identity_n,
        gradient=_identity_n_grad)


def identity_n(input, name=None) -> list:  # noqa: A002  (TF's argument name)
    """Each tensor of ``input`` passed through one node (one gradient function for them all)."""
    tensors = [convert_to_tensor(t) for t in input]
    op = get_default_graph().create_op("IdentityN", tensors, {},
                                       [(t._shape, t.np_dtype) for t in tensors],
                                       name=name or "IdentityN")
    return list(op.outputs)


def custom_gradient(f: Callable | None = None):
    """Decorate ``f(*x) -> (y, grad_fn)``: ``y`` as ``f`` computes it, d y / d x as
    ``grad_fn(*dy)`` says (``grad_fn(*dy, variables=vs) -> (dx, dvs)`` if ``f`` reads
    variables)."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")
        args = [map_structure(convert_to_tensor, a) for a in args]   # each may be a structure
        flat_args = flatten(args)
        with GradientTape() as tape:           # which variables does f read?
            result, grad_fn = f(*args)
        variables = list(tape.watched_variables())
        if variables and "variables" not in inspect.signature(grad_fn).parameters and not any(
                p.kind is p.VAR_KEYWORD for p in inspect.signature(grad_fn).parameters.values()):
            raise TypeError(f"@tf.custom_gradient grad_fn must accept keyword argument "
                            f"'variables', since function uses variables: {variables}")
        flat_result = [convert_to_tensor(r) for r in flatten(result)]
        name = f"CustomGradient-{next(_uid)}"

        @RegisterGradient(name)
        def _grad(op, *result_grads):
            result_grads = result_grads[:len(flat_result)]
            if variables:
                input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
                if len(variable_grads) != len(variables):
                    raise ValueError("Must return gradient for each variable from "
                                     "@custom_gradient grad_fn.")
            else:
                input_grads, variable_grads = grad_fn(*result_grads), []
            input_grads = flatten(input_grads)
            if len(input_grads) != len(flat_args):
                raise ValueError(f"custom_gradient function expected to return {len(flat_args)} "
                                 f"gradients, but returned {len(input_grads)} instead.")
            return [None] * len(flat_result) + input_grads + list(variable_grads)

        with get_default_graph().gradient_override_map({"IdentityN": name}):
            outs = identity_n(flat_result + flat_args + [convert_to_tensor(v) for v in variables])
        return pack_sequence_as(result, outs[:len(flat_result)])

    return decorated


def recompute_grad(f: Callable) -> Callable:
    """``tf.recompute_grad``: ``f``'s values, with a gradient that builds ``f`` again from its
    inputs and differentiates that copy.  TF's memory trade: the backward pass does not
    read the forward's intermediates, so a plan needs not keep them (the copy runs after the
    incoming gradient is known, as TF orders it).  ``f`` may read variables."""
    @functools.wraps(f)
    def inner(*args, **kwargs):
        @custom_gradient
        def call(*xs):
            def grad_fn(*dresult, variables=None):
                with get_default_graph().control_dependencies(
                        [d for d in dresult if d is not None]):
                    again_xs = [identity(x) for x in xs]
                    again = flatten(f(*again_xs, **kwargs))
                sources = again_xs + list(variables or [])
                grads = gradients(again, sources, grad_ys=list(dresult))
                return grads[:len(xs)], grads[len(xs):]
            return f(*xs, **kwargs), grad_fn
        return call(*args)
    return inner
