"""Running a graph (TF's ``python/client``): ``Session`` (compile once per signature, then run the
generated code) and ``distributed/`` (``Session(target=<dask>)``, an optional extra).

Nothing is imported here: the public names are re-exported by the package root.
"""
