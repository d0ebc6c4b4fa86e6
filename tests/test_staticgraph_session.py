"""Session.run: fetch structures, feeds and their validation, variables, errors, the plan cache."""
from __future__ import annotations

import collections

import numpy as np
import pytest

import staticgraph as tf
from tests.tf_errors import RUN

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_values_come_back_as_tf_returns_them():
    with tf.Session() as s:
        r = s.run(tf.constant(5.0) * 1.0)
        assert type(r) is np.float32 and r == 5.0
        r = s.run(tf.constant([1, 2]))
        assert isinstance(r, np.ndarray) and r.dtype == np.int32
        assert type(s.run(tf.reduce_sum(tf.constant([1, 2])))) is np.int32


def test_fetch_structures_round_trip():
    Pair = collections.namedtuple("Pair", "a b")
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    y, z = x * 2.0, x + 1.0
    init = tf.no_op(name="noop")
    with tf.Session() as s:
        feed = {x: [1.0, 2.0]}
        out = s.run({"y": y, "rest": [z, (init, Pair(y, "x:0"))]}, feed)
        assert list(out) == ["y", "rest"]
        np.testing.assert_array_equal(out["y"], [2.0, 4.0])
        np.testing.assert_array_equal(out["rest"][0], [2.0, 3.0])
        assert out["rest"][1][0] is None
        assert isinstance(out["rest"][1], tuple) and isinstance(out["rest"][1][1], Pair)
        np.testing.assert_array_equal(out["rest"][1][1].b, [1.0, 2.0])
        assert s.run(init) is None
        assert s.run([y, y], feed)[1].tolist() == [2.0, 4.0]


def test_feeds_by_name_and_any_tensor_can_be_fed():
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    y = x * 2.0
    z = y + 1.0
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(z, {"x:0": [1.0, 1.0]}), [3.0, 3.0])
        np.testing.assert_array_equal(s.run(z, {y: [10.0, 20.0]}), [11.0, 21.0])  # x unfed: fine


def test_feed_shape_mismatch_is_a_value_error():
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    b = tf.placeholder(tf.float32, shape=(None, 3), name="b")
    with tf.Session() as s:
        with pytest.raises(ValueError, match=r"^Cannot feed value of shape \(3,\) for Tensor x:0, "
                                             r"which has shape \(2,\)$"):
            s.run(x * 1.0, {x: np.ones(3)})
        with pytest.raises(ValueError, match=r"shape \(3,\) for Tensor b:0, which has shape \(None, 3\)"):
            s.run(b, {b: np.ones(3)})
        assert s.run(b, {b: np.ones((5, 3))}).shape == (5, 3)
        with pytest.raises(TypeError, match="The value of a feed cannot be a tf.Tensor"):
            s.run(x, {x: x})


def test_missing_feed_names_the_placeholder():
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    u = tf.placeholder(tf.float64, shape=(None, 3), name="u")
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"You must feed a value for placeholder tensor 'x' with dtype "
                                 r"float and shape \[2\]"):
            s.run(x + 1.0)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"dtype double and shape \[\?,3\]"):
            s.run(u)


def test_placeholder_with_default():
    d = tf.placeholder_with_default(tf.constant([1.0, 2.0]), shape=(None,))
    y = d * 2.0
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y), [2.0, 4.0])
        np.testing.assert_array_equal(s.run(y, {d: [5.0, 5.0, 5.0]}), [10.0, 10.0, 10.0])
    with pytest.raises(ValueError, match="not compatible"):
        tf.placeholder_with_default(tf.constant([1.0, 2.0]), shape=(3,))


def test_variables_initialize_assign_and_persist_per_session():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(10.0, name="w", trainable=False)
    assert repr(v) == "<tf.Variable 'v:0' shape=(2,) dtype=float32>"        # TF 2's v1 mode
    assert tf.trainable_variables() == [v] and tf.global_variables() == [v, w]
    inc = v.assign_add([1.0, 1.0])
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match=RUN + "Could not find variable v. This could mean that the variable has been deleted"):
            s.run(v * 2.0)
        s.run(tf.global_variables_initializer())
        s.run(inc)
        s.run(inc)
        np.testing.assert_array_equal(s.run(v), [3.0, 4.0])
        s.run(v.assign([0.0, 0.0]))
        np.testing.assert_array_equal(s.run(v.assign_sub([1.0, 2.0])), [-1.0, -2.0])
    with tf.Session() as s2:                      # state belongs to a Session
        s2.run(tf.variables_initializer([v]))
        np.testing.assert_array_equal(s2.run(v), [1.0, 2.0])
        with pytest.raises(tf.errors.FailedPreconditionError, match="Could not find variable w"):
            s2.run(w)
    with pytest.raises(ValueError, match="incompatible"):
        v.assign([1.0, 2.0, 3.0])


def test_fetched_values_do_not_alias_variable_state():
    v = tf.Variable([1.0, 2.0])
    with tf.Session() as s:
        s.run(v.initializer)
        got = s.run(v.assign([5.0, 6.0]))
        got[0] = 100.0
        np.testing.assert_array_equal(s.run(v), [5.0, 6.0])


def test_control_dependencies_and_read_value():
    v = tf.Variable(1.0, name="v")
    inc = v.assign_add(1.0)
    with tf.control_dependencies([inc]):
        after = v.read_value()
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(after) == 2.0
        assert s.run(after) == 3.0
        g = tf.group(inc, inc.op)
        s.run(g)
        assert s.run(v) == 4.0


def test_print_ops_print_at_run_time(capsys):
    x = tf.constant([1.0, 2.0])
    y = tf.Print(x, [x], message="x is ")
    p = tf.print("value:", x)
    assert str(tf.get_default_graph()).count("Print") >= 2
    captured = capsys.readouterr()
    assert captured.err == ""                      # nothing prints while building
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y), [1.0, 2.0])
        assert s.run(p) is None
    err = capsys.readouterr().err
    assert "x is [1 2]" in err and "value: [1 2]" in err          # as TF prints them


def test_run_time_error_names_node_shapes_and_site():
    a = tf.placeholder(tf.float32, shape=(None, None), name="a")
    b = tf.placeholder(tf.float32, shape=(None, None), name="b")
    c = tf.matmul(a, b, name="product")  # RUNTIME-SITE
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(c, {a: np.ones((2, 3)), b: np.ones((4, 5))})
    msg = str(info.value)
    assert "in node 'product' (MatMul) with input shapes: [2, 3], [4, 5]" in msg
    assert "test_staticgraph_session.py:" in msg and info.value.op is c.op


def test_closed_session_refuses_to_run():
    s = tf.Session()
    s.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session"):
        s.run(tf.constant(1.0))


def test_bad_fetch_type():
    with tf.Session() as s:
        with pytest.raises(TypeError, match='^Argument `fetch` = 3 has invalid type "int" must be a string or Tensor'):
            s.run(3)


def test_eval_uses_the_default_session():
    x = tf.constant(2.0) * 3.0
    with tf.Session():
        assert x.eval() == 6.0
    with pytest.raises(ValueError, match="No default session"):
        x.eval()


# --- compile once, run many ----------------------------------------------------------

def test_second_run_does_not_recompile():
    x = tf.placeholder(tf.float32, shape=(None,), name="x")
    y = tf.reduce_sum(x * x)
    with tf.Session() as s:
        for k in range(5):
            assert s.run(y, {x: np.arange(k + 1.0)}) == sum(i * i for i in range(k + 1))
        assert s.compile_count == 1
        s.run([y], {x: [1.0]})
        s.run([y], {x: [2.0]})
        assert s.compile_count == 2                   # a new fetch structure: one more plan
        tf.constant(0.0)                              # the graph changed: plans are stale
        s.run(y, {x: [1.0]})
        assert s.compile_count == 3


def test_the_fast_path_checks_contents_feed_order_and_graph_version():
    """A repeated run skips the cache key (a lookup by the fetch list's id) -- but a list
    changed in place, feeds given in another order, a changed graph or a closed session
    are noticed."""
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    w = tf.placeholder(tf.float32, shape=(2,), name="w")
    a, b = x - w, x * 2.0
    fetches = [a]
    one, two = np.array([1.0, 2.0], np.float32), np.array([10.0, 20.0], np.float32)
    s = tf.Session()
    np.testing.assert_array_equal(s.run(fetches, {x: one, w: two})[0], [-9.0, -18.0])
    np.testing.assert_array_equal(s.run(fetches, {x: one, w: two})[0], [-9.0, -18.0])
    np.testing.assert_array_equal(s.run(fetches, {w: two, x: one})[0], [-9.0, -18.0])  # key order
    fetches[0] = b                                           # the same list, other contents
    np.testing.assert_array_equal(s.run(fetches, {x: one, w: two})[0], [2.0, 4.0])
    fetches.append(a)
    got = s.run(fetches, {x: one, w: two})
    assert isinstance(got, list) and len(got) == 2
    np.testing.assert_array_equal(got[1], [-9.0, -18.0])
    assert s.run(tuple(fetches), {x: one, w: two}).__class__ is tuple    # same items, a tuple
    for k in range(3):                                      # a new list each call
        np.testing.assert_array_equal(s.run([b], {x: one * k, w: two})[0], one * k * 2.0)
    count = s.compile_count
    c = a + 1.0                                              # the graph changed: stale plans
    np.testing.assert_array_equal(s.run(fetches, {x: one, w: two})[0], [2.0, 4.0])
    assert s.compile_count == count + 1 and s.run(c, {x: one, w: two})[0] == -8.0
    s.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session"):
        s.run(fetches, {x: one, w: two})


def test_the_fast_path_still_validates_feeds_and_names_failing_nodes():
    a = tf.placeholder(tf.float32, shape=(None, None), name="a")
    b = tf.placeholder(tf.float32, shape=(None, 2), name="b")
    c = tf.matmul(a, b, name="product")
    fetches = [c]
    with tf.Session() as s:
        for _ in range(2):
            s.run(fetches, {a: np.ones((2, 3), np.float32), b: np.ones((3, 2), np.float32)})
        with pytest.raises(tf.errors.InvalidArgumentError, match="in node 'product'"):
            s.run(fetches, {a: np.ones((2, 3), np.float32), b: np.ones((4, 2), np.float32)})
        with pytest.raises(ValueError, match=r"shape \(4, 3\) for Tensor b:0"):
            s.run(fetches, {a: np.ones((2, 4), np.float32), b: np.ones((4, 3), np.float32)})
        assert s.compile_count == 1


def test_a_numpy_scalar_of_the_dtype_feeds_a_scalar_placeholder_as_it_is():
    n = tf.placeholder(tf.float32, shape=(), name="n")
    y = n * 2.0
    with tf.Session() as s:
        for value in (np.float32(3.0), np.float64(3.0), 3, np.array(3.0, np.float32)):
            r = s.run(y, {n: value})
            assert type(r) is np.float32 and r == 6.0
        assert type(s.run(n, {n: np.float32(3.0)})) is np.float32
        with pytest.raises(TypeError, match="not compatible with Tensor n:0"):
            s.run(y, {n: "three"})
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(1,\) for Tensor n:0"):
            s.run(y, {n: np.array([3.0], np.float32)})


def test_a_variable_read_is_a_dict_lookup_in_the_plan_and_still_names_a_missing_variable():
    v = tf.Variable([1.0, 2.0], name="v")
    y = v * 2.0
    with tf.Session() as s:
        src = s.explain(y)
        assert "= st0['v']  # ReadVariableOp" in src and "f0(" in src   # the kernel: on a miss
        with pytest.raises(tf.errors.FailedPreconditionError, match=RUN + "Could not find variable v\\.") as info:
            s.run(y)
        assert info.value.__suppress_context__          # no KeyError chained in the report
        s.run(v.initializer)
        np.testing.assert_array_equal(s.run(y), [2.0, 4.0])
        s.run(v.assign([5.0, 6.0]))
        np.testing.assert_array_equal(s.run(y), [10.0, 12.0])


def test_plan_only_runs_what_the_fetch_needs():
    x = tf.placeholder(tf.float32, shape=(), name="x")
    unused = tf.sqrt(x) + 100.0                      # never needed by y
    y = x * 2.0
    with tf.Session() as s:
        src = s.explain(y, {x: 1.0})
    assert "Mul" in src and "Sqrt" not in src and unused.op.name not in src
    assert src.count("  # ") == 1                   # exactly one step line


def test_feeds_are_validated_inline_and_lists_are_converted():
    x = tf.placeholder(tf.float32, shape=(None, 2), name="x")
    y = x * 2.0
    with tf.Session() as s:
        assert s.run(y, {x: [[1, 2]]}).dtype == np.float32            # list -> converted
        np.testing.assert_array_equal(s.run(y, {x: np.ones((3, 2), np.float64)}), np.full((3, 2), 2.0))
        with pytest.raises(ValueError, match=r"shape \(3, 3\) for Tensor x:0, which has shape \(None, 2\)"):
            s.run(y, {x: np.ones((3, 3), np.float32)})
        assert s.compile_count == 1


def test_a_sub_graph_compiles_into_its_own_plan_called_from_a_kernel():
    """The seam control flow uses: a kind whose kernel runs another compiled plan."""
    from staticgraph.compiler import compile_plan
    from staticgraph.framework.kinds import KINDS, defkind

    body = tf.Graph()
    with body.as_default():
        p = tf.placeholder(tf.float64, shape=(), name="p")
        captured = tf.placeholder(tf.float64, shape=(), name="captured")
        out = p * captured + 1.0

    def lower(op, ctx):
        exe = compile_plan([out], [p, captured], ctx.state, container="single", optimize=ctx.config)
        return exe.fn
    KINDS.pop("TestApplyBody", None)
    defkind("TestApplyBody", lower)

    x = tf.placeholder(tf.float64, shape=(), name="x")
    k = tf.constant(3.0, tf.float64)
    node = tf.get_default_graph().create_op("TestApplyBody", (x, k), {}, [((), np.dtype("f8"))])
    with tf.Session() as s:
        assert s.run(node.outputs[0], {x: 2.0}) == 7.0


def test_sub_graphs_capture_outer_tensors_as_placeholders():
    from staticgraph.compiler import compile_plan
    from staticgraph.framework.graph import SubGraph

    outer = tf.get_default_graph()
    w = tf.constant(5.0, tf.float64, name="w")
    body = SubGraph(outer)
    with body.as_default():
        p = tf.placeholder(tf.float64, shape=(), name="p")
        out = p * w + w                                   # w used twice: captured once
        inner = SubGraph(body)
        with inner.as_default():
            deep = w * 2.0                                # captured through `body`
    assert list(body.captures) == [w]
    assert body.captures[w].op.type == "Placeholder" and body.captures[w].graph is body
    assert list(inner.captures) == [body.captures[w]]
    exe = compile_plan([out], [p, body.captures[w]], tf.Session().state, container="single")
    assert exe.fn(np.float64(2.0), np.float64(5.0)) == 15.0
    assert deep.graph is inner
    with pytest.raises(ValueError, match="must be from the same graph"):
        with tf.Graph().as_default():
            tf.add(w, 1.0)


def test_graph_invalidate_makes_sessions_recompile():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
    with tf.Session(graph=g) as s:
        s.run(y, {x: [1.0, 2.0]})
        s.run(y, {x: [3.0, 4.0]})
        assert s.compile_count == 1
        version = g.version
        g.invalidate()
        assert g.version == version + 1
        np.testing.assert_allclose(s.run(y, {x: [1.0, 2.0]}), [2.0, 4.0])
        assert s.compile_count == 2
