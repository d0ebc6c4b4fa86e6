"""Attention and Transformer cases run on real PyTorch (recorded) and on dyngraph (checked).

Each case is a function of the ``torch`` module (PyTorch or dyngraph) returning a ``Case``:
how to build the model (seeded), its inputs, and how to call it.  ``run`` executes one case
and returns every array worth comparing, keyed by name:

- ``init/<key>``: the state_dict right after ``torch.manual_seed(seed)`` and construction
  (PyTorch's initialisation order, draw for draw);
- ``state/<key>``: the state that is then loaded -- the initial one plus numpy noise, so
  biases and norms are not at their trivial values (the recorder makes it; the check loads
  PyTorch's file through ``load_state_dict``);
- ``out/<i>``: the outputs (``None`` outputs are recorded as absent);
- ``grad/<name>``: gradients of ``sum(out0 * R)`` (``R`` fixed random) for every
  parameter and every input that requires grad.

``tests/fixtures/record_transformer.py`` records ``transformer.npz`` with PyTorch;
``tests/test_dyngraph_transformer.py`` replays every case on dyngraph against it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Case:
    build: Callable            # () -> Module or None (a functional case)
    inputs: dict               # name -> np.ndarray (float ones get requires_grad if in `grad`)
    call: Callable             # (model, tensors) -> output or tuple of outputs
    train: bool = False
    grad: tuple = ()           # input names that require grad
    seed: int = 0              # manual_seed before construction
    forward_seed: int | None = None   # manual_seed before the forward pass (dropout draws)
    no_grad: bool = False      # run the forward under torch.no_grad() (no gradients)
    extra: dict = field(default_factory=dict)


def _x(seed: int, *shape) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _bool(seed: int, *shape, p: float = 0.7) -> np.ndarray:
    return np.random.default_rng(seed).random(shape) < p


def _padding(lengths, total) -> np.ndarray:
    """True at padded positions (PyTorch's key_padding_mask convention)."""
    return np.arange(total)[None, :] >= np.asarray(lengths)[:, None]


# --- functional attention ----------------------------------------------------------------------

def sdpa_plain(torch):
    F = torch.nn.functional
    return Case(None, dict(q=_x(1, 2, 3, 4, 8), k=_x(2, 2, 3, 5, 8), v=_x(3, 2, 3, 5, 6)),
                lambda m, t: F.scaled_dot_product_attention(t["q"], t["k"], t["v"]),
                grad=("q", "k", "v"))


def sdpa_bool_mask_dead_row(torch):
    F = torch.nn.functional
    mask = _bool(4, 4, 5)
    mask[1] = False                                  # a query row that may attend to nothing
    return Case(None, dict(q=_x(1, 3, 4, 8), k=_x(2, 3, 5, 8), v=_x(3, 3, 5, 8), mask=mask),
                lambda m, t: F.scaled_dot_product_attention(t["q"], t["k"], t["v"],
                                                            attn_mask=t["mask"]),
                grad=("q", "k", "v"))


def sdpa_float_mask_scale(torch):
    F = torch.nn.functional
    return Case(None, dict(q=_x(1, 2, 4, 8), k=_x(2, 2, 6, 8), v=_x(3, 2, 6, 8),
                           mask=_x(5, 4, 6)),
                lambda m, t: F.scaled_dot_product_attention(t["q"], t["k"], t["v"], t["mask"],
                                                            scale=0.3),
                grad=("q", "k", "v", "mask"))


def sdpa_causal_negative_scale(torch):
    F = torch.nn.functional
    return Case(None, dict(q=_x(1, 5, 4), k=_x(2, 5, 4), v=_x(3, 5, 4)),
                lambda m, t: F.scaled_dot_product_attention(t["q"], t["k"], t["v"],
                                                            is_causal=True, scale=-0.5),
                grad=("q", "k", "v"))


def sdpa_causal_and_mask(torch):
    F = torch.nn.functional
    return Case(None, dict(q=_x(1, 1, 2, 4, 8), k=_x(2, 1, 2, 4, 8), v=_x(3, 1, 2, 4, 8),
                           mask=_bool(6, 4, 4, p=0.8)),
                lambda m, t: F.scaled_dot_product_attention(t["q"], t["k"], t["v"], t["mask"],
                                                            is_causal=True),
                grad=("q", "k", "v"))


def sdpa_gqa(torch):
    F = torch.nn.functional
    return Case(None, dict(q=_x(1, 2, 4, 3, 8), k=_x(2, 2, 2, 5, 8), v=_x(3, 2, 2, 5, 8)),
                lambda m, t: F.scaled_dot_product_attention(t["q"], t["k"], t["v"],
                                                            enable_gqa=True),
                grad=("q", "k", "v"))


def sdpa_dropout(torch):
    F = torch.nn.functional
    return Case(None, dict(q=_x(1, 2, 3, 4, 8), k=_x(2, 2, 3, 5, 8), v=_x(3, 2, 3, 5, 8)),
                lambda m, t: F.scaled_dot_product_attention(t["q"], t["k"], t["v"],
                                                            dropout_p=0.3),
                grad=("q", "k", "v"), forward_seed=7)


def dropout_transposed(torch):
    """A transposed (dense, permuted) input: PyTorch draws the mask in memory order."""
    F = torch.nn.functional
    return Case(None, dict(x=_x(1, 4, 3, 5)),
                lambda m, t: F.dropout(t["x"].transpose(0, 1), 0.4), grad=("x",), forward_seed=2)


# --- MultiheadAttention ------------------------------------------------------------------------

def _mha(torch, *args, **kwargs):
    return lambda: torch.nn.MultiheadAttention(*args, **kwargs)


def mha_self_weights(torch):
    return Case(_mha(torch, 8, 2), dict(x=_x(1, 5, 3, 8)),
                lambda m, t: m(t["x"], t["x"], t["x"]), grad=("x",))


def mha_cross_masks(torch):
    kpm = _padding([4, 2, 3], 4)
    return Case(_mha(torch, 8, 4), dict(q=_x(1, 5, 3, 8), kv=_x(2, 4, 3, 8), kpm=kpm,
                                        am=_bool(3, 5, 4, p=0.3)),
                lambda m, t: m(t["q"], t["kv"], t["kv"], key_padding_mask=t["kpm"],
                               attn_mask=t["am"], average_attn_weights=False),
                grad=("q", "kv"), seed=1)


def mha_float_3d_mask_no_weights(torch):
    return Case(_mha(torch, 6, 3, batch_first=True),
                dict(q=_x(1, 2, 4, 6), k=_x(2, 2, 5, 6), v=_x(3, 2, 5, 6), am=_x(4, 6, 4, 5)),
                lambda m, t: m(t["q"], t["k"], t["v"], attn_mask=t["am"], need_weights=False),
                grad=("q", "k", "v"), seed=2)


def mha_kdim_vdim_bias_kv_zero_attn(torch):
    return Case(_mha(torch, 8, 2, kdim=5, vdim=3, add_bias_kv=True, add_zero_attn=True),
                dict(q=_x(1, 4, 2, 8), k=_x(2, 6, 2, 5), v=_x(3, 6, 2, 3),
                     kpm=_padding([6, 4], 6)),
                lambda m, t: m(t["q"], t["k"], t["v"], key_padding_mask=t["kpm"]),
                grad=("q", "k", "v"), seed=3)


def mha_no_bias_unbatched_causal(torch):
    mask = np.triu(np.ones((5, 5), bool), 1)
    return Case(_mha(torch, 8, 2, bias=False), dict(x=_x(1, 5, 8), am=mask),
                lambda m, t: m(t["x"], t["x"], t["x"], attn_mask=t["am"], is_causal=True,
                               need_weights=False),
                grad=("x",), seed=4)


def mha_train_dropout(torch):
    return Case(_mha(torch, 8, 2, dropout=0.25, batch_first=True), dict(x=_x(1, 2, 5, 8)),
                lambda m, t: m(t["x"], t["x"], t["x"]), grad=("x",), train=True, seed=5,
                forward_seed=11)


def mha_train_dropout_no_weights(torch):
    return Case(_mha(torch, 8, 2, dropout=0.25), dict(x=_x(1, 5, 2, 8)),
                lambda m, t: m(t["x"], t["x"], t["x"], need_weights=False), grad=("x",),
                train=True, seed=6, forward_seed=12)


# --- Transformer layers ------------------------------------------------------------------------

def encoder_layer_eval(torch):
    return Case(lambda: torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16),
                dict(x=_x(1, 5, 3, 8), kpm=_padding([5, 3, 4], 5)),
                lambda m, t: m(t["x"], src_key_padding_mask=t["kpm"]), grad=("x",))


def encoder_layer_gelu_norm_first_train(torch):
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    return Case(lambda: torch.nn.TransformerEncoderLayer(8, 4, 12, dropout=0.0, activation="gelu",
                                                         batch_first=True, norm_first=True),
                dict(x=_x(1, 2, 5, 8)),
                lambda m, t: m(t["x"], src_mask=mask, is_causal=True), grad=("x",), train=True,
                seed=1)


def encoder_layer_train_dropout(torch):
    return Case(lambda: torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2,
                                                         activation=torch.nn.functional.tanh),
                dict(x=_x(1, 4, 3, 8)), lambda m, t: m(t["x"]), grad=("x",), train=True, seed=2,
                forward_seed=3)


def encoder_stack_norm(torch):
    def build():
        layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        return torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(8))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(6)
    return Case(build, dict(x=_x(1, 3, 6, 8)), lambda m, t: m(t["x"], mask=mask), grad=("x",),
                seed=3)


def encoder_stack_nested_eval(torch):
    """Eval, no autograd, padding mask: PyTorch's nested-tensor path zeroes padded rows."""
    def build():
        layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        return torch.nn.TransformerEncoder(layer, 2)
    return Case(build, dict(x=_x(1, 3, 6, 8), kpm=_padding([6, 2, 4], 6)),
                lambda m, t: m(t["x"], src_key_padding_mask=t["kpm"]), seed=4, no_grad=True)


def decoder_stack(torch):
    def build():
        layer = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
        return torch.nn.TransformerDecoder(layer, 2, norm=torch.nn.LayerNorm(8))
    tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    return Case(build, dict(tgt=_x(1, 4, 2, 8), mem=_x(2, 6, 2, 8), mkpm=_padding([6, 3], 6)),
                lambda m, t: m(t["tgt"], t["mem"], tgt_mask=tgt_mask,
                               memory_key_padding_mask=t["mkpm"]),
                grad=("tgt", "mem"), train=True, seed=5)


def decoder_layer_norm_first_dropout(torch):
    return Case(lambda: torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.3, norm_first=True,
                                                         batch_first=True),
                dict(tgt=_x(1, 2, 4, 8), mem=_x(2, 2, 3, 8)),
                lambda m, t: m(t["tgt"], t["mem"], tgt_is_causal=False),
                grad=("tgt", "mem"), train=True, seed=6, forward_seed=4)


def transformer_full(torch):
    build = lambda: torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2,  # noqa: E731
                                         num_decoder_layers=1, dim_feedforward=16, dropout=0.1)
    tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    return Case(build, dict(src=_x(1, 5, 2, 8), tgt=_x(2, 4, 2, 8)),
                lambda m, t: m(t["src"], t["tgt"], tgt_mask=tgt_mask), grad=("src", "tgt"),
                seed=7)


def transformer_full_train_dropout(torch):
    build = lambda: torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,  # noqa: E731
                                         num_decoder_layers=1, dim_feedforward=16, dropout=0.2,
                                         batch_first=True)
    return Case(build, dict(src=_x(1, 2, 5, 8), tgt=_x(2, 2, 4, 8)),
                lambda m, t: m(t["src"], t["tgt"], tgt_is_causal=True,
                               tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(4)),
                grad=("src", "tgt"), train=True, seed=8, forward_seed=9)


CASES = {f.__name__: f for f in (
    sdpa_plain, sdpa_bool_mask_dead_row, sdpa_float_mask_scale, sdpa_causal_negative_scale,
    sdpa_causal_and_mask, sdpa_gqa, sdpa_dropout, dropout_transposed, mha_self_weights,
    mha_cross_masks, mha_float_3d_mask_no_weights, mha_kdim_vdim_bias_kv_zero_attn,
    mha_no_bias_unbatched_causal, mha_train_dropout, mha_train_dropout_no_weights,
    encoder_layer_eval, encoder_layer_gelu_norm_first_train, encoder_layer_train_dropout,
    encoder_stack_norm, encoder_stack_nested_eval, decoder_stack, decoder_layer_norm_first_dropout,
    transformer_full, transformer_full_train_dropout)}


def _noisy(state: dict, seed: int) -> dict:
    """The initial state plus N(0, 0.1) noise (so nothing sits at a trivial value)."""
    rng = np.random.default_rng(1000 + seed)
    return {k: (v + 0.1 * rng.standard_normal(v.shape)).astype(v.dtype) if v.dtype.kind == "f"
            else v for k, v in state.items()}


def run(torch, name: str, state: dict | None = None) -> dict[str, np.ndarray]:
    """Run case ``name`` on ``torch``; load ``state`` (or make one: init plus noise)."""
    case = CASES[name](torch)
    out: dict[str, np.ndarray] = {}
    model = None
    if case.build is not None:
        torch.manual_seed(case.seed)
        model = case.build()
        init = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
        out.update({f"init/{k}": v for k, v in init.items()})
        state = _noisy(init, case.seed) if state is None else state
        out.update({f"state/{k}": v for k, v in state.items()})
        model.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
        model.train(case.train)
    tensors = {k: torch.tensor(v, requires_grad=k in case.grad) for k, v in case.inputs.items()}
    if case.forward_seed is not None:
        torch.manual_seed(case.forward_seed)
    if case.no_grad:
        with torch.no_grad():
            result = case.call(model, tensors)
    else:
        result = case.call(model, tensors)
    result = result if isinstance(result, tuple) else (result,)
    for i, r in enumerate(result):
        if r is not None:
            out[f"out/{i}"] = r.detach().numpy().copy()
    if case.no_grad:
        return out
    weights = np.random.default_rng(99).standard_normal(result[0].shape).astype(np.float32)
    (result[0] * torch.tensor(weights)).sum().backward()
    named = dict(model.named_parameters()) if model is not None else {}
    named.update({k: tensors[k] for k in case.grad})
    for k, t in named.items():
        if t.grad is not None:
            out[f"grad/{k}"] = t.grad.numpy().copy()
    return out
