"""The host the engine runs on (TF's ``python/platform``): ``gfile`` (files, local paths) and
``tf_logging`` (the ``tensorflow`` logger).

Nothing is imported here: the public names are re-exported by the package root's namespaces.
"""
