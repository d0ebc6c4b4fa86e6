"""``torch.utils.tensorboard``: ``SummaryWriter`` writing real TensorBoard event files.

>>> from dyngraph.utils.tensorboard import SummaryWriter   # doctest: +SKIP
>>> with SummaryWriter("runs/exp1") as w:                  # doctest: +SKIP
...     w.add_scalar("loss", 0.5, global_step=0)
"""
from .writer import FileWriter, SummaryWriter

__all__ = ["SummaryWriter", "FileWriter"]
