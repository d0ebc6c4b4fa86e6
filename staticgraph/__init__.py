"""staticgraph: a define-then-run engine with TensorFlow 1.x's surface (``import staticgraph as tf``).

Calling an op adds a node to a Graph and returns a symbolic Tensor with a
static shape and dtype but no value.  A Session compiles what a ``run`` needs
once (prune -> order -> plan -> generated Python) and then executes the cached
plan for every ``feed_dict``.

The package root holds only TF's public namespaces (``nn``, ``train``, ``layers``, ``losses``,
``metrics``, ``summary``, ``data``, ``gfile``, ``io``, ``random``, ``math``, ``initializers``,
``keras``, ``compat``, ``errors``, ``dtypes``, ``nest``, ``debugging``, ``autograph``, ``logging``),
each only re-exporting.  The engine lives in subpackages laid out like TensorFlow's own
``python/`` tree, in the order data flows through them::

    framework/   graph (Graph, Operation, Tensor, name scopes, the default session), build
                 (apply(): the one way a registry op becomes a node), kinds (the engine's own
                 node kinds: lowering, gradient, effects), dtypes, errors, shape, shape_values,
                 device, config, graph_keys (collections), sources (placeholders, constants,
                 groups, prints), printing, check_numerics;  util/ (nest), platform/ (gfile,
                 tf_logging)
    ops/         the TF-named builders over ``build``: core_ops, array, math, nn_ops, nn_layers,
                 random, rnn, rnn_cell, tensor_array, functional, check, clip, script, sequence,
                 losses; overloads;  layers/core (tf.layers)
    control/     control_flow (while_loop, cond, case: regions), its gradients, codegen and
                 pruning; gradients (tf.gradients); function (tf.function, with autograph/)
    compiler/    pipeline (compile_plan, Executable), prune, order (with read/write hazards),
                 passes/ (manager: the switches), liveness, emit
    client/      session (compile once per signature, then run generated code); targets +
                 distributed/ (Session(target=<dask>): an optional extra, imported when asked for)
    training/    variables, variable_scope, initializers, optimizers, learning_rate_decay,
                 moving_averages, saver, checkpoint_state, metrics, summary
    interop/     serialize (the graph as JSON, checked by graph_schema), graph_def, onnx/
"""
from __future__ import annotations

from . import compat, debugging, dtypes, errors, logging, nest, nn, train
from .framework.behavior import (control_flow_v2_enabled, disable_control_flow_v2,
                                 disable_resource_variables, disable_v2_behavior,
                                 enable_control_flow_v2, enable_resource_variables,
                                 enable_v2_behavior, resource_variables_enabled)
from .framework.config import ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunMetadata, RunOptions
from .framework.build import constant, convert_to_tensor, is_tensor
from .control.control_flow import case, cond, switch_case, while_loop
from .control import control_flow_grad  # noqa: F401  (declares While/If with their gradients)
from . import autograph
from .control.function import TensorSpec, function
from .dtypes import (DType, as_dtype, bool, double, float16, float32, float64, half, int8,  # noqa: A004
                     int16, int32, int64, string, uint8)
from .control.custom_gradient import custom_gradient, identity_n
from .framework.indexed_slices import IndexedSlices
from .ops.state_ops import *  # noqa: F403
from .ops.state_ops import __all__ as _state_ops_all
from .control.gradient_tape import GradientTape
from .control.gradients import (NotDifferentiable, RegisterGradient, UnconnectedGradients,
                                gradients, hessians, no_gradient)
from .framework.device import DeviceSpec
from .framework.graph import (Graph, Operation, Tensor, colocate_with, control_dependencies, device,
                              get_default_graph, name_scope, reset_default_graph)
from .ops.core_ops import *  # noqa: F403
from .ops.core_ops import __all__ as _ops_all
from .ops.math_ops import *  # noqa: F403
from .ops.math_ops import __all__ as _math_all
from . import math
from . import linalg
from .ops.overloads import install as _install
from .interop.serialize import from_json, to_json, to_networkx
from .framework import printing as _printing  # noqa: F401  (registers str(graph))
from .interop import graph_def as _graph_def  # noqa: F401  (registers Graph.as_graph_def)
from .client.session import InteractiveSession, Session, get_default_session
from .client import targets as _targets  # noqa: F401  (Session(target=<dask>))
from .framework.shape import TensorShape
from .framework.sources import Print, group, no_op, placeholder, placeholder_with_default
from .framework.sources import print_op as print  # noqa: A004  (tf.print)
from .training.variables import (Variable, assign, assign_add, assign_sub, global_variables,
                                 global_variables_initializer, initialize_all_variables,
                                 is_variable_initialized, report_uninitialized_variables,
                                 trainable_variables, variables_initializer)
from . import keras, layers, losses, metrics, summary
from . import data, gfile, initializers, io, random
from .framework.graph_keys import (GraphKeys, add_to_collection, add_to_collections, get_collection,
                                   get_collection_ref)
from .initializers import (constant_initializer, glorot_normal_initializer,
                           glorot_uniform_initializer, ones_initializer, orthogonal_initializer,
                           random_normal_initializer, random_uniform_initializer,
                           truncated_normal_initializer, variance_scaling_initializer,
                           zeros_initializer)
from .ops.array_ops import (argmax, argmin, boolean_mask, eye, gather, gather_nd, logical_xor, newaxis, pad,
                            range, rank, scatter_nd, sequence_mask, shape, size, slice, split,
                            squared_difference, strided_slice, tensordot, tile)
from .ops.check_ops import (Assert, assert_equal, assert_greater, assert_greater_equal,
                            assert_less, assert_less_equal, assert_negative, assert_non_negative,
                            assert_non_positive, assert_none_equal, assert_positive, assert_rank,
                            assert_scalar, assert_type, check_numerics)
from .ops.check_ops import assert_all_finite as verify_tensor_all_finite
from .ops.tensor_array import TensorArray
from .ops.functional_ops import foldl, foldr, map_fn, scan
from .ops.clip_ops import (clip_by_average_norm, clip_by_global_norm, clip_by_norm,
                           clip_by_value, global_norm, norm)
from .ops.random_ops import (multinomial, random_gamma, random_normal, random_poisson, random_shuffle,
                             random_uniform, set_random_seed, truncated_normal)
from .ops.script_ops import numpy_function, py_func
from .ops.sequence_ops import reverse, reverse_sequence, reverse_v2
from .training.variable_scope import (AUTO_REUSE, VariableScope, get_local_variable, get_variable,
                                      get_variable_scope, local_variables_initializer, variable_scope)
from .training.variables import local_variables
from .training.moving_averages import moving_average_variables

__all__ = [*_ops_all, *_state_ops_all, *[n for n in _math_all if n != "top_k"], "math", "constant", "convert_to_tensor", "is_tensor", "DType", "as_dtype",
           "bool", "double", "float16", "float32", "float64", "half", "int8", "int16", "int32",
           "int64", "string", "uint8", "gradients", "GradientTape", "custom_gradient", "identity_n",
           "RegisterGradient", "NotDifferentiable", "no_gradient", "hessians", "IndexedSlices", "Graph", "Operation", "Tensor",
           "control_dependencies", "device", "colocate_with", "DeviceSpec", "get_default_graph", "name_scope", "reset_default_graph",
           "Session", "InteractiveSession", "get_default_session", "TensorShape", "Print",
           "print", "group", "no_op", "placeholder", "placeholder_with_default", "Variable",
           "global_variables", "global_variables_initializer", "initialize_all_variables",
           "trainable_variables", "variables_initializer", "disable_eager_execution",
           "assign", "assign_add", "assign_sub", "is_variable_initialized",
           "report_uninitialized_variables", "logging", "ConfigProto", "GPUOptions", "GraphOptions",
           "OptimizerOptions", "RunOptions", "RunMetadata",
           "disable_v2_behavior", "enable_v2_behavior", "disable_resource_variables",
           "enable_resource_variables", "resource_variables_enabled", "disable_control_flow_v2",
           "enable_control_flow_v2", "control_flow_v2_enabled", "executing_eagerly", "compat", "debugging", "dtypes", "errors", "nest", "nn",
           "train", "keras", "losses", "metrics", "layers", "summary", "to_json", "from_json", "to_networkx", "while_loop", "cond", "case", "switch_case",
           "function", "TensorSpec", "autograph", "initializers", "random", "gfile", "io", "GraphKeys",
           "add_to_collection", "add_to_collections", "get_collection", "get_collection_ref",
           "constant_initializer", "glorot_normal_initializer", "glorot_uniform_initializer",
           "ones_initializer", "orthogonal_initializer", "random_normal_initializer",
           "random_uniform_initializer", "truncated_normal_initializer",
           "variance_scaling_initializer", "zeros_initializer", "multinomial", "random_normal", "py_func", "numpy_function", "random_poisson", "random_gamma",
           "random_shuffle", "random_uniform", "set_random_seed", "truncated_normal", "AUTO_REUSE",
           "VariableScope", "get_local_variable", "get_variable", "get_variable_scope",
           "variable_scope", "local_variables", "moving_average_variables", "local_variables_initializer", "data", "UnconnectedGradients", "TensorArray", "foldl", "foldr", "map_fn", "scan", "Assert", "assert_equal",
           "assert_greater", "assert_greater_equal", "assert_less", "assert_less_equal",
           "assert_negative", "assert_non_negative", "assert_non_positive", "assert_none_equal",
           "assert_positive", "assert_rank", "assert_scalar", "assert_type", "check_numerics",
           "verify_tensor_all_finite", "clip_by_global_norm", "clip_by_norm", "global_norm", "norm", "argmax", "argmin", "boolean_mask", "gather", "gather_nd", "logical_xor",
           "newaxis", "pad", "range", "rank", "scatter_nd", "sequence_mask", "shape", "size",
           "slice", "split", "squared_difference", "strided_slice", "tensordot", "tile",
           "reverse", "reverse_sequence", "reverse_v2"]

# TF 1's top-level special functions and tf.bitwise (issue #28)
from . import bitwise  # noqa: E402
from .ops.special_math_ops import erfc, igamma, igammac, zeta  # noqa: E402
__all__ += ["bitwise", "erfc", "igamma", "igammac", "zeta"]
from .ops.complex_ops import angle, complex, conj, imag, real  # noqa: E402,A004
from . import signal  # noqa: E402
from . import signal as spectral  # noqa: E402  (TF1's older name)
from .signal import fft, ifft  # noqa: E402  (TF1's tf.fft, tf.ifft)
from .dtypes import complex64, complex128, uint16, uint32, uint64  # noqa: E402
__all__ += ["angle", "complex", "conj", "imag", "real", "complex64", "complex128", "uint16",
            "uint32", "uint64", "signal", "spectral", "fft", "ifft"]

_install()

for _v1, _name in linalg.V1_ALIASES.items():   # tf.matrix_inverse, tf.cholesky, tf.svd ...
    globals()[_v1] = getattr(linalg, _name)
__all__ += ["linalg", *linalg.V1_ALIASES]


def disable_eager_execution() -> None:
    """Accepted for TF2-ported code: staticgraph is always in graph mode."""


def executing_eagerly() -> bool:
    return False


# --- gradients' names from TF's control-flow and gradient tests (issue #30) ---
from .control.custom_gradient import recompute_grad  # noqa: E402
from .control.gradients import AggregationMethod  # noqa: E402

__all__ += ["AggregationMethod", "recompute_grad"]
# TF's variable tests (issue #30): the module-level spellings of two variable methods
from .framework.shape import Dimension  # noqa: E402
from .training.variables import assert_variables_initialized, count_up_to  # noqa: E402
from .training.variable_scope import (VariableAggregation, VariableSynchronization,  # noqa: E402
                                      no_regularizer)
__all__ += ["Dimension", "assert_variables_initialized", "count_up_to", "VariableAggregation",
            "VariableSynchronization", "no_regularizer"]

from .dtypes import bfloat16  # ml_dtypes' bfloat16 (the float8s live in tf.dtypes only, as in TF)
__all__ += ["bfloat16"]

# TF's saver tests (issue #30): an exported graph, as tf.MetaGraphDef; partitioned variables
from .training.meta_graph import MetaGraphDef  # noqa: E402
from .training.partitioned_variables import (fixed_size_partitioner,  # noqa: E402
                                             min_max_variable_partitioner,
                                             variable_axis_size_partitioner)
from .training.variable_scope import variable_creator_scope  # noqa: E402
__all__ += ["MetaGraphDef", "fixed_size_partitioner", "min_max_variable_partitioner",
            "variable_axis_size_partitioner", "variable_creator_scope"]

vars(compat.v1).update({name: globals()[name] for name in __all__}, __all__=list(__all__))
