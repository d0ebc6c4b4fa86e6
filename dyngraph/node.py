"""Tape nodes: what a recorded op leaves behind for ``backward``.

Each recorded op makes one :class:`Node`; a leaf tensor that requires grad gets
one :class:`AccumulateGrad`.  Edges point from a node to its inputs' nodes
(``parents``), so the graph is reachable from any output's ``grad_fn``::

    y = (x + w) * (w + 1)

    MulBackward0 --> AddBackward0 --> AccumulateGrad(x)
         |                  \\------> AccumulateGrad(w)
         \\------> AddBackward0 ----> AccumulateGrad(w)

A node's class is named after PyTorch's ``grad_fn`` class (``MulBackward0``),
so ``type(y.grad_fn).__name__`` and ``repr`` read as in PyTorch.
"""
from __future__ import annotations

import itertools
import weakref

__all__ = ["Node", "AccumulateGrad", "RemovableHandle", "node_class", "torch_node", "renamed", "next_seq",
           "POST_HOOKS", "POST_HOOKS_USED"]

POST_HOOKS: "weakref.WeakKeyDictionary[Node, list]" = weakref.WeakKeyDictionary()
"""``grad_fn.register_hook`` hooks, by node (rare: backward looks here only once one exists)."""
POST_HOOKS_USED = [False]
"""Set once the first such hook is registered: backward's per-node test is then a list read."""

next_seq = itertools.count().__next__
"""Sequence numbers: a node is always newer than its inputs' nodes (backward order)."""


class RemovableHandle:
    """Returned by every ``register_hook`` (tensors', nodes', modules'); ``remove()`` unregisters
    the hook.  It lives here, below :mod:`dyngraph.tensor`, because nodes hand it out too."""

    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks: list, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class Node:
    """A recorded op: the op, its attributes, its parents and what its gradient rules read.

    ``saved`` maps rule parameter names to inputs (Tensors), ShapeRefs or the
    output's array; ``versions`` holds ``(tensor, version)`` for saved inputs
    and ``out_vc`` the output's ``(version counter, version)``, checked before
    use so that an in-place change after recording is reported, not used.
    ``frees`` says whether backward releases ``saved``; ``hooks`` are the
    output tensor's gradient hooks and ``retained`` a weak reference to it
    when ``retain_grad()`` was called.
    """

    __slots__ = ("op", "attrs", "parents", "saved", "versions", "out_vc", "frees", "seq",
                 "hooks", "retained", "__weakref__")

    def name(self) -> str:
        """``MulBackward0``; PyTorch's hand-written C++ nodes (``CopySlices``: the only
        generated names without ``Backward``) carry their namespace."""
        n = type(self).__name__
        return n if "Backward" in n else "torch::autograd::" + n

    @property
    def next_functions(self) -> tuple:
        """``((parent_node_or_None, 0), ...)``: one entry per input the op differentiates, as
        PyTorch lists them (an index, mask or condition input has no entry; a constant or an
        input that needs no gradient has ``None``)."""
        wanted = getattr(self.op, "input_differentiable", None)
        return tuple((p, 0) for i, p in enumerate(self.parents) if wanted is None or wanted(i))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` before this node runs; may return replacement grad_outputs."""
        def run(g):
            new = hook((g,))
            return None if new is None else new[0]
        self.hooks = self.hooks or []
        self.hooks.append(run)
        return RemovableHandle(self.hooks, run)

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs)`` after this node runs; may return new grad_inputs."""
        hooks = POST_HOOKS.setdefault(self, [])
        hooks.append(hook)
        POST_HOOKS_USED[0] = True
        return RemovableHandle(hooks, hook)


_CLASSES: dict[str, type] = {}


def node_class(name: str) -> type:
    """The Node subclass called ``name`` (created once, then cached)."""
    cls = _CLASSES.get(name)
    if cls is None:
        cls = _CLASSES[name] = type(name, (Node,), {"__slots__": ()})
    return cls


def torch_node(name: str | None = None, **forms: str):
    """Declare the ``grad_fn`` name PyTorch prints for a composite eager function.

    A registry op declares its own names (``defop(torch_name=..., torch_names=...)``); a
    function made of several ops whose last node PyTorch names after the whole function
    (``mse_loss`` -> ``MseLossBackward0``) declares that name here, once, on its ``def``::

        @torch_node("MseLossBackward0")
        def mse_loss(input, target, reduction="mean"): ...  # records its last node as mse_loss.node

    ``fn.node`` is the class for ``name``; ``fn.nodes[form]`` the one for each call form
    (``@torch_node(mv="MvBackward0", dot="DotBackward0")``).  Classes are made here, at import,
    so the function pays an attribute read per call, never a name lookup.
    """
    def declare(fn):
        fn.node = None if name is None else node_class(name)
        fn.nodes = {form: node_class(n) for form, n in forms.items()}
        return fn
    return declare


def renamed(result, cls: type):
    """``result`` with its last node given class ``cls``: a composite's last node computes
    its last step and is named after the whole function, as PyTorch names it (node classes
    differ only by name).  A result with no recorded node is returned as it is."""
    fn = result.grad_fn
    if isinstance(fn, Node):
        fn.__class__ = cls
    return result


class AccumulateGrad:
    """The end of every path to a leaf: adds the arriving gradient into ``leaf.grad``.

    Holds the leaf weakly (the leaf holds this object), so no reference cycle.
    """

    __slots__ = ("_ref", "seq", "__weakref__")

    def __init__(self, leaf):
        self._ref = weakref.ref(leaf)
        self.seq = -1

    @property
    def variable(self):
        return self._ref()

    @property
    def next_functions(self) -> tuple:
        return ()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"
