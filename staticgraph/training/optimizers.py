"""``tf.train`` optimizers, with TF 1.x's update formulas exactly.

``minimize`` = ``compute_gradients`` (graph nodes from ``tf.gradients``) +
``apply_gradients`` (assign nodes, grouped into one op to run each step)::

    GradientDescent:  var -= lr * g
    Momentum:         accum = momentum * accum + g
                      var -= lr * accum                    (nesterov: lr * (g + momentum * accum))
    Adam:             lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
                      m = beta1 * m + (1 - beta1) * g
                      v = beta2 * v + (1 - beta2) * g^2
                      var -= lr_t * m / (sqrt(v) + epsilon)   (TF's "epsilon hat")
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..ops import core_ops as ops
from ..framework.build import convert_to_tensor
from ..framework.indexed_slices import IndexedSlices
from ..ops.array_ops import scatter_nd
from ..control.gradients import gradients
from ..control.gradient_tape import GradientTape
from ..framework.graph import (Operation, Tensor, control_dependencies, creation_site, get_default_graph,
                               name_scope, pinned_site)
from .learning_rate_decay import (cosine_decay, exponential_decay, inverse_time_decay,
                                  natural_exp_decay, piecewise_constant, polynomial_decay)
from .saver import (CheckpointState, NewCheckpointReader, Saver, SaverDef, checkpoint_exists,
                    get_checkpoint_state, export_meta_graph, import_meta_graph, latest_checkpoint, list_variables,
                    load_checkpoint, load_variable)
from .moving_averages import ExponentialMovingAverage
from .graph_io import write_graph
from ..framework.sources import group
from .variables import Variable, trainable_variables

__all__ = ["Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
           "RMSPropOptimizer", "AdagradOptimizer", "AdadeltaOptimizer", "get_or_create_global_step", "get_global_step",
           "Saver", "import_meta_graph", "export_meta_graph", "latest_checkpoint", "list_variables", "load_variable",
           "get_checkpoint_state", "checkpoint_exists", "CheckpointState", "NewCheckpointReader",
           "load_checkpoint", "SaverDef",
           "exponential_decay", "inverse_time_decay", "piecewise_constant", "polynomial_decay",
           "natural_exp_decay", "cosine_decay", "ExponentialMovingAverage", "write_graph"]


class Optimizer:
    """Base: gradients -> per-variable update ops (``_apply_dense``) -> one grouped op."""

    def __init__(self, use_locking: bool = False, name: str = "Optimizer"):
        self._name = name
        self._slots: dict[tuple[str, str], Variable] = {}

    def compute_gradients(self, loss, var_list=None, colocate_gradients_with_ops: bool = False,
                          **_) -> list[tuple[Tensor | None, Variable]]:
        if callable(loss):
            # TF1's: a callable loss is built on a tape; without a var_list, the
            # variables it reads are the ones optimized (the tape's watched variables)
            with GradientTape() as tape:
                if var_list is not None:
                    tape.watch(var_list)
                loss = loss()
            if var_list is None:
                var_list = tape.watched_variables()
        var_list = list(var_list) if var_list is not None else trainable_variables()
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, var_list, colocate_gradients_with_ops=colocate_gradients_with_ops)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name: str | None = None) -> Operation:
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError(f"No gradients provided for any variable, check your graph for ops "
                             f"that do not support gradients, between variables "
                             f"{[v.name for _, v in grads_and_vars]} and loss.")
        # Every node below is made on behalf of the caller's one line: find it once, not per
        # node (a subclass written by the user makes its nodes in its own lines: not pinned).
        own = type(self).__module__ == __name__
        with pinned_site(creation_site() if own else None):
            return self._apply_gradients(pairs, global_step, name)

    def _apply_gradients(self, pairs, global_step, name: str | None) -> Operation:
        self._prepare(pairs)             # TF: non-slot variables in the caller's name scope
        with name_scope(name or self._name) as scope:
            updates = []
            for g, v in pairs:           # TF: each update (and its slots) where its variable is
                with get_default_graph().colocate_with(v.op):
                    updates.append(self._apply_sparse(g, v) if isinstance(g, IndexedSlices)
                                   else self._apply_dense(g, v))
            with control_dependencies(updates):   # TF: the returned op is named as the scope
                finish = self._finish(updates, "update" if global_step is not None else scope)
            if global_step is not None:
                with control_dependencies([finish]):
                    finish = global_step.assign_add(1, name=scope).op
            train_ops = get_default_graph().get_collection_ref("train_op")   # as TF1 does
            if finish not in train_ops:
                train_ops.append(finish)
            return finish

    def minimize(self, loss, global_step=None, var_list=None, name: str | None = None,
                 colocate_gradients_with_ops: bool = False, **_) -> Operation:
        return self.apply_gradients(self.compute_gradients(loss, var_list, colocate_gradients_with_ops),
                                    global_step, name)

    # --- what subclasses fill in -------------------------------------------------------
    def _prepare(self, pairs) -> None:
        """Create slots and hyper-parameter tensors once per apply."""

    def _apply_dense(self, g: Tensor, v: Variable) -> Tensor:
        raise NotImplementedError

    def _apply_sparse(self, g: IndexedSlices, v: Variable) -> Tensor:
        """A sparse gradient (rows of ``v``; repeated rows add up, as TF's
        ``_apply_sparse_duplicate_indices``).  Where the update of an untouched row is a
        no-op (GradientDescent, Adam: TF1's sparse Adam decays every row's moments), the
        dense update of the summed rows is the same step."""
        return self._apply_dense(self._densify(g, v), v)

    @staticmethod
    def _densify(g: IndexedSlices, v: Variable) -> Tensor:
        """The dense gradient of ``v``: the rows of ``g`` added at their indices."""
        return scatter_nd(ops.expand_dims(g.indices, -1), g.values, v.shape.as_list())

    def _finish(self, updates, name: str) -> Operation:
        return group(*updates, name=name)

    def _slot(self, v: Variable, key: str, init: float = 0.0) -> Variable:
        """The slot ``key`` (TF's slot name: ``"m"``, ``"rms"``...) of ``v``, filled with ``init``.

        As TF names it: ``<var>/<optimizer name>``, made unique (``w/Adam``, ``w/Adam_1``)."""
        slot = (v.op.name, key)
        if slot not in self._slots:
            with get_default_graph().name_scope(v.op.name + "/"):
                value = np.full(v.shape.as_list(), init, dtype=v.dtype.as_numpy_dtype)
                self._slots[slot] = Variable(value, trainable=False, name=self._name)
        return self._slots[slot]

    def get_name(self) -> str:
        return self._name

    def variables(self) -> list[Variable]:
        """The slot and extra variables this optimizer made in the default graph, by name."""
        graph = get_default_graph()
        made = [*self._non_slot_variables(), *self._slots.values()]
        return sorted((v for v in made if v.graph is graph), key=lambda v: v.name)

    def _non_slot_variables(self) -> list[Variable]:
        """Variables that are not slots (Adam's beta powers)."""
        return []

    def get_slot_names(self) -> list[str]:
        return sorted({k for _, k in self._slots})

    def get_slot(self, var: Variable, name: str) -> Variable | None:
        return self._slots.get((var.op.name, name))

    @staticmethod
    def _hyper(value: Any, v: Variable) -> Any:
        """A hyper-parameter in the variable's dtype (Python numbers stay weak scalars).

        A callable is called first, once per apply, as TF1's ``_call_if_callable``."""
        if callable(value):
            value = value()
        if isinstance(value, (Tensor, Variable)):
            t = convert_to_tensor(value)
            return t if t.dtype == v.dtype.base_dtype else ops.cast(t, v.dtype.base_dtype)
        return value


class GradientDescentOptimizer(Optimizer):
    def __init__(self, learning_rate, use_locking: bool = False, name: str = "GradientDescent"):
        super().__init__(use_locking, name)
        self._lr = learning_rate

    def _apply_dense(self, g, v):
        return v.assign_sub(ops.multiply(g, self._hyper(self._lr, v)))


class MomentumOptimizer(Optimizer):
    def __init__(self, learning_rate, momentum, use_locking: bool = False, name: str = "Momentum",
                 use_nesterov: bool = False):
        super().__init__(use_locking, name)
        self._lr, self._momentum, self._nesterov = learning_rate, momentum, use_nesterov

    def _apply_dense(self, g, v):
        lr, mu = self._hyper(self._lr, v), self._hyper(self._momentum, v)
        acc = self._slot(v, "momentum")
        new_acc = acc.assign(ops.add(ops.multiply(acc, mu), g))
        step = ops.add(g, ops.multiply(new_acc, mu)) if self._nesterov else new_acc
        return v.assign_sub(ops.multiply(step, lr))

    def _apply_sparse(self, g, v):
        """TF's SparseApplyMomentum: only the rows of ``g`` decay their accumulator and move."""
        lr, mu = self._hyper(self._lr, v), self._hyper(self._momentum, v)
        dense = self._densify(g, v)
        touched = ops.greater(self._densify(IndexedSlices(ops.ones_like(g.values), g.indices), v),
                              0)
        acc = self._slot(v, "momentum")
        new_acc = acc.assign(ops.where(touched, ops.add(ops.multiply(acc, mu), dense), acc))
        step = ops.add(dense, ops.multiply(new_acc, mu)) if self._nesterov else new_acc
        return v.assign_sub(ops.where(touched, ops.multiply(step, lr), ops.zeros_like(step)))


class AdamOptimizer(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking: bool = False, name: str = "Adam"):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._eps = learning_rate, beta1, beta2, epsilon
        self._powers: tuple[Variable, Variable] | None = None

    def _prepare(self, pairs):
        # TF1's _call_if_callable: the hyper-parameters may be callables, called per apply
        self._b1_t, self._b2_t, self._eps_t = (h() if callable(h) else h
                                               for h in (self._beta1, self._beta2, self._eps))
        if self._powers is None:
            first = min((v for _, v in pairs), key=lambda v: v.op.name)
            dtype = first.dtype
            self._powers = (Variable(np.array(self._b1_t, dtype.as_numpy_dtype), trainable=False, name="beta1_power"),
                            Variable(np.array(self._b2_t, dtype.as_numpy_dtype), trainable=False, name="beta2_power"))

    def _apply_dense(self, g, v):
        b1p, b2p = (convert_to_tensor(p) for p in self._powers)
        b1, b2 = self._b1_t, self._b2_t
        lr_t = ops.multiply(self._hyper(self._lr, v),
                            ops.truediv(ops.sqrt(ops.subtract(1.0, b2p)), ops.subtract(1.0, b1p)))
        m, s = self._slot(v, "m"), self._slot(v, "v")
        m_t = m.assign(ops.add(ops.multiply(m, b1), ops.multiply(g, 1 - b1)))
        v_t = s.assign(ops.add(ops.multiply(s, b2), ops.multiply(ops.square(g), 1 - b2)))
        step = ops.truediv(ops.multiply(lr_t, m_t), ops.add(ops.sqrt(v_t), self._eps_t))
        return v.assign_sub(step)

    def _non_slot_variables(self) -> list[Variable]:
        return list(self._powers or ())

    def _get_beta_accumulators(self) -> tuple[Variable, Variable]:
        """``(beta1_power, beta2_power)``: TF1's private accessor, which its tests (and
        programs that log Adam's bias correction) call."""
        return self._powers

    def _finish(self, updates, name: str):
        b1p, b2p = self._powers
        up1 = b1p.assign(ops.multiply(b1p, self._b1_t))
        up2 = b2p.assign(ops.multiply(b2p, self._b2_t))
        return group(*updates, up1, up2, name=name)


class RMSPropOptimizer(Optimizer):
    """TF1's RMSProp: ``ms = decay*ms + (1-decay)*g^2`` (ms starts at ONE),
    ``mom = momentum*mom + lr*g/sqrt(ms + eps)``, ``var -= mom``; ``centered`` also tracks the
    mean gradient ``mg`` and divides by ``sqrt(ms - mg^2 + eps)``."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._lr, self._decay, self._momentum = learning_rate, decay, momentum
        self._eps, self._centered = epsilon, centered

    def _apply_dense(self, g, v):
        lr = self._hyper(self._lr, v)
        rms = self._slot(v, "rms", init=1.0)             # TF's creation order: rms, mg, momentum
        mg = self._slot(v, "mg") if self._centered else None
        mom = self._slot(v, "momentum")
        ms_t = rms.assign(ops.add(ops.multiply(rms, self._decay), ops.multiply(ops.square(g), 1 - self._decay)))
        denom = ms_t
        if self._centered:
            mg_t = mg.assign(ops.add(ops.multiply(mg, self._decay), ops.multiply(g, 1 - self._decay)))
            denom = ops.subtract(ms_t, ops.square(mg_t))
        step = ops.truediv(ops.multiply(g, lr), ops.sqrt(ops.add(denom, self._eps)))
        mom_t = mom.assign(ops.add(ops.multiply(mom, self._momentum), step))
        return v.assign_sub(mom_t)


class AdagradOptimizer(Optimizer):
    """TF1's Adagrad: ``accum += g^2`` (starting at ``initial_accumulator_value``),
    ``var -= lr * g / sqrt(accum)``."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._lr, self._init = learning_rate, initial_accumulator_value

    def _apply_dense(self, g, v):
        acc = self._slot(v, "accumulator", init=self._init)
        acc_t = acc.assign(ops.add(acc, ops.square(g)))
        return v.assign_sub(ops.truediv(ops.multiply(g, self._hyper(self._lr, v)), ops.sqrt(acc_t)))


class AdadeltaOptimizer(Optimizer):
    """TF1's Adadelta: ``accum = rho*accum + (1-rho)*g^2``,
    ``update = sqrt(accum_update + eps) / sqrt(accum + eps) * g``,
    ``accum_update = rho*accum_update + (1-rho)*update^2``, ``var -= lr * update``."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False,
                 name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._eps = learning_rate, rho, epsilon

    def _apply_dense(self, g, v):
        rho = self._rho
        acc, acc_up = self._slot(v, "accum"), self._slot(v, "accum_update")
        acc_t = acc.assign(ops.add(ops.multiply(acc, rho), ops.multiply(ops.square(g), 1 - rho)))
        update = ops.multiply(ops.truediv(ops.sqrt(ops.add(acc_up, self._eps)),
                                          ops.sqrt(ops.add(acc_t, self._eps))), g)
        acc_up_t = acc_up.assign(ops.add(ops.multiply(acc_up, rho),
                                         ops.multiply(ops.square(update), 1 - rho)))
        with control_dependencies([acc_up_t.op]):
            return v.assign_sub(ops.multiply(update, self._hyper(self._lr, v)))


def get_or_create_global_step(graph=None) -> Variable:
    graph = graph or get_default_graph()
    found = graph.get_collection("global_step")
    if found:
        return found[0]
    with graph.name_scope(None):
        step = Variable(np.int64(0), trainable=False, name="global_step")
    graph.add_to_collection("global_step", step)
    return step


def get_global_step(graph=None) -> Variable | None:
    found = (graph or get_default_graph()).get_collection("global_step")
    return found[0] if found else None
