"""``tf.GradientTape`` in graph mode: a window of graph construction that ``gradient`` may
differentiate through.

Eager TF records each executed op on the tape; in a ``compat.v1`` graph the same class records
which *ops were created* while the tape was active, and ``tape.gradient(y, x)`` adds symbolic
gradient nodes -- exactly ``tf.gradients`` -- restricted to paths through those ops:

    with tf.GradientTape() as tape:         ops created here are "on the tape"
        tape.watch(x)                       a tensor source must be watched ...
        y = x * x * v                       ... a trainable variable read here is, by itself
    dx, dv = tape.gradient(y, [x, v])       gradients() over recorded ops only

So a value computed before the ``with`` (or under ``tape.stop_recording()``) is a constant to
the tape, an unwatched source gets ``None``, and a tape nested in another (or a gradient taken
inside a persistent tape) records the inner gradient's ops for a second derivative.

>>> x = tf.constant(3.0)
>>> with tf.GradientTape() as tape:
...     tape.watch(x)
...     y = x * x
>>> dy = tape.gradient(y, x)            # a Tensor; sess.run(dy) == 6.0
"""
from __future__ import annotations

import contextlib
from typing import Any

from ..framework.build import convert_to_tensor
from ..framework.graph import Operation, Tensor, get_default_graph
from ..util.nest import flatten, pack_sequence_as
from ..ops.core_ops import reshape, stack, zeros, zeros_like
from .gradients import UnconnectedGradients, gradients

__all__ = ["GradientTape"]


class GradientTape:
    """Records the ops built inside ``with GradientTape() as tape:`` for ``tape.gradient``.

    ``persistent``: allow more than one ``gradient``/``jacobian`` call (TF's rule: a
    non-persistent tape answers once).  ``watch_accessed_variables``: trainable variables read
    while recording are sources by themselves (else only what ``watch`` names).
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._graph = None
        self._ranges: list[list[int]] = []   # [first op index, end index) of each recording
        self._watched: list[Any] = []          # tensors and variables named by watch()
        self._used = False
        self._recording = False

    # --- recording --------------------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter "
                             "an already-active tape.")
        self._push()
        return self

    def __exit__(self, *exc) -> None:
        if self._recording:
            self._pop()

    def _push(self) -> None:
        graph = get_default_graph()
        if self._graph is None:
            self._graph = graph
        self._ranges.append([len(graph._ops), None])
        self._recording = True

    def _pop(self) -> None:
        self._ranges[-1][1] = len(self._graph._ops)
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops built in this block are not on the tape (constants to ``gradient``)."""
        if not self._recording:
            raise ValueError("Tape must be recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    @contextlib.contextmanager
    def _recording_here(self):
        """Record the ops of this block even when the tape is not recording."""
        if self._recording:
            yield
            return
        self._push()
        try:
            yield
        finally:
            self._pop()

    def reset(self) -> None:
        """Forget everything recorded and watched (recording goes on if it was on)."""
        recording = self._recording
        self._ranges, self._watched = [], []
        if recording:
            self._push()

    def watch(self, tensor) -> None:
        """Make ``tensor`` (a tensor, a variable, or a nested structure of them) a source."""
        for t in flatten(tensor):
            if not isinstance(t, Tensor) and getattr(t, "handle", None) is None:
                t = convert_to_tensor(t)
            self._watched.append(t)

    def watched_variables(self) -> tuple:
        """The variables this tape watches: named by ``watch`` or read while recording."""
        found = [w for w in self._watched if not isinstance(w, Tensor)]
        if self._watch_accessed_variables:
            known = {id(w.handle) for w in found}
            for var in self._accessed_variables(self._recorded_ops()):
                if id(var.handle) not in known:
                    known.add(id(var.handle))
                    found.append(var)
        return tuple(found)

    def _accessed_variables(self, recorded: set) -> list:
        """Trainable variables a recorded op reads, in creation order of the reads."""
        if self._graph is None:
            return []
        home = self._graph   # in a loop body or branch: the variables are the outer graph's
        while getattr(home, "outer", None) is not None:
            home = home.outer
        by_handle = {id(v.handle): v for name in ("variables", "local_variables")
                     for v in home.get_collection(name)}
        found = []
        for op in sorted(recorded, key=lambda o: o.index):
            if op.type == "ReadVariableOp":
                var = by_handle.get(id(_outer_tensor(op.inputs[0])))
                if var is not None and var.trainable and var not in found:
                    found.append(var)
        return found

    # --- differentiating --------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of ``target``)/d ``sources`` through the recorded ops; ``sources``' structure
        is kept, an unwatched or unconnected source gets ``None`` (or zeros)."""
        self._claim()
        flat_sources = flatten(sources)
        targets = [convert_to_tensor(t) for t in flatten(target)]
        grads = self._gradients(targets, flat_sources, output_gradients, unconnected_gradients)
        return pack_sequence_as(sources, grads)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target[i...] / d source[j...]: shape ``target.shape + source.shape``; one gradient
        per element of ``target`` (whose size must be known when the graph is built)."""
        self._claim()
        target = convert_to_tensor(target)
        n = target.shape.num_elements()
        if n is None:
            raise ValueError(f"GradientTape.jacobian in graph mode needs the target's size "
                             f"known when the graph is built; {target.name} has shape "
                             f"{target.shape}")
        flat_sources = flatten(sources)
        with self._recording_here():   # the per-element slices are on the tape (as in TF)
            rows = reshape(target, [-1])
            elements = [rows[i] for i in range(n)]
        per_element = [self._gradients([e], flat_sources, None, UnconnectedGradients.NONE)
                       for e in elements]
        zero = getattr(unconnected_gradients, "value", unconnected_gradients) == "zero"
        out = []
        for k, s in enumerate(flat_sources):
            src = s if isinstance(s, Tensor) else convert_to_tensor(s)
            column = [g[k] for g in per_element]
            if all(g is None for g in column) and not zero:
                out.append(None)
                continue
            column = [zeros_like(src) if g is None else g for g in column]
            shape = target.shape.as_list() + src.shape.as_list()
            out.append(reshape(stack(column), shape) if column else zeros(shape, src.dtype))
        return pack_sequence_as(sources, out)

    def _claim(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError(f"A non-persistent GradientTape can only be used to compute one "
                               f"set of gradients (or jacobians)")
        self._used = True

    def _gradients(self, targets: list, sources: list, output_gradients, unconnected) -> list:
        """``tf.gradients`` with every tensor the recorded ops read from outside the tape as a
        stop (so nothing flows past the tape's edge), and only watched sources asked for."""
        recorded = self._recorded_ops()
        watched = self._watched_keys(recorded)
        asked, positions = [], []
        for k, s in enumerate(sources):
            key = s.handle if getattr(s, "handle", None) is not None else s
            if id(key) in watched:
                asked.append(s)
                positions.append(k)
        grads: list = [None] * len(sources)
        on_tape = [t for t in targets if t.op in recorded or id(t) in watched]
        if asked and on_tape:
            stops = set()
            for op in recorded:   # the tape's edge: what recorded ops read from outside it
                for t in op.inputs:
                    if t.op not in recorded and id(t) not in watched and not _read_of(t, watched):
                        stops.add(t)
            for s in asked:       # a watched tensor made outside the tape starts a path there
                if isinstance(s, Tensor) and s.op not in recorded:
                    stops.update(s.op.inputs)
            out_grads = None
            if output_gradients is not None:
                out_grads = [g for t, g in zip(targets, flatten(output_gradients))
                             if t in on_tape]
            found = gradients(on_tape, asked, grad_ys=out_grads, name="gradient_tape",
                              stop_gradients=list(stops))
            for k, g in zip(positions, found):
                grads[k] = g
        if getattr(unconnected, "value", unconnected) == UnconnectedGradients.ZERO.value:
            grads = [zeros_like(s if isinstance(s, Tensor) else convert_to_tensor(s))
                     if g is None else g for s, g in zip(sources, grads)]
        return grads

    def _recorded_ops(self) -> set[Operation]:
        if self._graph is None:
            return set()
        ops, end_now = self._graph._ops, len(self._graph._ops)
        return {op for start, end in self._ranges for op in ops[start:end_now if end is None else end]}

    def _watched_keys(self, recorded: set) -> set[int]:
        """ids of the watched tensors and variable handles."""
        keys = {id(w if isinstance(w, Tensor) else w.handle) for w in self._watched}
        if self._watch_accessed_variables:
            keys.update(id(v.handle) for v in self._accessed_variables(recorded))
        return keys


def _outer_tensor(t: Tensor) -> Tensor:
    """The tensor of the outermost graph that ``t`` stands for (``t`` itself, or the tensor a
    loop body's or branch's capture placeholder -- maybe several levels deep -- receives)."""
    while t in getattr(t.op.graph, "captured_from", ()):
        t = t.op.graph.captured_from[t]
    return t


def _read_of(t: Tensor, watched: set[int]) -> bool:
    """Is ``t`` a read of a watched variable (made before recording, e.g. a cached read)?"""
    return t.op.type == "ReadVariableOp" and id(t.op.inputs[0]) in watched

