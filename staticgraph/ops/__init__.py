"""The graph-building functions with TensorFlow's names (TF's ``python/ops``): ``core_ops`` (the
elementwise and reduction front ends), array, math, nn, random, rnn and rnn_cell, TensorArray,
functional (map_fn, scan, folds), check, clip, script (py_func) and sequence ops, and the Python
operator overloads on tensors.

Nothing is imported here: the public names are re-exported by the package root's namespaces.
"""
