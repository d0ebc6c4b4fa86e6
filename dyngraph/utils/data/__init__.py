"""``torch.utils.data``: Dataset, TensorDataset, Subset, random_split, DataLoader, default_collate."""
from .dataloader import DataLoader, default_collate, default_convert
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split", "DataLoader",
           "default_collate", "default_convert", "Sampler", "SequentialSampler", "RandomSampler", "BatchSampler"]
