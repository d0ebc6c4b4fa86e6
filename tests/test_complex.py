"""Complex tensors in both engines: dtypes, promotion, printing, the complex ops and the
gradient convention, with values recorded from torch 2.13 and TF 2.21 (neither is imported).

The convention both frameworks share (measured): for a real loss L of z = x + iy the gradient
is dL/dx + i dL/dy, so an op's rule multiplies the incoming gradient by the conjugate of its
derivative.  ``test_complex_gradients_match_finite_differences`` checks every rule against
that definition directly; the recorded tables check the same against the frameworks.
"""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
from staticgraph import errors as tf_errors  # noqa: F401  (the TF errors module)

Z = [1 + 2j, 3 - 1j]
W = np.array([2 + 1j, 1 - 1j])
G = np.array([0.5 - 1j, 2 + 0.25j])

# d/dz of op(z) against the cotangent G, recorded from torch 2.13 (complex128)
RECORDED = {
    "div": (lambda z: z / W, [0.4 - 0.3j, 1.125 - 0.875j]),
    "exp": (lambda z: z.exp(), [-3.0373288638832254 - 0.10465895224559585j,
                                17.479174694608393 + 36.51585854884968j]),
    "log": (lambda z: z.log(), [0.5 + 0j, 0.625 - 0.125j]),
    "sqrt": (lambda z: z.sqrt(), [0.31800491237851725 - 0.19653784443935582j,
                                  0.5663397058572051 - 0.020692086178670164j]),
    "tanh": (lambda z: z.tanh(), [-0.7191038200100606 + 0.01795008778992091j,
                                  -0.0059243799079417205 - 0.019129128497451086j]),
    "sigmoid": (lambda z: z.sigmoid(), [0.49116268349029235 + 0.06947033228271926j,
                                        0.06658999985752705 - 0.06775862030173604j]),
    "sin": (lambda z: z.sin(), [4.068259302661633 - 0.5067741074437655j,
                                -3.013815399753342 - 0.7135983663670935j]),
    "cos": (lambda z: z.cos(), [0.3767117848135222 + 4.145579033926971j,
                                -0.726379194170117 + 2.272440839500963j]),
    "square": (lambda z: z.square(), [-3 - 4j, 11.5 + 5.5j]),
    "pow": (lambda z: z ** torch.tensor(W), [-1.741126217706358 + 0.618000110657293j,
                                             -0.9728726504036487 + 1.8228539024941077j]),
    "abs": (lambda z: z.abs(), [0.22360679774997896 + 0.4472135954999579j,
                                1.8973665961010275 - 0.6324555320336759j]),
    "angle": (lambda z: z.angle(), [-0.2 + 0.1j, 0.2 + 0.6j]),
    "real": (lambda z: z.real, [0.5 + 0j, 2 + 0j]),
    "imag": (lambda z: z.imag, [0.5j, 2j]),
    "rsqrt": (lambda z: z.rsqrt(), [-0.1422161202514458 - 0.08789439606353573j,
                                    -0.16783270313929444 + 0.06284159643932154j]),
    "reciprocal": (lambda z: z.reciprocal(), [-0.1 - 0.2j, -0.175 + 0.1j]),
}


def _grad(f, z):
    z = torch.tensor(z, dtype=torch.complex128, requires_grad=True)
    out = f(z)
    g = torch.tensor(G if out.is_complex() else G.real, dtype=out.dtype)
    out.backward(g)
    return z.grad.numpy()


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_eager_complex_gradients_are_torchs(name):
    f, want = RECORDED[name]
    np.testing.assert_allclose(_grad(f, Z), want, rtol=1e-12, atol=1e-12)


TF_OPS = {"div": lambda z: z / W, "exp": tf.exp, "log": tf.log, "sqrt": tf.sqrt, "tanh": tf.tanh,
          "sigmoid": tf.sigmoid, "sin": tf.sin, "cos": tf.cos, "square": tf.square,
          "pow": lambda z: tf.pow(z, tf.constant(W)), "abs": tf.abs, "angle": tf.math.angle,
          "real": tf.math.real, "imag": tf.math.imag, "rsqrt": tf.math.rsqrt,
          "reciprocal": tf.math.reciprocal}


@pytest.mark.parametrize("name", sorted(TF_OPS))
def test_static_complex_gradients_follow_the_same_convention(name):
    """TF's rules give torch's numbers (TF 2.21 measured on mul, exp, abs, angle, real/imag)."""
    with tf.Graph().as_default():
        z = tf.placeholder(tf.complex128, [2])
        out = TF_OPS[name](z)
        gy = tf.constant(G if out.dtype.is_complex else G.real, dtype=out.dtype)
        dz, = tf.gradients(out, z, grad_ys=gy)
        with tf.Session() as s:
            got = s.run(dz, {z: Z})
    np.testing.assert_allclose(got, RECORDED[name][1], rtol=1e-12, atol=1e-12)


def test_matmul_and_a_real_operand_get_their_conjugate_and_real_gradients():
    a = torch.tensor([[1 + 1j, 2 - 1j], [0.5j, 3]], dtype=torch.complex128, requires_grad=True)
    b = torch.tensor([[2, 1j], [1 - 1j, -1]], dtype=torch.complex128)
    (a @ b).backward(torch.tensor([[1, 1j], [2 - 1j, 0.5]], dtype=torch.complex128))
    np.testing.assert_allclose(a.grad.numpy(), [[3, 1], [4 - 2.5j, 2.5 + 1j]])
    x = torch.tensor([1., -2., 0.5], dtype=torch.float64, requires_grad=True)
    y = x * torch.tensor(W[:1], dtype=torch.complex128) * 1j
    y.backward(torch.tensor([1 + 1j, 2, -1j], dtype=torch.complex128))
    assert x.grad.dtype == torch.float64
    np.testing.assert_allclose(x.grad.numpy(), [1.0, -2.0, -2.0])


def test_tf_gradients_recorded_from_tf():
    """TF 2.21: |z|^2 -> 2z; z*w -> g*conj(w); real + 3 imag -> 1+3j; complex(c, 2c) -> real
    parts; angle -> i z / |z|^2."""
    with tf.Graph().as_default():
        z = tf.placeholder(tf.complex64, [2])
        w = tf.constant([2 + 1j, 1 - 1j], tf.complex64)
        c = tf.placeholder(tf.float32, [2])
        grads = [tf.gradients(tf.reduce_sum(tf.abs(z) ** 2), z)[0],
                 tf.gradients(z * w, z, grad_ys=tf.constant([1 + 0j, 1j], tf.complex64))[0],
                 tf.gradients(tf.math.real(z) + 3 * tf.math.imag(z), z)[0],
                 tf.gradients(tf.math.angle(z), z)[0],
                 tf.gradients(tf.complex(c, 2 * c), c,
                              grad_ys=tf.constant([1 + 2j, 3j], tf.complex64))[0]]
        with tf.Session() as s:
            got = s.run(grads, {z: Z, c: [1, 2]})
    want = [[2 + 4j, 6 - 2j], [2 - 1j, -1 + 1j], [1 + 3j, 1 + 3j], [-0.4 + 0.2j, 0.1 + 0.3j],
            [5, 6]]
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, rtol=1e-6)
    assert got[0].dtype == np.complex64 and got[4].dtype == np.float32


def _numeric_complex_grad(f, z, g):
    """dL/dx + i dL/dy of L = Re(sum(conj(g) * f(z))), by central differences."""
    out = np.zeros_like(z)
    for i in range(z.size):
        for unit in (1, 1j):
            def loss(eps):
                zz = z.copy()
                zz.flat[i] += eps * unit
                return float(np.sum((np.conj(g) * f(torch.tensor(zz)).numpy()).real))
            out.flat[i] += unit * (loss(1e-6) - loss(-1e-6)) / 2e-6
    return out


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_complex_gradients_match_finite_differences(name):
    f = RECORDED[name][0]
    z = np.array([0.7 - 1.3j, -0.4 + 0.2j])
    out = f(torch.tensor(z))
    g = G if out.is_complex() else G.real
    np.testing.assert_allclose(_grad(f, z), _numeric_complex_grad(f, z, g), atol=1e-6)


# --- dtypes, promotion, printing -----------------------------------------------------------

def test_torch_dtype_facts():
    assert torch.cfloat is torch.complex64 and torch.cdouble is torch.complex128
    assert torch.complex64.is_complex and not torch.complex64.is_floating_point
    assert torch.complex128.to_real() is torch.float64
    assert torch.float32.to_complex() is torch.complex64
    assert (torch.uint16.is_signed, torch.complex64.is_signed) == (False, True)
    assert repr(torch.uint32) == "torch.uint32"


def test_torch_promotion_with_complex():
    """torch 2.13: an int tensor times 1j is complex64, a float32 tensor times a complex128
    0-dim tensor complex64, float64 with complex64 (both with dims) complex128."""
    assert (torch.tensor([1, 2]) * 1j).dtype is torch.complex64
    assert (torch.tensor([1., 2.]) * torch.tensor(1j, dtype=torch.complex128)).dtype \
        is torch.complex64
    assert (torch.tensor([1.], dtype=torch.float64) * torch.tensor([1j])).dtype \
        is torch.complex128
    assert torch.tensor(1 + 2j).dtype is torch.complex64


def test_complex_tensors_print_as_torch():
    assert repr(torch.tensor([1 + 2j, 3 - 1j])) == "tensor([1.+2.j, 3.-1.j])"
    assert repr(torch.tensor([1 + 2j, 3 - 1j], dtype=torch.cdouble)) == \
        "tensor([1.+2.j, 3.-1.j], dtype=torch.complex128)"
    assert repr(torch.tensor([[1.5 + 2j, 3 - 1j], [0, 1e-5j]])) == (
        "tensor([[1.5000+2.0000e+00j, 3.0000-1.0000e+00j],\n"
        "        [0.0000+0.0000e+00j, 0.0000+1.0000e-05j]])")


def test_torch_complex_functions():
    z = torch.tensor([1 + 2j, -3.25 - 1j])
    np.testing.assert_allclose(z.abs().numpy(), [2.2361, 3.4004], atol=1e-4)
    np.testing.assert_allclose(z.angle().numpy(), [1.1071, -2.8431], atol=1e-4)
    np.testing.assert_allclose(torch.angle(torch.tensor([-1., 2.])).numpy(), [np.pi, 0])
    np.testing.assert_allclose(torch.view_as_real(z).numpy(), [[1, 2], [-3.25, -1]])
    np.testing.assert_allclose(torch.polar(torch.tensor([1., 2.]), torch.tensor([0.5, 1.])).numpy(),
                               [0.8776 + 0.4794j, 1.0806 + 1.6829j], atol=1e-4)
    np.testing.assert_allclose(torch.sgn(z).numpy(), [0.4472 + 0.8944j, -0.9558 - 0.2941j],
                               atol=1e-4)
    np.testing.assert_allclose(torch.vdot(z, z).numpy(), 16.5625)
    assert torch.isreal(torch.tensor([1 + 0j, 1j])).tolist() == [True, False]
    assert z.is_complex() and not torch.tensor([1.]).is_complex()
    x = torch.tensor([1.])
    assert torch.conj(x) is x and x.real is x
    np.testing.assert_allclose(torch.view_as_complex(torch.tensor([[1., 2.]])).numpy(), [1 + 2j])
    np.testing.assert_allclose(z.mean().numpy(), -1.125 + 0.5j)


@pytest.mark.parametrize("call, words", [
    (lambda: torch.complex(torch.tensor([1.]), torch.tensor([2.], dtype=torch.float64)),
     "Expected object of scalar type Float but got scalar type Double for second argument"),
    (lambda: torch.complex(torch.tensor([1]), torch.tensor([2])),
     "Expected both inputs to be Half, Float or Double tensors but got Long and Long"),
    (lambda: torch.tensor([1.]).imag,
     "imag is not implemented for tensors with non-complex dtypes."),
    (lambda: torch.view_as_real(torch.tensor([1.])),
     "view_as_real is only supported for complex tensors"),
])
def test_torch_refusals(call, words):
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == words


def test_tf_dtype_facts_and_ops():
    assert str(tf.complex64) == "<dtype: 'complex64'>" and tf.complex64.real_dtype == tf.float32
    assert [d.as_datatype_enum for d in (tf.complex64, tf.complex128, tf.uint16, tf.uint32,
                                         tf.uint64)] == [8, 18, 17, 22, 23]
    with pytest.raises(TypeError, match="Cannot find maximum value of <dtype: 'complex64'>"):
        tf.complex64.max
    assert tf.constant(1 + 2j).dtype == tf.complex128
    with tf.Graph().as_default():
        z = tf.placeholder(tf.complex64, [2])
        x = tf.placeholder(tf.float32, [2])
        ab = tf.abs(z)
        assert [t.op.type for t in (tf.math.real(z), tf.math.imag(z), tf.math.conj(z), ab,
                                    tf.math.angle(z), tf.complex(x, x))] == \
            ["Real", "Imag", "Conj", "ComplexAbs", "Angle", "Complex"]
        assert ab.dtype == tf.float32 and ab.op.name == "Abs"
        assert tf.math.conj(x) is x and tf.math.real(x) is x
        assert tf.math.angle(x).op.type == "Select"
        with pytest.raises(TypeError) as e:
            tf.complex(x, tf.constant([1., 2.], tf.float64))
        assert str(e.value) == ("The `real` and `imag` components have incorrect types: float32 "
                                "float64. They must be consistent, and one of [tf.float32, "
                                "tf.float64]")
        with pytest.raises(TypeError) as e:
            tf.gradients(tf.exp(z), z)
        assert str(e.value) == ('Gradients of complex tensors (Tensor("Exp:0", shape=(2,), '
                                'dtype=complex64)) must set grad_ys (y.dtype = complex64)')
        zz = tf.placeholder(tf.complex64, [2, 2])
        adj = tf.matmul(zz, zz, adjoint_a=True)
        tr = tf.transpose(zz, conjugate=True)
        with tf.Session() as s:
            m = np.array([[1 + 1j, 2], [3j, 4 - 1j]], np.complex64)
            got_adj, got_tr = s.run([adj, tr], {zz: m})
        np.testing.assert_allclose(got_adj, m.conj().T @ m)
        np.testing.assert_allclose(got_tr, m.conj().T)


def test_tf_unsigned_dtypes_compute():
    """TF 2.21: uint32 + uint32 is an AddV2 of uint32; uint16 * uint16 a Mul of uint16."""
    with tf.Graph().as_default():
        a = tf.constant([1, 2], tf.uint32) + tf.constant([3, 4], tf.uint32)
        b = tf.constant([5], tf.uint16) * tf.constant([7], tf.uint16)
        c = tf.constant([2 ** 63], tf.uint64)
        with tf.Session() as s:
            va, vb, vc = s.run([a, b, c])
    assert (va.dtype, vb.dtype, vc.dtype) == (np.uint32, np.uint16, np.uint64)
    assert va.tolist() == [4, 6] and vb.tolist() == [35] and vc.tolist() == [2 ** 63]
