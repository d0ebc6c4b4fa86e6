"""State and training (TF's ``python/training``): variables, variable scopes, moving averages,
learning-rate decay, the Saver and its checkpoint state file.

Nothing is imported here: the public names are re-exported by ``train`` and the package root.
"""
