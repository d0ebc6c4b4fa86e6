"""``torch.utils``: ``dyngraph.utils.tensorboard`` (imported on demand, like PyTorch's)."""
