"""The TF1 facade (`import lens as tf`): lens/__init__.py loads this module on first use of a TF1 name.

It only re-exports names from the framework, ops, client, libraries, lens.events and lens.dbg, with TF1's names
and defaults; importing it registers every op type and the savers' ops.
"""
from lens.ops import all as _all_ops  # noqa: F401 - registers every op
from lens.training import io_ops as _io_ops  # noqa: F401 - SaveV2/RestoreV2/...: TF graphs import with their savers
from lens import errors
from lens.framework import dtypes as _dtypes_mod
from lens.framework.dtypes import (DType, as_dtype, bool, complex64, complex128,  # noqa: A004
                                double, float16, float32, float64, half, int8, int16, int32, int64, resource, string,
                                uint8, uint16, uint32, uint64, variant)
from lens.framework.tensor_shape import Dimension, TensorShape
from lens.framework.graph import (Graph, GraphKeys, Operation, Tensor, add_to_collection, add_to_collections,
                               colocate_with, control_dependencies, device, get_collection,
                               get_collection_ref, get_default_graph, name_scope, reset_default_graph)
from lens.framework.registry import NoGradient, NotDifferentiable, RegisterGradient
from lens.framework.convert import constant, convert_to_tensor, register_tensor_conversion_function
from lens.client.session import InteractiveSession, Session, get_default_session
from lens.ops.gradients import gradients, hessians
from lens.framework.importer import import_graph_def
from lens.ops.core import (Print, group, identity, identity_n, no_op, placeholder,
                                  placeholder_with_default, print_v2 as print, py_func, stop_gradient,  # noqa: A004
                                  tuple_ as tuple)  # noqa: A004
from lens.ops.math import (abs, add, add_n, ceil, cos, div, div_no_nan, divide, exp, floor,  # noqa: A004
                                  floordiv, floormod, log, log1p, maximum, minimum, mod, multiply,
                                  negative, pow, reciprocal, round, rsqrt, sigmoid, sign, sin, sqrt,  # noqa: A004
                                  square, squared_difference, subtract, tanh, truediv)
from lens.ops.logic import (equal, greater, greater_equal, is_finite, is_inf, is_nan, less,
                                   less_equal, logical_and, logical_not, logical_or, logical_xor,
                                   not_equal, where, where_v2)
from lens.ops.array import (broadcast_to, cast, concat, expand_dims, fill, ones, ones_like, pad,
                                   rank, reshape, shape, size, squeeze, stack, tile, to_double, to_float,
                                   to_int32, to_int64, transpose, unstack, zeros, zeros_like)
from lens.ops.reduce import (argmax, argmin, invert_permutation, reduce_all, reduce_any,
                                    reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod,
                                    reduce_sum)
from lens.ops.sequence import lin_space, linspace, range  # noqa: A004
from lens.ops.slicing import dynamic_stitch, slice  # noqa: A004
from lens.ops.linalg import matmul, norm
from lens.ops.variables import (Variable, all_variables, assign, assign_add, assign_sub,
                                   global_variables, global_variables_initializer,
                                   initialize_all_variables, is_variable_initialized, local_variables,
                                   local_variables_initializer, model_variables, moving_average_variables,
                                   report_uninitialized_variables, trainable_variables,
                                   variables_initializer)
from lens.tf1.extra_names import *  # noqa: F401,F403 - names added by later op families
from lens.tf1.extra_names import __all__ as _extra_all
from lens.tf1.structured_names import *  # noqa: F401,F403 - sparse, sets, bitwise, lookup, TensorArray
from lens.tf1.structured_names import __all__ as _structured_all
from lens.tf1 import contrib_import as _contrib_import  # noqa: F401 - `from lens.contrib.x import y`

newaxis = None
subtract = subtract
mul = multiply
sub = subtract
neg = negative

__all__ = [
    "errors", "DType", "as_dtype", "bool", "complex64", "complex128", "double", "float16", "float32",
    "float64", "half", "int8", "int16", "int32", "int64", "string", "uint8", "uint16", "uint32", "uint64",
    "resource", "variant",
    "Dimension", "TensorShape", "Graph", "GraphKeys", "Operation", "Tensor", "add_to_collection",
    "add_to_collections", "colocate_with", "control_dependencies", "device", "get_collection",
    "get_collection_ref", "get_default_graph", "name_scope", "reset_default_graph", "NoGradient",
    "NotDifferentiable", "RegisterGradient", "constant", "convert_to_tensor",
    "register_tensor_conversion_function", "InteractiveSession", "Session", "get_default_session",
    "gradients", "hessians", "import_graph_def", "Print", "group", "identity", "identity_n", "no_op",
    "placeholder", "placeholder_with_default", "print", "py_func", "stop_gradient", "tuple", "abs", "add",
    "add_n", "ceil", "cos", "div", "div_no_nan", "divide", "exp", "floor", "floordiv", "floormod", "log",
    "log1p", "maximum", "minimum", "mod", "multiply", "negative", "pow", "reciprocal", "round", "rsqrt",
    "sigmoid", "sign", "sin", "sqrt", "square", "squared_difference", "subtract", "tanh", "truediv",
    "equal", "greater", "greater_equal", "is_finite", "is_inf", "is_nan", "less", "less_equal",
    "logical_and", "logical_not", "logical_or", "logical_xor", "not_equal", "where", "where_v2",
    "broadcast_to", "cast", "concat", "expand_dims", "fill", "ones", "ones_like", "pad", "rank", "reshape",
    "shape", "size", "squeeze", "stack", "tile", "to_double", "to_float", "to_int32", "to_int64",
    "transpose", "unstack", "zeros", "zeros_like", "argmax", "argmin", "invert_permutation", "reduce_all",
    "reduce_any", "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
    "reduce_sum", "lin_space", "linspace", "range", "dynamic_stitch", "slice", "matmul", "norm",
    "Variable", "all_variables", "assign", "assign_add", "assign_sub", "global_variables",
    "global_variables_initializer", "initialize_all_variables", "is_variable_initialized",
    "local_variables", "local_variables_initializer", "model_variables", "moving_average_variables", "report_uninitialized_variables",
    "trainable_variables", "variables_initializer", "newaxis", "dtypes", "mul", "sub", "neg",
] + list(_extra_all) + list(_structured_all)

