"""Helpers with no graph in them (TF's ``python/util``): ``nest``, the nested-structure walker.

Nothing is imported here: the public names are re-exported by the package root's namespaces.
"""
