"""What TensorFlow's variable, variable-scope and saver tests check, recorded from TF 2.21.

Found by running TF's ``variable_scope_test``, ``variables_test``,
``resource_variable_ops_test`` and ``saver_test`` through ``tools/tf_tests`` (issue #30).
CI has neither TF nor its test files: the values and words below are what
``tf.compat.v1`` (graph mode) printed for the same programs.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

import staticgraph as tf


# --- variable scopes are per thread (variable_scope_test's multithreaded tests) -----------

def test_a_second_thread_entering_the_same_scope_name_gets_that_scope_not_a_nested_one():
    """TF keeps the scope stack per thread: thread 1 enters ``foo`` (not ``foo/foo``) while
    thread 0 is still inside its ``foo``, and so collides with ``foo/v``."""
    graph = tf.Graph()
    seen: list[str] = []
    paused = [threading.Event(), threading.Event()]
    resume = threading.Event()

    def body(i: int) -> None:
        try:
            with graph.as_default(), tf.variable_scope("foo") as scope:
                seen.append(scope.name)
                try:
                    seen.append(tf.get_variable("v", []).name)
                except ValueError as e:
                    seen.append(str(e).split(",")[0])
                paused[i].set()
                resume.wait(10)
        finally:
            paused[i].set()

    threads = [threading.Thread(target=body, args=(i,)) for i in range(2)]
    threads[0].start()
    paused[0].wait(10)
    threads[1].start()
    paused[1].wait(10)
    resume.set()
    for t in threads:
        t.join(10)
    assert seen == ["foo", "foo/v:0", "foo", "Variable foo/v already exists"]   # TF 2.21


def test_a_new_thread_starts_at_the_root_scope():
    graph = tf.Graph()
    names: list[str] = []

    def body() -> None:
        with graph.as_default():
            names.append(tf.get_variable_scope().name)
            with tf.variable_scope("bar"):
                names.append(tf.get_variable("v", []).name)

    with graph.as_default(), tf.variable_scope("main"):
        t = threading.Thread(target=body)
        t.start()
        t.join(10)
    assert names == ["", "bar/v:0"]   # TF 2.21


# --- Variable methods (variables_test, resource_variable_ops_test) ------------------------

def test_count_up_to_returns_the_value_before_and_stops_at_the_limit():
    with tf.Graph().as_default():
        v = tf.Variable(0, name="c")
        count = v.count_up_to(3)
        assert (count.name, count.op.type) == ("ResourceCountUpTo:0", "ResourceCountUpTo")
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert [sess.run(count) for _ in range(3)] == [0, 1, 2]
            with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 3"):
                sess.run(count)
            assert sess.run(v) == 3                                       # TF 2.21


def test_count_up_to_is_undone_with_the_run_that_failed():
    with tf.Graph().as_default():
        v = tf.Variable(0)
        x = tf.placeholder(tf.float32)
        failing = tf.debugging.check_numerics(x, "boom")
        count = tf.count_up_to(v, 3)
        with tf.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run([count, failing], {x: np.nan})
            assert sess.run(v) == 0


def test_constraint_is_kept_and_must_be_callable():
    with tf.Graph().as_default():
        project = lambda x: x   # noqa: E731
        assert tf.Variable(1.0, constraint=project).constraint is project
        assert tf.Variable(1.0).constraint is None
        with pytest.raises(ValueError) as info:
            tf.Variable(1.0, constraint=0)
    assert str(info.value) == ("Argument `constraint` must be None or a callable. a callable. "
                               "Got a <class 'int'>:  0")                 # TF 2.21, verbatim


def test_sparse_read_and_gather_nd_read_rows_of_the_variable():
    with tf.Graph().as_default():
        w = tf.Variable([[1., 2.], [3., 4.]])
        rows, picked = w.sparse_read([1, 0]), w.gather_nd([[1, 0]])
        assert rows.name == "Gather:0" and rows.shape.as_list() == [2, 2]
        with tf.Session() as sess:
            sess.run(w.initializer)
            np.testing.assert_array_equal(sess.run(rows), [[3., 4.], [1., 2.]])
            np.testing.assert_array_equal(sess.run(picked), [3.])


def test_an_initial_value_of_another_shape_than_shape_is_refused():
    with tf.Graph().as_default(), pytest.raises(ValueError) as info:
        tf.Variable(np.zeros(3), shape=[4])
    assert str(info.value) == ("In this `tf.Variable` creation, the initial value's shape ((3,)) "
                               "is not compatible with the explicitly supplied `shape` argument "
                               "([4]).")                                  # TF 2.21


@pytest.mark.parametrize("method, delta, words", [
    ("assign_add", 1, "Shapes must be equal rank, but are 1 and 0 for '{{node AssignAddVariableOp}}"
                      " = AssignAddVariableOp[dtype=DT_INT32](v, Const)' with input shapes: [], []."),
    ("assign_sub", [1, 2], "Dimension 0 in both shapes must be equal, but are 4 and 2. Shapes are "
                           "[4] and [2]. for '{{node AssignSubVariableOp}} = AssignSubVariableOp"
                           "[dtype=DT_INT32](v, Const)' with input shapes: [], [2]."),
])
def test_assign_add_of_another_shape_is_the_ops_shape_error(method, delta, words):
    with tf.Graph().as_default():
        v = tf.Variable([0, 1, 2, 3], name="v")
        with pytest.raises(ValueError) as info:
            getattr(v, method)(delta)
    assert str(info.value) == words                                       # TF 2.21


def test_a_caching_device_places_value_reads_there():
    with tf.Graph().as_default(), tf.device("/job:server/task:1"):
        v = tf.Variable(2.0, caching_device="/job:localhost")
        assert v.device == "/job:server/task:1"
        assert v.value().device == "/job:localhost"                      # TF 2.21


def test_assert_variables_initialized_of_no_variables_is_none():
    with tf.Graph().as_default():
        assert tf.assert_variables_initialized() is None


def test_save_slice_info_spec_round_trips():
    info = tf.Variable.SaveSliceInfo(full_name="foo", full_shape=[2, 3, 4], var_offset=[0, 2, 0],
                                     var_shape=[1, 1, 3])
    assert info.spec == "2 3 4 0,1:2,1:0,3"                                # TF 2.21
    back = tf.Variable.SaveSliceInfo.from_spec(info.spec)
    assert (back.full_name, back.full_shape, back.var_offset, back.var_shape) == (
        None, [2, 3, 4], [0, 2, 0], [1, 1, 3])


@pytest.mark.parametrize("spec, words", [
    ("0", "Spec string must contain space-separated full_shape info."),
    ("0:0", "Spec string must contain space-separated full_shape info."),
    ("a b", "Spec string full_shape must be a sequence of integers. Found 'a', which is not an "
            "integer."),
    ("0 0:0", "Spec string must contain comma-separated pairs of offsets and shapes."),
    ("0 a,0:0:0", "Spec string var_offset must be an integer. Found 'a', which is not an integer."),
    ("0 0,a:0:0", "Spec string var_shape must be an integer. Found 'a', which is not an integer."),
])
def test_save_slice_info_from_a_bad_spec_says_what_is_wrong(spec, words):
    with pytest.raises(ValueError) as info:
        tf.Variable.SaveSliceInfo.from_spec(spec)
    assert str(info.value) == words                                       # TF 2.21


# --- variable_scope features (variable_scope_test) ----------------------------------------

def test_custom_getters_chain_innermost_first_and_name_from_the_root():
    def sum_getter(getter, name, *args, **kwargs):
        a, b = getter(f"{name}/sum_0", *args, **kwargs), getter(f"{name}/sum_1", *args, **kwargs)
        with tf.name_scope("sum_getter"):
            return a + b

    def prod_getter(getter, name, *args, **kwargs):
        a, b = getter(f"{name}/prod_0", *args, **kwargs), getter(f"{name}/prod_1", *args, **kwargs)
        with tf.name_scope("prod_getter"):
            return a * b

    with tf.Graph().as_default():
        with tf.variable_scope("prod_scope", custom_getter=prod_getter):
            with tf.variable_scope("sum_scope", custom_getter=sum_getter):
                v = tf.get_variable("v", [1, 2, 3])
        names = [x.name for x in tf.trainable_variables()]
    assert v.shape.as_list() == [1, 2, 3] and v.name == "sum_getter/add:0"   # TF 2.21
    assert names == [f"prod_scope/sum_scope/v/sum_{i}/prod_{j}:0" for i in (0, 1) for j in (0, 1)]


def test_a_custom_getter_sees_reuse_and_the_distribution_arguments():
    seen = []

    def getter(next_getter, *args, **kwargs):
        seen.append((kwargs["reuse"], kwargs["synchronization"], kwargs["aggregation"]))
        return next_getter(*args, **kwargs)

    with tf.Graph().as_default():
        with tf.variable_scope("scope", custom_getter=getter) as scope:
            v = tf.get_variable("v", [1])
        with tf.variable_scope(scope, reuse=True):   # the scope keeps its getter
            assert tf.get_variable("v", [1]) is v
    assert seen == [(None, tf.VariableSynchronization.AUTO, tf.VariableAggregation.NONE),
                    (True, tf.VariableSynchronization.AUTO, tf.VariableAggregation.NONE)]


def test_a_custom_getter_that_is_not_callable_is_refused():
    with tf.Graph().as_default():
        for make in (lambda: tf.variable_scope("s", custom_getter=3),
                     lambda: tf.get_variable("n", custom_getter=3)):
            with pytest.raises(ValueError) as info:
                make()
            assert str(info.value) == "Passed a custom_getter which is not callable: 3"


def test_scope_collections_list_only_the_scopes_variables():
    with tf.Graph().as_default():
        tf.get_variable("a", [])
        with tf.variable_scope("foo") as scope:
            tf.get_variable("a", [])
            tf.get_variable("b", [], trainable=False)
            tf.get_variable("c", [], synchronization=tf.VariableSynchronization.ON_READ)
            tf.get_local_variable("d", [])
        assert [v.name for v in scope.trainable_variables()] == ["foo/a:0"]
        assert [v.name for v in scope.global_variables()] == ["foo/a:0", "foo/b:0", "foo/c:0"]
        assert [v.name for v in scope.local_variables()] == ["foo/d:0"]


def test_scope_defaults_reach_the_variable_and_no_regularizer_turns_one_off():
    project = lambda x: x   # noqa: E731
    with tf.Graph().as_default():
        with tf.variable_scope("a", constraint=project, caching_device="/job:moo",
                               regularizer=lambda v: tf.reduce_sum(v)):
            v = tf.get_variable("v", [])
            w = tf.get_variable("w", [], regularizer=tf.no_regularizer)
        assert v.constraint is project and v.value().device == "/job:moo"
        assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 1
        assert w.constraint is project


def test_an_initializer_taking_no_arguments_makes_the_value():
    with tf.Graph().as_default():
        v = tf.get_variable("foo", initializer=lambda: [2])
        w = tf.get_variable("bar", initializer=lambda x=True: [2])
        assert (v.name, v.shape.as_list(), v.dtype) == ("foo:0", [1], tf.int32)   # TF 2.21
        assert w.name == "bar:0"


def test_an_initial_value_of_another_dtype_than_dtype_is_refused():
    with tf.Graph().as_default(), pytest.raises(ValueError) as info:
        tf.get_variable("s", initializer=tf.constant(1), dtype=tf.float64)
    assert str(info.value) == ("Initializer type '<dtype: 'int32'>' and explicit dtype "
                               "'<dtype: 'float64'>' don't match.")      # TF 2.21


def test_leaving_an_outer_scope_before_an_inner_one_is_refused():
    with tf.Graph().as_default(), tf.variable_scope("aa"):
        outer = tf.variable_scope("bb")
        outer.__enter__()
        with tf.variable_scope("cc"):
            with pytest.raises(RuntimeError, match="^Improper nesting of variable_scope.$"):
                outer.__exit__(None, None, None)
        outer.__exit__(None, None, None)
        assert tf.get_variable_scope().name == "aa"


def test_auxiliary_name_scope_must_be_a_bool():
    with tf.Graph().as_default(), pytest.raises(TypeError) as info:
        tf.variable_scope("s", auxiliary_name_scope="invalid")
    assert str(info.value) == ("The auxiliary_name_scope must be `True` or `False`, while get "
                               "invalid")                                 # TF 2.21


# --- train.Saver and write_graph (saver_test) ----------------------------------------------

def test_a_saver_allowed_to_be_empty_saves_and_restores_nothing(tmp_path):
    path = str(tmp_path / "allow_empty")
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.constant(1)
        with pytest.raises(ValueError, match="^No variables to save$"):
            tf.train.Saver()
        saver = tf.train.Saver(allow_empty=True)
        assert saver.save(sess, path) is None                              # TF 2.21
        saver.restore(sess, path)
    assert [p.name for p in tmp_path.iterdir()] == ["allow_empty.meta"]   # the graph only (TF)


@pytest.mark.parametrize("max_to_keep", [None, 0])
def test_max_to_keep_none_or_zero_keeps_every_checkpoint_and_lists_none(tmp_path, max_to_keep):
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(10.0, name="v")
        sess.run(v.initializer)
        saver = tf.train.Saver({"v": v}, max_to_keep=max_to_keep)
        paths = [saver.save(sess, str(tmp_path / f"s{i}")) for i in range(1, 8)]
        assert saver.last_checkpoints == []                                # TF 2.21
        assert all(tf.train.checkpoint_exists(p) for p in paths)
        assert tf.train.latest_checkpoint(str(tmp_path)) == paths[-1]


def test_a_deferred_saver_takes_the_variables_there_are_at_build(tmp_path):
    path = str(tmp_path / "deferred")
    with tf.Graph().as_default(), tf.Session() as sess:
        one = tf.Variable(1.0)
        with pytest.raises(ValueError) as info:
            tf.train.Saver([one], defer_build=True)
        assert str(info.value) == ("If `var_list` is provided then build cannot be deferred. "
                                   "Either set defer_build=False or var_list=None.")
        saver = tf.train.Saver(defer_build=True)
        twos = tf.Variable([2.0, 2.0, 2.0])
        sess.run(tf.global_variables_initializer())
        with pytest.raises(RuntimeError) as info:
            saver.save(sess, path)
        assert str(info.value) == "`build()` should be called before save if defer_build==True"
        saver.build()
        saver.save(sess, path)
    with tf.Graph().as_default(), tf.Session() as sess:
        one, twos = tf.Variable(0.0), tf.Variable([0.0, 0.0, 0.0])
        tf.train.Saver().restore(sess, path)
        assert sess.run(one) == 1.0 and sess.run(twos).tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("as_graph_def", [False, True])
def test_write_graph_makes_the_directories_and_returns_the_path(tmp_path, as_graph_def):
    pytest.importorskip("tensorboard")   # (the GraphDef proto comes from tensorboard's package)
    with tf.Graph().as_default() as graph:
        tf.Variable([[1, 2, 3], [4, 5, 6]], dtype=tf.float32, name="v0")
        what = graph.as_graph_def() if as_graph_def else graph
        path = tf.train.write_graph(what, str(tmp_path / "l1" / "l2"), "graph.pbtxt")
    assert path == str(tmp_path / "l1" / "l2" / "graph.pbtxt")              # TF 2.21
    assert 'name: "v0"' in open(path).read()
    binary = tf.io.write_graph(graph, str(tmp_path), "graph.pb", as_text=False)
    assert open(binary, "rb").read() == graph.as_graph_def().SerializeToString(deterministic=True)


# --- more of resource_variable_ops_test / variables_test -----------------------------------

def test_a_variable_def_reattaches_to_the_same_nodes():
    with tf.Graph().as_default():
        v = tf.Variable(0.0, name="v")
        frozen = tf.Variable(1.0, trainable=False, name="nt")
        vd = v.to_proto()
        assert (vd.variable_name, vd.initializer_name, vd.snapshot_name, vd.initial_value_name,
                vd.trainable, vd.is_resource) == ("v:0", "v/Assign", "v/Read/ReadVariableOp:0",
                                                  "v/Initializer/initial_value:0", True, True)
        again = tf.Variable(variable_def=vd)
        assert (again.name, again.op is v.op, again.initializer is v.initializer) == (
            "v:0", True, True)
        assert tf.Variable.from_proto(frozen.to_proto()).trainable is False
        assert len(tf.global_variables()) == 2        # re-attaching adds no variable (TF 2.21)


def test_iterating_a_variable_is_tfs_graph_mode_error():
    with tf.Graph().as_default():
        for value in (0.0, [0.0, 1.0]):
            with pytest.raises(TypeError, match=r"^Iterating over a symbolic `tf.Tensor` is not "
                                                r"allowed\. .*If you are running in Graph mode"):
                for _ in tf.Variable(value):
                    pass


def test_a_variable_cannot_be_deep_copied_in_graph_mode():
    import copy
    with tf.Graph().as_default():
        v = tf.Variable(np.ones((4, 4, 4)))
        with pytest.raises(NotImplementedError) as info:
            copy.deepcopy(v)
    assert str(info.value) == "__deepcopy__() is only available when eager execution is enabled."


def test_get_attr_of_a_missing_attribute_is_a_value_error():
    with tf.Graph().as_default():
        c = tf.constant(1.0)
        with pytest.raises(ValueError) as info:
            c.op.get_attr("nope")
    assert str(info.value) == "Operation 'Const' has no attr named 'nope'."    # TF 2.21


def test_group_of_a_list_groups_its_items_without_reading_the_variable():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        g = tf.group([v.assign_add(1.0)])
        assert [op.type for op in g.control_inputs] == ["AssignAddVariableOp"]   # TF 2.21
