"""TF1 control flow: cond, case, while_loop, map_fn/scan/folds, asserts and check_numerics.

The ops live in control_flow_*.py; this module is the family's public face (facade names and
the op registrations happen on import).
"""
from lens.ops.control_flow_assert import (Assert, assert_equal, assert_greater,
                                                 assert_greater_equal, assert_less, assert_less_equal,
                                                 assert_negative, assert_non_negative,
                                                 assert_non_positive, assert_none_equal,
                                                 assert_positive, assert_rank, assert_rank_at_least,
                                                 assert_type, check_numerics, verify_tensor_all_finite)
from lens.ops.control_flow_case import case
from lens.ops.control_flow_cond import cond
from lens.ops.control_flow_functional import foldl, foldr, map_fn, scan
from lens.ops.control_flow_while import while_loop

__all__ = ["cond", "case", "while_loop", "map_fn", "scan", "foldl", "foldr", "Assert", "assert_equal",
           "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater",
           "assert_greater_equal", "assert_positive", "assert_negative", "assert_non_negative",
           "assert_non_positive", "assert_rank", "assert_rank_at_least", "assert_type", "check_numerics",
           "verify_tensor_all_finite"]
