"""``tf.random``: the random ops under their ``tf.random.*`` names (TF1 names: ``tf.random_normal``).

>>> import staticgraph as tf
>>> tf.random.normal([3]).dtype
tf.float32
"""
from __future__ import annotations

from .ops.random_ops import categorical, multinomial, random_shuffle as shuffle, set_random_seed
from .ops.random_ops import random_normal as normal, random_uniform as uniform, truncated_normal
from .ops.random_ops import random_gamma as gamma, random_poisson as poisson
from .ops.candidate_sampling_ops import (fixed_unigram_candidate_sampler,
                                         learned_unigram_candidate_sampler,
                                         log_uniform_candidate_sampler, uniform_candidate_sampler)

set_seed = set_random_seed

__all__ = ["categorical", "multinomial", "shuffle", "set_random_seed", "set_seed", "normal",
           "uniform", "truncated_normal", "gamma", "poisson", "fixed_unigram_candidate_sampler",
           "learned_unigram_candidate_sampler", "log_uniform_candidate_sampler",
           "uniform_candidate_sampler"]
