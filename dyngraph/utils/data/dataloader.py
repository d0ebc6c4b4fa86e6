"""``DataLoader``: batches of samples, shuffled or not, merged by ``default_collate``.

Single-process (``num_workers`` is accepted and must be 0 here): a loader is a
plain Python loop over a BatchSampler.

>>> import dyngraph as torch
>>> ds = torch.utils.data.TensorDataset(torch.arange(5.))
>>> [b[0].tolist() for b in DataLoader(ds, batch_size=2)]
[[0.0, 1.0], [2.0, 3.0], [4.0]]
"""
from __future__ import annotations

import collections.abc
import warnings
from typing import Callable

import numpy as np

from ...creation import tensor
from ...functions import stack
from ...random import draw_seed
from ...tensor import Tensor, make
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert"]


def default_convert(data):
    """One sample as ``batch_size=None`` hands it over: arrays become tensors, sequences lists."""
    if isinstance(data, np.ndarray):
        return make(data)
    if isinstance(data, collections.abc.Mapping):
        return {key: default_convert(v) for key, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch: list):
    """Merge samples as PyTorch does: tensors and arrays stacked, numbers to tensors
    (Python floats become float64), strings kept as a tuple... and dicts, tuples, lists
    and namedtuples collated field by field."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        for i, x in enumerate(batch):
            if x.shape != elem.shape:
                raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                                   f"{list(elem.shape)} at entry 0 and {list(x.shape)} at entry {i}")
        return stack([x.detach() if x.requires_grad else x for x in batch])
    if isinstance(elem, np.ndarray):
        return make(np.stack(batch))
    if isinstance(elem, np.generic):
        return make(np.array(batch))
    if isinstance(elem, int):  # bools included: a bool tensor
        return tensor(batch)
    if isinstance(elem, float):
        return make(np.array(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(x) != len(elem) for x in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(s) for s in zip(*batch)]  # (tuples, as PyTorch passes them)
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(elem)}")


class DataLoader:
    """Iterate over ``dataset`` in batches.

    ``shuffle=True`` draws a new order every epoch from ``generator`` (or the
    default generator, so ``torch.manual_seed`` makes runs repeatable).
    """

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler=None, batch_sampler=None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
                 generator=None, **_ignored):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                          or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                             "shuffle, sampler, and drop_last")
        if batch_sampler is None and batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        self.dataset, self.num_workers, self.generator = dataset, num_workers, generator
        self.batch_size, self.drop_last, self.pin_memory = batch_size, drop_last, pin_memory
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else \
                SequentialSampler(dataset)
        self.sampler = sampler
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_sampler = batch_sampler
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None
                                         else default_convert)

    def __iter__(self):
        """A new pass.  Starting one draws a base seed (PyTorch's, for worker processes;
        unused here) from ``generator`` or the default generator, so the stream after it
        -- a shuffle, dropout, anything -- stays in step with PyTorch's."""
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", UserWarning, stacklevel=2)
        draw_seed(self.generator)
        return self._batches()

    def _batches(self):
        if self.batch_sampler is None:  # batch_size=None: samples one by one, uncollated
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
            return
        batch_fetch = getattr(self.dataset, "__getitems__", None)
        for indices in self.batch_sampler:
            samples = (batch_fetch(indices) if callable(batch_fetch)
                       else [self.dataset[i] for i in indices])
            yield self.collate_fn(samples)

    def __len__(self) -> int:
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
