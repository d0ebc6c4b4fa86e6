"""``tf.train.ExponentialMovingAverage`` and ``assign_moving_average``: shadow copies that trail
variables (or tensors) by an exponential decay, as TF1 programs keep them for evaluation.

``ema.apply(var_list)`` makes, once per variable, a non-trainable global shadow variable named
as TF names it (``w/ExponentialMovingAverage:0``, ``net/b/ExponentialMovingAverage:0``; a second
EMA of the same variable gets ``..._1``), started at the variable's initial value, and returns
one op that moves every shadow toward its variable::

    shadow -= (shadow - variable) * (1 - decay)
    decay = min(decay, (1 + num_updates) / (10 + num_updates))     when num_updates is given

The averaged *variables* (not the shadows) join ``MOVING_AVERAGE_VARIABLES``.  A tensor may be
averaged too: its shadow starts at zero, and with ``zero_debias=True`` it is divided by
``1 - decay ** steps`` (``.../biased`` and ``.../local_step`` hold the state), as in Adam.
TF1 programs run the averaging after each training step::

    ema = tf.train.ExponentialMovingAverage(0.999)
    with tf.control_dependencies([train_step]):
        train_op = ema.apply(tf.trainable_variables())
    saver = tf.train.Saver(ema.variables_to_restore())     # evaluation: load the averages

>>> import staticgraph as tf
>>> w = tf.Variable(1.0, name="w")
>>> ema = tf.train.ExponentialMovingAverage(0.9)
>>> update = ema.apply([w])
>>> ema.average(w).name, ema.average_name(w)
('w/ExponentialMovingAverage:0', 'w/ExponentialMovingAverage')
"""
from __future__ import annotations

from ..framework import dtypes as _dtypes
from ..framework.build import convert_to_tensor
from ..framework.graph import Operation, Tensor, get_default_graph, name_scope
from ..framework.graph_keys import GraphKeys
from .initializers import Zeros
from ..ops.core_ops import cast, minimum, multiply, pow as _pow, subtract, truediv
from ..framework.sources import group
from .variable_scope import get_variable, get_variable_scope, variable_scope
from .variables import Variable, global_variables, trainable_variables

__all__ = ["ExponentialMovingAverage", "assign_moving_average", "moving_average_variables"]

_FLOATS = (_dtypes.float16, _dtypes.float32, _dtypes.float64)


def moving_average_variables(scope: str | None = None) -> list:
    """The variables some ``ExponentialMovingAverage.apply`` averages."""
    return get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def assign_moving_average(variable: Variable, value, decay, zero_debias: bool = True,
                          name: str | None = None):
    """``variable -= (variable - value) * (1 - decay)``; with ``zero_debias`` the update is
    computed in a zero-started ``biased`` shadow and divided by ``1 - decay ** steps``."""
    with name_scope(name, "AssignMovingAvg") as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return variable.assign_sub(multiply(subtract(variable, value), decay), name=scope)


def _zero_debias(unbiased: Variable, value, decay: Tensor):
    """The debiased update: ``biased`` moves from 0, ``local_step`` counts, and ``unbiased``
    becomes ``biased / (1 - (1 - decay) ** local_step)``."""
    with variable_scope(unbiased.name[:-len(":0")]):
        taken = {v.op.name for v in global_variables()}
        full = get_variable_scope().name + "/"

        def unique(name: str) -> str:
            if full + name not in taken:
                return name
            i = 1
            while f"{full}{name}_{i}" in taken:
                i += 1
            return f"{name}_{i}"
        biased = get_variable(unique("biased"), shape=unbiased.shape, dtype=unbiased.dtype,
                              initializer=Zeros(), trainable=False)
        local_step = get_variable(unique("local_step"), shape=[], dtype=unbiased.dtype,
                                  initializer=Zeros(), trainable=False)
    update_biased = biased.assign_sub(multiply(subtract(biased, value), decay))
    update_step = local_step.assign_add(1)
    bias_factor = subtract(1.0, _pow(subtract(1.0, decay), update_step))
    scope = get_default_graph().get_name_scope()
    return unbiased.assign(truediv(update_biased, bias_factor), name=scope + "/")


class ExponentialMovingAverage:
    """Shadow variables trailing ``var_list`` by ``decay`` (see the module docstring)."""

    def __init__(self, decay, num_updates=None, zero_debias: bool = False,
                 name: str = "ExponentialMovingAverage"):
        self._decay, self._num_updates = decay, num_updates
        self._zero_debias, self._name = zero_debias, name
        self._averages: dict[int, tuple[object, Variable]] = {}     # id(var) -> (var, shadow)

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list=None) -> Operation:
        """Create the missing shadows, and return one op moving all of them a step."""
        var_list = trainable_variables() if var_list is None else list(var_list)
        debiased = set()
        for var in var_list:
            if var.dtype.base_dtype not in _FLOATS:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if id(var) in self._averages:
                continue
            graph = get_default_graph()
            with graph.control_dependencies(None):
                if isinstance(var, Variable):
                    with variable_scope(None, default_name=f"{var.op.name}/{self._name}"):
                        avg = get_variable("", initializer=var.initialized_value(),
                                           trainable=False)
                    graph.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    with variable_scope(None, default_name=f"{var.op.name}/{self._name}"):
                        avg = get_variable("", shape=var.shape, dtype=var.dtype.base_dtype,
                                           initializer=Zeros(), trainable=False)
                    if self._zero_debias:
                        debiased.add(id(avg))
            self._averages[id(var)] = (var, avg)
        with name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, dtype=_dtypes.float32, name="decay")
            if self._num_updates is not None:
                n = cast(self._num_updates, _dtypes.float32, name="num_updates")
                decay = minimum(decay, truediv(1.0 + n, 10.0 + n))
            updates = [assign_moving_average(avg, var, decay, id(avg) in debiased)
                       for var, avg in (self._averages[id(v)] for v in var_list)]
            return group(*updates, name=scope)

    def average(self, var) -> Variable | None:
        """The shadow variable of ``var`` (``None`` before ``apply`` made it)."""
        found = self._averages.get(id(var))
        return None if found is None else found[1]

    def average_name(self, var) -> str:
        """The shadow's name without ``:0`` -- also before ``apply``, for ``Saver`` maps."""
        found = self._averages.get(id(var))
        if found is not None:
            return found[1].op.name
        return get_default_graph().unique_name(f"{var.op.name}/{self._name}", mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """``{shadow name: variable}`` for the averaged variables, ``{name: variable}`` for the
        other global variables: a ``Saver`` with it loads the averages into the model."""
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        averaged = list({id(v): v for v in moving_avg_variables}.values())
        names = {self.average_name(v): v for v in averaged}
        averaged_names = {v.name for v in averaged}
        for v in global_variables():
            if v.name not in averaged_names and v.op.name not in names:
                names[v.op.name] = v
        return names
