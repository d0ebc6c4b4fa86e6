"""dyngraph's layers: values against naive numpy loops, PyTorch's conventions (checked against
torch 2.x when written: reprs, running statistics, state_dict keys, errors), gradients."""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
from tests.gradcheck import numeric_grad

nn, F = torch.nn, torch.nn.functional
RNG = np.random.default_rng(0)


def naive_conv2d(x, w, stride=(1, 1), pad=(0, 0), dilation=(1, 1), groups=1):
    """Direct loops over NCHW / OIHW: the definition PyTorch documents."""
    x = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    ho = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, ho, wo))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(ho):
            for j in range(wo):
                patch = x[:, g * cg:(g + 1) * cg, i * stride[0]:i * stride[0] + dilation[0] * (kh - 1) + 1:dilation[0],
                          j * stride[1]:j * stride[1] + dilation[1] * (kw - 1) + 1:dilation[1]]
                out[:, oc, i, j] = np.sum(patch * w[oc], axis=(1, 2, 3))
    return out


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(dilation=2, groups=2, padding=(1, 2))])
def test_conv2d_matches_the_definition(kw):
    x = RNG.standard_normal((2, 4, 7, 8))
    w = RNG.standard_normal((6, 4 // kw.get("groups", 1), 3, 3))
    got = F.conv2d(torch.tensor(x), torch.tensor(w), **kw).numpy()
    pad = kw.get("padding", 0)
    ref = naive_conv2d(x, w, (kw.get("stride", 1),) * 2, pad if isinstance(pad, tuple) else (pad, pad),
                       (kw.get("dilation", 1),) * 2, kw.get("groups", 1))
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)


def test_conv_modules_shapes_reprs_and_init():
    torch.manual_seed(0)
    m = nn.Conv2d(2, 4, (3, 2), stride=2, padding=1, dilation=2, groups=2, bias=False)
    assert repr(m) == ("Conv2d(2, 4, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), "
                       "dilation=(2, 2), groups=2, bias=False)")
    assert repr(nn.Conv2d(1, 32, 3)) == "Conv2d(1, 32, kernel_size=(3, 3), stride=(1, 1))"
    assert repr(nn.Conv2d(1, 2, 3, padding="same")) == \
        "Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1), padding=same)"
    assert repr(nn.Conv1d(3, 5, 3)) == "Conv1d(3, 5, kernel_size=(3,), stride=(1,))"
    assert repr(nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)) == \
        "ConvTranspose2d(3, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(1, 1))"
    c = nn.Conv2d(3, 8, 3)
    bound = 1 / np.sqrt(3 * 9)
    assert c.weight.shape == (8, 3, 3, 3) and np.abs(c.weight.detach().numpy()).max() <= bound
    assert np.abs(c.bias.detach().numpy()).max() <= bound
    assert c(torch.randn(2, 3, 10, 10)).shape == (2, 8, 8, 8)
    assert nn.Conv2d(3, 8, 3, padding="same")(torch.randn(1, 3, 9, 9)).shape == (1, 8, 9, 9)
    assert c(torch.randn(3, 10, 10)).shape == (8, 8, 8)   # unbatched
    assert nn.Conv1d(3, 5, 3, padding=1)(torch.randn(2, 3, 10)).shape == (2, 5, 10)
    t = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)
    assert t.weight.shape == (3, 4, 3, 3)
    assert t(torch.randn(2, 3, 5, 4)).shape == (2, 4, 10, 8)


def test_conv_transpose_is_the_input_gradient_of_conv():
    x = torch.tensor(RNG.standard_normal((2, 4, 9, 8)), requires_grad=True)
    w = torch.tensor(RNG.standard_normal((3, 4, 3, 3)))
    y = F.conv2d(x, w, stride=2, padding=1)
    g = torch.tensor(RNG.standard_normal(tuple(y.shape)))
    (y * g).sum().backward()
    t = F.conv_transpose2d(g, w, stride=2, padding=1, output_padding=(0, 1))
    np.testing.assert_allclose(t.numpy(), x.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: F.conv2d(torch.zeros(2, 3, 5, 5), torch.zeros(4, 1, 3, 3)), RuntimeError,
     r"Given groups=1, weight of size \[4, 1, 3, 3\], expected input\[2, 3, 5, 5\] to have 1 "
     r"channels, but got 3 channels instead"),
    (lambda: F.conv2d(torch.zeros(3, 5, 5), torch.zeros(4, 1, 3, 3)), RuntimeError,   # unbatched:
     r"^Given groups=1, weight of size \[4, 1, 3, 3\], expected input\[1, 3, 5, 5\] to have 1 "  # named
     r"channels, but got 3 channels instead$"),                                            # batched
    (lambda: F.conv2d(torch.zeros(2, 3, 5, 5), torch.zeros(4, 3, 3, 3), stride=2, padding="same"),
     RuntimeError, "padding='same' is not supported for strided convolutions"),
    (lambda: F.conv2d(torch.zeros(3, 5), torch.zeros(4, 3, 7, 7)), RuntimeError,
     r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[3, 5\]"),
    (lambda: F.max_pool2d(torch.zeros(1, 1, 5, 5), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3"),
    (lambda: F.dropout(torch.zeros(3), p=1.5), ValueError,
     "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: nn.Embedding(5, 2)(torch.tensor([5])), IndexError, "index out of range in self"),
    (lambda: nn.Embedding(5, 2, padding_idx=5), AssertionError, "Padding_idx must be within num_embeddings"),
    (lambda: nn.BatchNorm1d(3)(torch.zeros(1, 3)), ValueError,
     r"Expected more than 1 value per channel when training, got input size torch.Size\(\[1, 3\]\)"),
    (lambda: nn.BatchNorm2d(3)(torch.zeros(2, 3, 2)), ValueError, r"expected 4D input \(got 3D input\)"),
    (lambda: F.layer_norm(torch.zeros(2, 3), (4,)), RuntimeError,
     r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\], but got input of size\[2, 3\]"),
    (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
])
def test_errors_use_pytorch_wording(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_conv2d_of_integers_stays_integer():
    """PyTorch 2.13 convolves int32 and int64 tensors (ones * ones over 2 channels, 3x3: 18)."""
    for dtype in (torch.int32, torch.int64):
        y = F.conv2d(torch.ones(1, 2, 4, 4, dtype=dtype), torch.ones(3, 2, 3, 3, dtype=dtype))
        assert y.dtype == dtype and y.shape == (1, 3, 2, 2) and y.numpy().ravel().tolist() == [18] * 12


def naive_pool(x, k, s, reduce):
    n, c, h, w = x.shape
    ho, wo = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            out[:, :, i, j] = reduce(x[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return out


def test_pooling_values_and_gradients():
    x = RNG.standard_normal((2, 3, 7, 6))
    np.testing.assert_array_equal(F.max_pool2d(torch.tensor(x), 3, 2).numpy(), naive_pool(x, 3, 2, np.max))
    np.testing.assert_allclose(F.avg_pool2d(torch.tensor(x), 2).numpy(), naive_pool(x, 2, 2, np.mean))
    # ceil_mode / count_include_pad (values checked against torch 2.x when written)
    t = torch.tensor(np.arange(25.0).reshape(1, 1, 5, 5))
    np.testing.assert_allclose(F.avg_pool2d(t, 2, ceil_mode=True).numpy()[0, 0],
                               [[3, 5, 6.5], [13, 15, 16.5], [20.5, 22.5, 24]])
    np.testing.assert_allclose(F.avg_pool2d(t, 3, 2, padding=1).numpy()[0, 0],
                               np.array([[12, 27, 24], [63, 108, 81], [72, 117, 84]]) / 9,
                               rtol=1e-12)
    np.testing.assert_allclose(F.avg_pool2d(t, 3, 2, padding=1, count_include_pad=False).numpy()[0, 0],
                               [[3, 4.5, 6], [10.5, 12, 13.5], [18, 19.5, 21]])
    np.testing.assert_array_equal(F.max_pool2d(t, 2, ceil_mode=True).numpy()[0, 0],
                                  [[6, 8, 9], [16, 18, 19], [21, 23, 24]])
    xt = torch.tensor(x, requires_grad=True)
    F.max_pool2d(xt, 2).sum().backward()
    assert xt.grad.numpy().sum() == 2 * 3 * 3 * 3
    assert F.max_pool1d(torch.tensor(x[:, :, 0]), 2).shape == (2, 3, 3)
    assert nn.AvgPool1d(3)(torch.tensor(x[:, :, 0])).shape == (2, 3, 2)
    assert repr(nn.MaxPool2d(2)) == "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool2d(2)) == "AvgPool2d(kernel_size=2, stride=2, padding=0)"
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"


def test_adaptive_avg_pool_matches_pytorch_windows():
    x = RNG.standard_normal((1, 2, 5, 7))
    got = nn.AdaptiveAvgPool2d((2, 3))(torch.tensor(x)).numpy()
    rows, cols = [(0, 3), (2, 5)], [(0, 3), (2, 5), (4, 7)]
    ref = np.array([[[x[0, c, r0:r1, c0:c1].mean() for c0, c1 in cols] for r0, r1 in rows] for c in range(2)])
    np.testing.assert_allclose(got[0], ref, rtol=1e-12)
    assert repr(nn.AdaptiveAvgPool2d((1, 1))) == "AdaptiveAvgPool2d(output_size=(1, 1))"
    assert nn.AdaptiveAvgPool2d(1)(torch.tensor(x)).shape == (1, 2, 1, 1)
    assert F.adaptive_avg_pool2d(torch.tensor(x), (None, 3)).shape == (1, 2, 5, 3)


def test_dropout_train_eval_and_scaling():
    torch.manual_seed(0)
    d = nn.Dropout(0.25)
    assert repr(d) == "Dropout(p=0.25, inplace=False)"
    x = torch.ones(200, 100, requires_grad=True)
    y = d(x)
    kept = y.detach().numpy() != 0
    assert 0.70 < kept.mean() < 0.80                       # 20000 draws: far inside these bounds
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.75)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())   # the mask was saved
    assert type(y.grad_fn).__name__ == "MulBackward0"
    d.eval()
    assert d(x) is x
    torch.manual_seed(3)
    a = F.dropout(torch.ones(50)).numpy()
    torch.manual_seed(3)
    np.testing.assert_array_equal(F.dropout(torch.ones(50)).numpy(), a)


def test_batch_norm_running_statistics_as_pytorch():
    bn = nn.BatchNorm2d(3)
    assert repr(bn) == "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    x = RNG.standard_normal((4, 3, 2, 5)) * 2 + 1
    y = bn(torch.tensor(x)).detach().numpy()
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(y, (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5), rtol=1e-6)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * mean, rtol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * var * 40 / 39, rtol=1e-6)
    assert bn.num_batches_tracked.item() == 1 and bn.num_batches_tracked.dtype == torch.int64
    bn.eval()
    y = bn(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(y, (x - bn.running_mean.numpy()[:, None, None]) /
                               np.sqrt(bn.running_var.numpy()[:, None, None] + 1e-5), rtol=1e-5)
    cma = nn.BatchNorm1d(2, momentum=None)
    a, b = RNG.standard_normal((5, 2)), RNG.standard_normal((5, 2))
    cma(torch.tensor(a)), cma(torch.tensor(b))
    np.testing.assert_allclose(cma.running_mean.numpy(), (a.mean(0) + b.mean(0)) / 2, rtol=1e-6)
    seq = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                      "1.running_var", "1.num_batches_tracked"]
    other = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
    other.load_state_dict(seq.state_dict())
    np.testing.assert_array_equal(other[1].running_var.numpy(), seq[1].running_var.numpy())


def test_batch_norm_gradient_matches_finite_differences():
    x = RNG.standard_normal((4, 3))
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)
    g = RNG.standard_normal((4, 3))

    def f(x, w, b):
        m, v = x.mean(0), x.var(0)
        return np.sum(g * ((x - m) / np.sqrt(v + 1e-5) * w + b))
    xt = torch.tensor(x, requires_grad=True)
    wt, bt = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    (F.batch_norm(xt, None, None, wt, bt, training=True) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), numeric_grad(lambda: f(x, w, b), x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(wt.grad.numpy(), numeric_grad(lambda: f(x, w, b), w), rtol=1e-5, atol=1e-7)


def test_layer_norm():
    ln = nn.LayerNorm((3, 4))
    assert repr(ln) == "LayerNorm((3, 4), eps=1e-05, elementwise_affine=True, bias=True)"
    x = RNG.standard_normal((2, 3, 4))
    y = ln(torch.tensor(x)).detach().numpy()
    m, v = x.mean(axis=(1, 2), keepdims=True), x.var(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(y, (x - m) / np.sqrt(v + 1e-5), rtol=1e-6)


def test_embedding_accumulates_repeats_and_skips_padding():
    torch.manual_seed(0)
    e = nn.Embedding(6, 3, padding_idx=0)
    assert repr(e) == "Embedding(6, 3, padding_idx=0)"
    assert np.all(e.weight.detach().numpy()[0] == 0)
    ids = torch.tensor([[0, 1, 1], [2, 0, 5]])
    out = e(ids)
    assert out.shape == (2, 3, 3)
    np.testing.assert_array_equal(out.detach().numpy(), e.weight.detach().numpy()[ids.numpy()])
    out.sum().backward()
    np.testing.assert_array_equal(e.weight.grad.numpy()[:, 0], [0, 2, 1, 0, 0, 1])


def test_pad_and_flatten():
    x = torch.ones(2, 3, requires_grad=True)
    y = F.pad(x, (1, 2, 0, 1), value=5.0)
    assert y.shape == (3, 6) and y.detach().numpy()[2, 0] == 5.0
    (y * torch.arange(18.0).reshape(3, 6)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(18.0).reshape(3, 6)[:2, 1:4])
    assert nn.Flatten()(torch.ones(2, 3, 4)).shape == (2, 12)
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"


def test_small_cnn_trains():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(4 * 4 * 4, 2))
    x = torch.randn(16, 1, 8, 8)
    labels = torch.tensor((x.numpy()[:, 0, :4].sum(axis=(1, 2)) > 0).astype(np.int64))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = F.cross_entropy(net(x), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_a_traced_cnn_serves_other_batch_sizes():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(2 * 4 * 4, 3))
    traced = torch.jit.trace(net, torch.randn(2, 1, 8, 8))
    x = torch.randn(5, 1, 8, 8)
    np.testing.assert_allclose(traced(x).detach().numpy(), net(x).detach().numpy(), rtol=1e-6)


def test_layer_norm_rounds_as_pytorch_forward_and_weight_gradient():
    """A one-element row normalises to exactly 0 forward (PyTorch's vectorised kernel rounds
    ``x * rstd`` and ``-mean * rstd`` separately), but the weight's gradient takes ``xhat``
    from one fused multiply-add, which keeps ``x * rstd``'s rounding error.  Values recorded
    from torch 2.13: ``layer_norm(tensor([v]), (1,), tensor([2.]), tensor([.5]))``."""
    for v, grad in ((-4.3228, -9.701238013803959e-06), (3.0, 0.0), (0.1, 8.526858437107876e-07)):
        w = torch.tensor([2.0], requires_grad=True)
        y = torch.nn.functional.layer_norm(torch.tensor([v]), (1,), w, torch.tensor([0.5]))
        y.sum().backward()
        assert y.item() == 0.5 and w.grad.item() == grad
