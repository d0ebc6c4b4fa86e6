"""Control flow and gradients: while_loop / cond / case as regions (sub-graphs), their gradients,
their generated code and pruning; ``tf.gradients``; ``tf.function`` tracing.

Nothing is imported here: the public names are re-exported by the package root's namespaces.
"""
