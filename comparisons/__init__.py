"""Side-by-side comparisons of the eager (dyngraph) and static (staticgraph) engines.

``python -m comparisons <script>`` runs one; ``python -m comparisons bench`` the suite.
The modules, from the shared helpers to the scripts that use them::

    sidebyside           what every script shares: arguments, two-column printing,
                         node/op counts, timing, agreement checks
    graphdiff, layout,   the recorded graphs: diffs of two forward passes; drawings
    pictures             (DOT always, PNG/SVG via graphviz or matplotlib)
    gradient, branch,    the scripts, one question each: gradients; data-dependent
    counter, debugging,  control flow; a while loop; printing an intermediate; where a
    errors, bridges,     shape error is caught; jit.trace vs tf.function; RNN cells;
    rnn, cnn, export,    a CNN trained in both; ONNX export; a Dask cluster; a classic
    distributed,         TF1 script
    tf1_classic
    rnn_layouts,         one LSTM in both layouts; three strategies by sequence length
    rnn_strategies
    registry_table       the shared op registry as a table
    tensorboard          every comparison's two graphs (and the bench's curves) for TensorBoard
    cli, __main__        the ``python -m comparisons`` entry point
    bench/               the benchmark suite (floors, programs, timing, report)
"""
