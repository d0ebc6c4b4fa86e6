"""``torch.fft`` in dyngraph: values, gradients and refusals recorded from torch 2.13.

Each gradient is of ``sum(w * view_as_real(out))`` (or ``w * out`` for a real result) with
``w = cos(0.37 k)``: it checks both parts of a complex result, so the conjugate convention,
the onesided spectra's doubling (``fft_c2r_backward``) and the zero-padding of ``n``/``s``.
"""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch

X = [[1., 2, 3, 4], [0, -1, 2, 0.5]]

CASES = {   # name: (call, output, gradient), recorded from torch 2.13 (float64)
    "fft": (lambda x: torch.fft.fft(x, n=6),
            [[10, -3.5 - 4.330127j, 2.5 + 0.866025j, -2, 2.5 - 0.866025j, -3.5 + 4.330127j],
             [1.5, -2 - 0.866025j, 2.598076j, 2.5, -2.598076j, -2 + 0.866025j]],
            [[-0.60706943, 0.48021492, 0.60480559, 0.82129806],
             [2.20274608, -3.76632708, -0.48854365, 0.00582232]]),
    "ifft2": (lambda x: torch.fft.ifft2(x, norm="ortho"),
              [[4.065864, -1.414214 - 1.237437j, 0.176777, -1.414214 + 1.237437j],
               [3.005204, -0.176777j, -1.59099, 0.176777j]],
              [[-0.15038304, 0.05267956, 0.03588917, 0.08506779],
               [1.01629746, 1.50697234, 0.64063902, -0.35873517]]),
    "rfft": (lambda x: torch.fft.rfft(x, n=3),
             [[6, -1.5 + 0.866025j], [1, -0.5 + 2.598076j]],
             [[1.73846856, 0.24567755, 1.01585389, 0.0],
              [-0.51388065, 1.13053379, -0.34463827, 0.0]]),
    "irfft": (lambda x: torch.fft.irfft(x, n=7, norm="forward"),
              [[19.0, -5.048917, -0.307979, -0.643104, -0.643104, -0.307979, -5.048917],
               [3.0, -3.038032, -2.535344, 4.073376, 4.073376, -2.535344, -3.038032]],
              [[2.32598653, 1.23809162, 1.68759798, 1.74832388],
               [-4.43633904, 0.35634742, -0.85883998, -1.02300527]]),
    "hfft": (lambda x: torch.fft.hfft(x),
             [[15.0, -4.0, 0.0, -1.0, 0.0, -4.0], [2.5, -3.5, -0.5, 5.5, -0.5, -3.5]],
             [[2.9305388, 0.93827388, 1.40344575, 0.72774157],
              [-4.8693143, 1.13635945, 0.10874616, -0.00310493]]),
    "ihfftn": (lambda x: torch.fft.ihfftn(x, s=(2, 5)),
               [[1.15, -0.637664 + 0.124495j, 0.312664 + 0.011226j],
                [0.85, -0.171353 + 0.138371j, -0.003647 + 0.4141j]],
               [[-0.06070694, -0.00929804, 0.08755416, -0.01562007],
                [0.42653498, 0.292449, 0.10325641, -0.00295632]]),
    "fftshift": (lambda x: torch.fft.fftshift(x),
                 [[2.0, 0.5, 0.0, -1.0], [3.0, 4.0, 1.0, 2.0]],
                 [[-0.60455227, -0.85169098, 0.09067162, -0.27559025],
                  [0.73846856, 0.44466152, 1.0, 0.93232735]]),
    "irfftn": (lambda x: torch.fft.irfftn(x),
               [[1.458333, -0.625, -0.041667, 0.375, -0.041667, -0.625],
                [1.041667, -0.041667, 0.041667, -0.541667, 0.041667, -0.041667]],
               [[-0.16156463, 0.17288611, 0.12601599, 0.06038639],
                [0.64998776, -0.01650713, 0.10789163, 0.06090387]]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fft_values_and_gradients_are_torchs(name):
    call, want_out, want_grad = CASES[name]
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    out = call(x)
    np.testing.assert_allclose(out.detach().numpy(), want_out, atol=2e-6)
    loss = torch.view_as_real(out) if out.is_complex() else out
    w = np.cos(np.arange(loss.numel()) * 0.37).reshape(loss.shape)
    (loss * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), want_grad, atol=2e-8)


def test_fft_of_a_complex_input_and_its_dtypes():
    z = torch.tensor([[1 + 1j, 2 - 0.5j, 0.25j]], requires_grad=True)
    out = torch.fft.fftn(z, norm="forward")
    assert out.dtype is torch.complex64
    np.testing.assert_allclose(out.detach().numpy(), np.fft.fftn(z.detach().numpy(),
                                                                  norm="forward"), rtol=1e-6)
    torch.view_as_real(out).sum().backward()
    # d/dz of sum(re + im) of a "forward"-normalised DFT: its adjoint, (1/n) conj(W), applied
    # to 1 + 1j everywhere (torch 2.13: [[1+1j, 0, 0]])
    np.testing.assert_allclose(z.grad.numpy(), [[1 + 1j, 0, 0]], atol=1e-6)
    assert torch.fft.fft(torch.tensor([1, 2, 3])).dtype is torch.complex64
    assert torch.fft.irfft(torch.tensor([1., 2, 3])).dtype is torch.float32
    assert torch.fft.hfft(torch.tensor([1., 2, 3])).tolist() == [8., -2., 0., -2.]


@pytest.mark.parametrize("call, kind, words", [
    (lambda x: torch.fft.fft(x, n=0), RuntimeError, "Invalid number of data points (0) specified"),
    (lambda x: torch.fft.fft(x, norm="xx"), RuntimeError, 'Invalid normalization mode: "xx"'),
    (lambda x: torch.fft.fft(x, dim=2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x: torch.fft.rfft(x.to(torch.complex64)), RuntimeError,
     "rfft expects a real input tensor, but got ComplexFloat"),
    (lambda x: torch.fft.fftn(x, s=(2,), dim=(0, 1)), RuntimeError,
     "When given, dim and shape arguments must have the same length"),
    (lambda x: torch.fft.irfft(x, n=0), RuntimeError, "Invalid number of data points (0) specified"),
    (lambda x: torch.fft.fftn(x, dim=(0, 0)), RuntimeError, "FFT dims must be unique"),
])
def test_fft_refusals_are_torchs(call, kind, words):
    with pytest.raises(kind) as e:
        call(torch.tensor(X, dtype=torch.float64))
    assert str(e.value) == words


def test_tf_signal_transforms_values_gradients_and_op_types_are_tfs():
    """TF 2.21: rfft(fft_length=[6]) pads (a ``Pad`` input), irfft's default length is
    2 (n - 1); gradients of RFFT, IRFFT and FFT2D against TF's numbers."""
    import staticgraph as tf
    xv = np.arange(8).reshape(2, 4).astype(np.float32)
    zv = (xv + 1j * xv[::-1]).astype(np.complex64)
    with tf.Graph().as_default():
        z, x = tf.placeholder(tf.complex64, [2, 4]), tf.placeholder(tf.float32, [2, 4])
        r = tf.signal.rfft(x, fft_length=[6])
        ir = tf.signal.irfft(z)
        f = tf.signal.fft2d(z)
        assert [(t.op.type, t.op.name, t.shape.as_list()) for t in (r, ir, f)] == [
            ("RFFT", "rfft", [2, 4]), ("IRFFT", "irfft", [2, 6]), ("FFT2D", "FFT2D", [2, 4])]
        assert r.op.inputs[0].op.type == "Pad" and tf.compat.v1.spectral.fft(z).op.type == "FFT"
        g = tf.gradients(r, x, grad_ys=tf.constant(
            np.arange(8).reshape(2, 4).astype(np.complex64) * (1 + 0.5j)))[0]
        gi = tf.gradients(ir, z, grad_ys=tf.constant(np.arange(12).reshape(2, 6), tf.float32))[0]
        gf = tf.gradients(f, z, grad_ys=tf.constant(
            np.arange(8).reshape(2, 4).astype(np.complex64) * (1 - 2j)))[0]
        with tf.Session() as s:
            got = s.run([r, g, ir, gi, f, gf], {x: xv, z: zv})
        with pytest.raises(TypeError) as e:
            tf.signal.fft(x)
        assert str(e.value) == ("Value passed to parameter 'input' has DataType float32 not in "
                                "list of allowed values: complex64, complex128")
    want = [
        [[6, -3.5 - 2.598076j, 1.5 + 0.8660254j, -2], [22, -3.5 - 9.526279j, 5.5 + 0.8660254j, -2]],
        [[6, -4.799038, 1.9330127, -2], [22, -8.26314, 5.9330125, -2]],
        [[1.5, -3.8420932, 0.28867513, -0.16666667, -0.28867513, 2.50876],
         [5.5, -1.532692, 0.28867513, -0.16666669, -0.28867513, 0.19935873]],
        [[2.5, -1 + 1.7320508j, -1 + 0.57735026j, -0.5], [8.5, -1 + 1.7320508j, -1 + 0.57735026j, -0.5]],
        [[28 + 28j, -8, -4 - 4j, -8j], [-16 + 16j, 0, 0, 0]],
        [[28 - 56j, -12 + 4j, -4 + 8j, 4 + 12j], [-16 + 32j, 0, 0, 0]]]
    for have, w in zip(got, want):
        np.testing.assert_allclose(have, w, rtol=1e-5, atol=1e-5)
