"""The graph itself (TF's ``python/framework``): Graph, Operation, Tensor, name scopes and regions;
``build.apply`` (the one way a registry op becomes a node); the engine's own node kinds; static
shapes and shape values; devices; ConfigProto; collections; printing a graph; placeholders,
constants and groups (``sources``).

Nothing is imported here: the public names are re-exported by the package root's namespaces.
"""
