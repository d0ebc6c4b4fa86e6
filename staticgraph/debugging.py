"""``tf.debugging``: ``enable_check_numerics`` (``framework/check_numerics.py``) and the assertion
ops (``ops/check_ops.py``) -- names only."""
from __future__ import annotations

from .framework.check_numerics import disable_check_numerics, enable_check_numerics
from .ops.check_ops import (Assert, assert_all_finite, assert_equal, assert_greater,
                            assert_greater_equal, assert_less, assert_less_equal, assert_negative,
                            assert_non_negative, assert_non_positive, assert_none_equal,
                            assert_positive, assert_rank, assert_scalar, assert_type,
                            check_numerics)

__all__ = ["enable_check_numerics", "disable_check_numerics", "Assert", "assert_equal",
           "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater",
           "assert_greater_equal", "assert_positive", "assert_negative", "assert_non_negative",
           "assert_non_positive", "assert_rank", "assert_type", "assert_scalar", "check_numerics",
           "assert_all_finite"]
