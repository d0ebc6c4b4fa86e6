"""Calls whose ``grad_fn`` name PyTorch prints, run the same way on torch and on dyngraph.

``cases(torch)`` maps a label to a call over the given module (``torch`` or ``dyngraph``);
each returns the result whose ``type(y.grad_fn).__name__`` is compared (a tuple's first
element: ``max(x, 0)`` gives ``(values, indices)``).  ``tests/fixtures/record_torch_grad_fn_names.py``
records what PyTorch 2.13 prints for every case into ``torch_grad_fn_names.json``, and
``tests/test_grad_fn_names.py`` checks dyngraph against that file: the nn layers, every loss
(functional and module, each reduction), the indexing forms and the common tensor methods.
"""
from __future__ import annotations

from typing import Any, Callable


def _x(torch, *shape, lo: float = -1.0, hi: float = 1.0):
    """A float32 leaf that requires grad, values spread over ``[lo, hi]`` (deterministic)."""
    n = 1
    for d in shape:
        n *= d
    data = torch.linspace(lo, hi, n).reshape(shape) if n > 1 else torch.tensor([0.5]).reshape(shape)
    return data.clone().requires_grad_(True)


def cases(torch) -> dict[str, Callable[[], Any]]:
    """Every case, by label (see the module docstring)."""
    nn, F = torch.nn, torch.nn.functional
    x = lambda *s, **k: _x(torch, *s, **k)  # noqa: E731
    labels = lambda: torch.tensor([1, 0, 2])  # noqa: E731
    probs = lambda: _x(torch, 3, 4, lo=0.1, hi=0.9)  # noqa: E731
    targets01 = lambda: torch.linspace(0.0, 1.0, 12).reshape(3, 4)  # noqa: E731
    c: dict[str, Callable[[], Any]] = {}

    # --- nn layers ----------------------------------------------------------------------------
    c["Linear"] = lambda: nn.Linear(4, 3)(x(2, 4))
    c["Linear_nobias"] = lambda: nn.Linear(4, 3, bias=False)(x(2, 4))
    c["Linear_1d"] = lambda: nn.Linear(4, 3)(x(4))
    c["Linear_3d"] = lambda: nn.Linear(4, 3)(x(2, 5, 4))
    c["Conv1d"] = lambda: nn.Conv1d(2, 3, 3)(x(1, 2, 8))
    c["Conv2d"] = lambda: nn.Conv2d(2, 3, 3, padding=1)(x(1, 2, 6, 6))
    c["ConvTranspose2d"] = lambda: nn.ConvTranspose2d(2, 3, 3)(x(1, 2, 5, 5))
    c["BatchNorm1d_train"] = lambda: nn.BatchNorm1d(4)(x(5, 4))
    c["BatchNorm2d_train"] = lambda: nn.BatchNorm2d(2)(x(2, 2, 3, 3))
    c["BatchNorm2d_eval"] = lambda: nn.BatchNorm2d(2).eval()(x(2, 2, 3, 3))
    c["LayerNorm"] = lambda: nn.LayerNorm(4)(x(3, 4))
    c["Embedding"] = lambda: nn.Embedding(5, 3)(torch.tensor([1, 2, 4]))
    c["Embedding_2d"] = lambda: nn.Embedding(5, 3)(torch.tensor([[1, 2], [0, 4]]))
    c["RNN"] = lambda: nn.RNN(3, 4)(x(5, 2, 3))[0]
    c["LSTM"] = lambda: nn.LSTM(3, 4)(x(5, 2, 3))[0]
    c["LSTM_h"] = lambda: nn.LSTM(3, 4)(x(5, 2, 3))[1][0]
    c["GRU"] = lambda: nn.GRU(3, 4)(x(5, 2, 3))[0]
    c["LSTMCell"] = lambda: nn.LSTMCell(3, 4)(x(2, 3))[0]
    c["GRUCell"] = lambda: nn.GRUCell(3, 4)(x(2, 3))
    c["RNNCell"] = lambda: nn.RNNCell(3, 4)(x(2, 3))
    c["Dropout_train"] = lambda: nn.Dropout(0.5)(x(4, 4))
    c["MaxPool2d"] = lambda: nn.MaxPool2d(2)(x(1, 1, 4, 4))
    c["MaxPool1d"] = lambda: nn.MaxPool1d(2)(x(1, 2, 6))
    c["AvgPool2d"] = lambda: nn.AvgPool2d(2)(x(1, 1, 4, 4))
    c["AvgPool1d"] = lambda: nn.AvgPool1d(2)(x(1, 2, 6))
    c["AdaptiveAvgPool2d"] = lambda: nn.AdaptiveAvgPool2d(1)(x(1, 2, 4, 4))
    c["Flatten"] = lambda: nn.Flatten()(x(2, 3, 4))
    for name in ("ReLU", "ReLU6", "SiLU", "LeakyReLU", "ELU", "GELU", "Softplus", "Hardtanh",
                 "Tanh", "Sigmoid"):
        c[name] = (lambda n: lambda: getattr(nn, n)()(x(3, 4)))(name)
    c["Softmax"] = lambda: nn.Softmax(dim=1)(x(3, 4))
    c["LogSoftmax"] = lambda: nn.LogSoftmax(dim=1)(x(3, 4))

    q = lambda: _x(torch, 2, 5, 8)  # noqa: E731
    c["MultiheadAttention"] = lambda: nn.MultiheadAttention(8, 2, batch_first=True)(q(), q(), q())[0]
    c["MultiheadAttention[weights]"] = lambda: nn.MultiheadAttention(8, 2, batch_first=True)(
        q(), q(), q())[1]
    c["F.scaled_dot_product_attention"] = lambda: F.scaled_dot_product_attention(q(), q(), q())
    c["F.scaled_dot_product_attention[causal]"] = lambda: F.scaled_dot_product_attention(
        q(), q(), q(), is_causal=True)
    c["TransformerEncoderLayer"] = lambda: nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, batch_first=True)(q())
    c["TransformerDecoderLayer"] = lambda: nn.TransformerDecoderLayer(
        8, 2, 16, dropout=0.0, batch_first=True)(q(), q())

    # --- losses: functional and module, each reduction ------------------------------------------
    losses = {
        "cross_entropy": (F.cross_entropy, nn.CrossEntropyLoss, lambda: (x(3, 4), labels())),
        "nll_loss": (F.nll_loss, nn.NLLLoss, lambda: (F.log_softmax(x(3, 4), 1), labels())),
        "mse_loss": (F.mse_loss, nn.MSELoss, lambda: (x(3, 4), targets01())),
        "l1_loss": (F.l1_loss, nn.L1Loss, lambda: (x(3, 4), targets01())),
        "binary_cross_entropy": (F.binary_cross_entropy, nn.BCELoss,
                                 lambda: (probs(), targets01())),
        "binary_cross_entropy_with_logits": (F.binary_cross_entropy_with_logits,
                                             nn.BCEWithLogitsLoss, lambda: (x(3, 4), targets01())),
        "smooth_l1_loss": (F.smooth_l1_loss, nn.SmoothL1Loss, lambda: (x(3, 4), targets01())),
        "huber_loss": (F.huber_loss, nn.HuberLoss, lambda: (x(3, 4), targets01())),
        "kl_div": (F.kl_div, nn.KLDivLoss,
                   lambda: (F.log_softmax(x(3, 4), 1), F.softmax(torch.ones(3, 4), 1))),
    }
    for lname, (fn, module, args) in losses.items():
        for red in ("mean", "sum", "none"):
            c[f"F.{lname}[{red}]"] = (lambda f, a, r: lambda: f(*a(), reduction=r))(fn, args, red)
            c[f"nn.{module.__name__}[{red}]"] = (
                lambda m, a, r: lambda: m(reduction=r)(*a()))(module, args, red)
    c["F.cross_entropy[probs]"] = lambda: F.cross_entropy(x(3, 4), F.softmax(torch.ones(3, 4), 1))
    c["F.cross_entropy[weight]"] = lambda: F.cross_entropy(x(3, 4), labels(),
                                                           weight=torch.ones(4))
    c["F.cross_entropy[ignore_index]"] = lambda: F.cross_entropy(
        x(3, 4), torch.tensor([1, -100, 2]))
    c["F.cross_entropy[label_smoothing]"] = lambda: F.cross_entropy(x(3, 4), labels(),
                                                                    label_smoothing=0.1)
    c["F.cross_entropy[4d]"] = lambda: F.cross_entropy(x(2, 4, 3, 3),
                                                       torch.zeros(2, 3, 3, dtype=torch.long))
    c["F.kl_div[batchmean]"] = lambda: F.kl_div(F.log_softmax(x(3, 4), 1),
                                                F.softmax(torch.ones(3, 4), 1),
                                                reduction="batchmean")

    # --- nn.functional ----------------------------------------------------------------------------
    c["F.relu"] = lambda: F.relu(x(3, 4))
    c["F.leaky_relu"] = lambda: F.leaky_relu(x(3, 4), 0.1)
    c["F.elu"] = lambda: F.elu(x(3, 4))
    c["F.gelu"] = lambda: F.gelu(x(3, 4))
    c["F.gelu[tanh]"] = lambda: F.gelu(x(3, 4), approximate="tanh")
    c["F.softplus"] = lambda: F.softplus(x(3, 4))
    c["F.silu"] = lambda: F.silu(x(3, 4))
    c["F.hardtanh"] = lambda: F.hardtanh(x(3, 4))
    c["F.relu6"] = lambda: F.relu6(x(3, 4))
    c["F.softmax"] = lambda: F.softmax(x(3, 4), 1)
    c["F.log_softmax"] = lambda: F.log_softmax(x(3, 4), 1)
    c["F.linear"] = lambda: F.linear(x(2, 4), x(3, 4), x(3))
    c["F.dropout"] = lambda: F.dropout(x(4, 4), 0.5, training=True)
    c["F.embedding"] = lambda: F.embedding(torch.tensor([1, 2]), x(5, 3))
    c["F.normalize"] = lambda: F.normalize(x(3, 4))
    c["F.cosine_similarity"] = lambda: F.cosine_similarity(x(3, 4), x(3, 4, lo=0.5))
    c["F.pad"] = lambda: F.pad(x(2, 3), (1, 1))
    c["F.one_hot.float"] = lambda: F.one_hot(labels(), 4).float() * x(3, 4)
    c["F.layer_norm"] = lambda: F.layer_norm(x(3, 4), (4,))

    # --- indexing -----------------------------------------------------------------------------
    c["x[0]"] = lambda: x(3, 4)[0]
    c["x[1:3]"] = lambda: x(4, 4)[1:3]
    c["x[None]"] = lambda: x(3, 4)[None]
    c["x[..., 0]"] = lambda: x(3, 4)[..., 0]
    c["x[:, 1]"] = lambda: x(3, 4)[:, 1]
    c["x[:, 1:3]"] = lambda: x(3, 4)[:, 1:3]
    c["x[0, 1]"] = lambda: x(3, 4)[0, 1]
    c["x[idx_tensor]"] = lambda: x(3, 4)[torch.tensor([0, 2])]
    c["x[mask]"] = lambda: x(3, 4)[x(3, 4).detach() > 0]
    c["x[[0,2]]"] = lambda: x(3, 4)[[0, 2]]
    c["x[...]"] = lambda: x(3, 4)[...]
    c["x[:]"] = lambda: x(3, 4)[:]
    c["x[::2]"] = lambda: x(4, 4)[::2]

    def setitem():
        y = x(3, 4) * 1
        y[0] = 0.0
        return y

    def setitem_tensor():
        y = x(3, 4) * 1
        y[:, 1] = x(3)
        return y

    def setitem_mask():
        y = x(3, 4) * 1
        y[y > 0] = 0.0
        return y

    c["setitem"] = setitem
    c["setitem[tensor]"] = setitem_tensor
    c["setitem[mask]"] = setitem_mask

    # --- tensor methods -------------------------------------------------------------------------
    c["view"] = lambda: x(3, 4).view(12)
    c["reshape"] = lambda: x(3, 4).reshape(4, 3)
    c["flatten"] = lambda: x(3, 4).flatten()
    c["expand"] = lambda: x(1, 4).expand(3, 4)
    c["expand_as"] = lambda: x(1, 4).expand_as(torch.ones(3, 4))
    c["permute"] = lambda: x(2, 3, 4).permute(2, 0, 1)
    c["transpose"] = lambda: x(3, 4).transpose(0, 1)
    c["t"] = lambda: x(3, 4).t()
    c["T"] = lambda: x(3, 4).T
    c["squeeze"] = lambda: x(3, 1).squeeze()
    c["squeeze(1)"] = lambda: x(3, 1).squeeze(1)
    c["unsqueeze"] = lambda: x(3, 4).unsqueeze(0)
    c["contiguous_t"] = lambda: x(3, 4).t().contiguous()
    c["clone"] = lambda: x(3, 4).clone()
    c["cat"] = lambda: torch.cat([x(2, 3), x(2, 3)])
    c["stack"] = lambda: torch.stack([x(2, 3), x(2, 3)])
    c["split"] = lambda: torch.split(x(4, 3), 2)[0]
    c["split[sizes]"] = lambda: torch.split(x(4, 3), [1, 3])[0]
    c["chunk"] = lambda: torch.chunk(x(4, 3), 2)[1]
    c["unbind"] = lambda: torch.unbind(x(4, 3))[1]
    c["narrow"] = lambda: x(4, 3).narrow(0, 1, 2)
    c["gather"] = lambda: torch.gather(x(3, 4), 1, torch.tensor([[0], [1], [2]]))
    c["scatter[src]"] = lambda: x(3, 4).scatter(1, torch.tensor([[0], [1], [2]]), x(3, 1))
    c["scatter[value]"] = lambda: x(3, 4).scatter(1, torch.tensor([[0], [1], [2]]), 1.0)
    c["scatter_add"] = lambda: x(3, 4).scatter_add(1, torch.tensor([[0], [1], [2]]), x(3, 1))
    c["index_select"] = lambda: torch.index_select(x(3, 4), 0, torch.tensor([0, 2]))
    c["masked_fill"] = lambda: x(3, 4).masked_fill(torch.eye(3, 4) > 0, 0.0)
    c["masked_select"] = lambda: torch.masked_select(x(3, 4), torch.eye(3, 4) > 0)
    c["where"] = lambda: torch.where(torch.eye(3, 4) > 0, x(3, 4), x(3, 4))
    c["clamp"] = lambda: x(3, 4).clamp(-0.5, 0.5)
    c["clamp(min)"] = lambda: x(3, 4).clamp(min=0.0)
    c["clamp_min"] = lambda: x(3, 4).clamp_min(0.0)
    c["matmul"] = lambda: x(3, 4) @ x(4, 2)
    c["matmul[3d]"] = lambda: x(2, 3, 4) @ x(2, 4, 2)
    c["matmul[3d@2d]"] = lambda: x(2, 3, 4) @ x(4, 2)
    c["matmul[2d@1d]"] = lambda: x(3, 4) @ x(4)
    c["matmul[1d@2d]"] = lambda: x(4) @ x(4, 2)
    c["matmul[1d@1d]"] = lambda: x(4) @ x(4)
    c["mm"] = lambda: torch.mm(x(3, 4), x(4, 2))
    c["bmm"] = lambda: torch.bmm(x(2, 3, 4), x(2, 4, 2))
    c["mv"] = lambda: torch.mv(x(3, 4), x(4))
    c["dot"] = lambda: torch.dot(x(4), x(4))
    c["outer"] = lambda: torch.outer(x(3), x(4))
    c["einsum"] = lambda: torch.einsum("ij,jk->ik", x(3, 4), x(4, 2))
    c["softmax"] = lambda: x(3, 4).softmax(1)
    c["log_softmax"] = lambda: x(3, 4).log_softmax(1)
    c["cumsum"] = lambda: x(3, 4).cumsum(1)
    c["cumprod"] = lambda: x(3, 4).cumprod(1)
    c["max"] = lambda: x(3, 4).max()
    c["max(dim)"] = lambda: x(3, 4).max(1)[0]
    c["min"] = lambda: x(3, 4).min()
    c["min(dim)"] = lambda: x(3, 4).min(1)[0]
    c["maximum"] = lambda: torch.maximum(x(3, 4), x(3, 4, lo=0.0))
    c["amax"] = lambda: x(3, 4).amax(1)
    c["sort"] = lambda: x(3, 4).sort(1)[0]
    c["topk"] = lambda: x(3, 4).topk(2)[0]
    c["norm"] = lambda: x(3, 4).norm()
    c["norm(dim)"] = lambda: x(3, 4).norm(dim=1)
    c["mean"] = lambda: x(3, 4).mean()
    c["mean(dim)"] = lambda: x(3, 4).mean(1)
    c["sum"] = lambda: x(3, 4).sum()
    c["sum(dim)"] = lambda: x(3, 4).sum(1)
    c["prod"] = lambda: x(3, 4).prod()
    c["prod(dim)"] = lambda: x(3, 4).prod(1)
    c["var"] = lambda: x(3, 4).var()
    c["var(dim)"] = lambda: x(3, 4).var(1)
    c["std"] = lambda: x(3, 4).std()
    c["std(dim)"] = lambda: x(3, 4).std(1)
    c["logsumexp"] = lambda: x(3, 4).logsumexp(1)
    c["x ** 2"] = lambda: x(3, 4) ** 2
    c["x ** y"] = lambda: x(3, 4) ** x(3, 4, lo=1.0, hi=2.0)
    c["2 ** x"] = lambda: 2 ** x(3, 4)
    c["pow"] = lambda: x(3, 4).pow(3)
    c["exp2"] = lambda: torch.exp2(x(3, 4))
    for name in ("exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs", "neg", "sin", "cos",
                 "log1p", "expm1", "rsqrt", "reciprocal", "log2", "log10", "square", "sign",
                 "floor", "ceil", "round", "trunc", "frac", "erf"):
        c[name] = (lambda n: lambda: getattr(x(3, 4, lo=0.1, hi=2.0), n)())(name)
    c["round(decimals)"] = lambda: x(3, 4).round(decimals=1)
    c["x + y"] = lambda: x(3, 4) + x(3, 4)
    c["x + 1"] = lambda: x(3, 4) + 1
    c["x - y"] = lambda: x(3, 4) - x(3, 4)
    c["1 - x"] = lambda: 1 - x(3, 4)
    c["x * y"] = lambda: x(3, 4) * x(3, 4)
    c["x * 2"] = lambda: x(3, 4) * 2
    c["x / y"] = lambda: x(3, 4) / x(3, 4, lo=1.0, hi=2.0)
    c["x / 2"] = lambda: x(3, 4) / 2
    c["2 / x"] = lambda: 2 / x(3, 4, lo=1.0, hi=2.0)
    c["-x"] = lambda: -x(3, 4)
    c["repeat"] = lambda: x(2, 3).repeat(2, 1)
    c["roll"] = lambda: x(2, 3).roll(1, 1)
    c["flip"] = lambda: x(2, 3).flip(1)
    c["tril"] = lambda: x(3, 3).tril()
    c["triu"] = lambda: x(3, 3).triu()
    c["diag"] = lambda: torch.diag(x(3, 3))
    c["diag_embed"] = lambda: torch.diag(x(3))
    c["diagonal"] = lambda: x(3, 3).diagonal()
    c["trace"] = lambda: x(3, 3).trace()
    c["to(float64)"] = lambda: x(3, 4).to(torch.float64)
    c["double"] = lambda: x(3, 4).double()
    c["detach_mul"] = lambda: x(3, 4).detach() * x(3, 4)
    c["add_"] = lambda: (x(3, 4) * 1).add_(1)
    c["mul_"] = lambda: (x(3, 4) * 1).mul_(2)
    c["relu_"] = lambda: (x(3, 4) * 1).relu_()

    # --- the ops added for issue 28 (values and gradients: tests/test_more_ops.py) -------------
    for name in ("LogSigmoid", "Softsign", "Tanhshrink", "Mish", "Hardswish", "Hardsigmoid",
                 "SELU", "CELU", "Softmin", "RReLU"):
        c[name] = (lambda m: lambda: getattr(nn, m)()(x(3, 4)))(name)
    c["GLU"] = lambda: nn.GLU()(x(3, 4))
    c["Threshold"] = lambda: nn.Threshold(0.1, 2.0)(x(3, 4))
    c["GroupNorm"] = lambda: nn.GroupNorm(2, 4)(x(2, 4, 3))
    c["InstanceNorm2d"] = lambda: nn.InstanceNorm2d(2)(x(2, 2, 3, 3))
    c["RMSNorm"] = lambda: nn.RMSNorm(4)(x(3, 4))
    c["Upsample"] = lambda: nn.Upsample(scale_factor=2)(x(1, 2, 3, 3))
    c["Upsample_bilinear"] = lambda: nn.Upsample(scale_factor=2, mode="bilinear")(x(1, 2, 3, 3))
    c["PixelShuffle"] = lambda: nn.PixelShuffle(2)(x(1, 4, 2, 2))
    c["PixelUnshuffle"] = lambda: nn.PixelUnshuffle(2)(x(1, 1, 4, 4))
    c["addmm"] = lambda: torch.addmm(x(3, 4), x(3, 2), x(2, 4))
    c["addcmul"] = lambda: torch.addcmul(x(3), x(3), x(3))
    c["lerp"] = lambda: torch.lerp(x(3), x(3), 0.5)
    c["erfinv"] = lambda: torch.erfinv(x(3, lo=-0.5, hi=0.5))
    c["linalg.vector_norm"] = lambda: torch.linalg.vector_norm(x(3, 4))
    c["index_add"] = lambda: x(3, 2).index_add(0, torch.tensor([0, 2]), x(2, 2))
    return c


def grad_fn_names(torch) -> dict[str, dict]:
    """``{label: {"name": ..., "next": [...]}}`` for every case, or ``{"error": ...}`` when the
    call raises (type name only: a case's failure is a fact to record, not a crash)."""
    torch.manual_seed(0)
    out: dict[str, dict] = {}
    for label, call in cases(torch).items():
        try:
            y = call()
        except Exception as e:  # a missing layer or form is recorded, not fatal
            out[label] = {"error": type(e).__name__}
            continue
        if isinstance(y, tuple):
            y = y[0]
        fn = y.grad_fn
        out[label] = {"name": None if fn is None else type(fn).__name__,
                      "next": [] if fn is None else
                      [None if f is None else type(f).__name__ for f, _ in fn.next_functions]}
    return out
