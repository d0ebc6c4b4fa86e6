"""staticgraph: a define-then-run engine with TensorFlow 1.x's surface (``import staticgraph as tf``).

Calling an op adds a node to a Graph and returns a symbolic Tensor with a
static shape and dtype but no value.  A Session compiles what a ``run`` needs
once (prune -> order -> plan -> generated Python) and then executes the cached
plan for every ``feed_dict``.

The modules, in the order data flows through them::

    dtypes, shape        TF's dtype objects and partial shapes
    graph                Graph, Operation, Tensor, name scopes, control dependencies
    device               tf.device: the device stack and TF's merging of partial specs
    build                apply(): the one way a registry op becomes a node (shape rule at build time)
    ops, overloads       the TF-named functions and Python operators over ``build``
    shape_values         what a run-time shape tensor is when the graph fixes it (static shapes)
    sources, variables   placeholders, constants, groups, prints; resource variables
    kinds                the engine's own node kinds, each declared once (lowering,
                         gradient, effects) -- variables, control flow, print
    nest                 nested structures as tf.nest treats them
    control_flow(_grad)  while_loop, cond, case and their gradients (regions: sub-graphs)
    gradients            tf.gradients: registry rules applied with F = graph building
    compiler/            prune, order (with read/write hazards), passes, liveness, emit
    session              Session.run: compile once per signature, then run generated code
    train, saver         optimizers; checkpoints and the graph as JSON (serialize)
    graph_schema         what a loaded JSON graph must hold, checked before it is built
    metrics,             tf.metrics on local variables; ExponentialMovingAverage;
    moving_averages,     tf.keras.regularizers (the only part of Keras here)
    keras
    data/                tf.data: datasets, iterators, their graph form
    script_ops, gfile    tf.py_func; tf.gfile / tf.io.gfile over the local file system
    function, autograph  tf.function: Python control flow turned into while_loop/cond
    distributed/         Session(target=<dask>): partitions by device, data parallel,
                         out-of-core feeds (optional extra, imported only when asked for)
"""
from __future__ import annotations

from . import compat, debugging, dtypes, errors, nest, nn, train
from . import tf_logging as logging  # (tf.logging)
from .config import ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunMetadata, RunOptions
from .build import constant, convert_to_tensor, is_tensor
from .control_flow import case, cond, while_loop
from . import control_flow_grad  # noqa: F401  (declares While/If with their gradients)
from . import autograph
from .function import TensorSpec, function
from .dtypes import (DType, as_dtype, bool, double, float16, float32, float64, half, int8,  # noqa: A004
                     int16, int32, int64, string, uint8)
from .gradients import UnconnectedGradients, gradients
from .device import DeviceSpec
from .graph import (Graph, Operation, Tensor, colocate_with, control_dependencies, device,
                    get_default_graph, name_scope, reset_default_graph)
from .ops import *  # noqa: F403
from .ops import __all__ as _ops_all
from .math_ops import *  # noqa: F403
from .math_ops import __all__ as _math_all
from . import math
from .overloads import install as _install
from .serialize import from_json, to_json, to_networkx
from .session import InteractiveSession, Session, get_default_session
from .shape import TensorShape
from .sources import Print, group, no_op, placeholder, placeholder_with_default
from .sources import print_op as print  # noqa: A004  (tf.print)
from .variables import (Variable, assign, assign_add, assign_sub, global_variables,
                        global_variables_initializer, initialize_all_variables,
                        is_variable_initialized, report_uninitialized_variables,
                        trainable_variables, variables_initializer)
from . import keras, layers, losses, metrics, summary
from . import data, gfile, initializers, io, random
from .graph_keys import (GraphKeys, add_to_collection, add_to_collections, get_collection,
                         get_collection_ref)
from .initializers import (constant_initializer, glorot_normal_initializer,
                           glorot_uniform_initializer, ones_initializer, orthogonal_initializer,
                           random_normal_initializer, random_uniform_initializer,
                           truncated_normal_initializer, variance_scaling_initializer,
                           zeros_initializer)
from .array_ops import (argmax, argmin, boolean_mask, eye, gather, gather_nd, logical_xor, newaxis, pad,
                        range, rank, scatter_nd, sequence_mask, shape, size, slice, split,
                        squared_difference, strided_slice, tensordot, tile)
from .check_ops import (Assert, assert_equal, assert_greater, assert_greater_equal,
                        assert_less, assert_less_equal, assert_negative, assert_non_negative,
                        assert_non_positive, assert_none_equal, assert_positive, assert_rank,
                        assert_scalar, assert_type, check_numerics)
from .check_ops import assert_all_finite as verify_tensor_all_finite
from .tensor_array import TensorArray
from .functional_ops import foldl, foldr, map_fn, scan
from .clip_ops import clip_by_global_norm, clip_by_norm, global_norm, norm
from .random_ops import (multinomial, random_gamma, random_normal, random_poisson, random_shuffle,
                         random_uniform, set_random_seed, truncated_normal)
from .script_ops import numpy_function, py_func
from .sequence_ops import reverse, reverse_sequence, reverse_v2
from .variable_scope import (AUTO_REUSE, VariableScope, get_local_variable, get_variable,
                             get_variable_scope, local_variables_initializer, variable_scope)
from .variables import local_variables
from .moving_averages import moving_average_variables

__all__ = [*_ops_all, *[n for n in _math_all if n != "top_k"], "math", "constant", "convert_to_tensor", "is_tensor", "DType", "as_dtype",
           "bool", "double", "float16", "float32", "float64", "half", "int8", "int16", "int32",
           "int64", "string", "uint8", "gradients", "Graph", "Operation", "Tensor",
           "control_dependencies", "device", "colocate_with", "DeviceSpec", "get_default_graph", "name_scope", "reset_default_graph",
           "Session", "InteractiveSession", "get_default_session", "TensorShape", "Print",
           "print", "group", "no_op", "placeholder", "placeholder_with_default", "Variable",
           "global_variables", "global_variables_initializer", "initialize_all_variables",
           "trainable_variables", "variables_initializer", "disable_eager_execution",
           "assign", "assign_add", "assign_sub", "is_variable_initialized",
           "report_uninitialized_variables", "logging", "ConfigProto", "GPUOptions", "GraphOptions",
           "OptimizerOptions", "RunOptions", "RunMetadata",
           "disable_v2_behavior", "executing_eagerly", "compat", "debugging", "dtypes", "errors", "nest", "nn",
           "train", "keras", "losses", "metrics", "layers", "summary", "to_json", "from_json", "to_networkx", "while_loop", "cond", "case",
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

_install()


def disable_eager_execution() -> None:
    """Accepted for TF2-ported code: staticgraph is always in graph mode."""


def disable_v2_behavior() -> None:
    """Accepted for TF2-ported code: staticgraph always behaves like TF 1.x graph mode."""


def executing_eagerly() -> bool:
    return False


vars(compat.v1).update({name: globals()[name] for name in __all__}, __all__=list(__all__))
