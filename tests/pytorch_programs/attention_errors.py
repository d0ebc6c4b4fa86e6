"""Attention and Transformer misuse (only ``import torch``); its output under PyTorch 2 is in
attention_errors.expected."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def e(f):
    """The builtin exception class and the message (dyngraph may append the user's file:line)."""
    try:
        r = f()
        if isinstance(r, tuple):
            print("OK", [None if t is None else tuple(t.shape) for t in r])
        else:
            print("OK", tuple(r.shape))
    except Exception as ex:
        kind = next(c.__name__ for c in type(ex).__mro__ if c.__module__ == "builtins")
        print(kind, str(ex).split(" (in ")[0])


e(lambda: nn.MultiheadAttention(10, 3))
e(lambda: nn.MultiheadAttention(0, 1))
e(lambda: nn.TransformerEncoderLayer(8, 3))
e(lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"))
e(lambda: nn.TransformerDecoderLayer(8, 2, activation="swish"))

mha = nn.MultiheadAttention(8, 2)
x = torch.randn(5, 3, 8)
kv = torch.randn(4, 3, 8)
e(lambda: mha(x, x, x))
e(lambda: mha(x, kv, kv, need_weights=False))
e(lambda: mha(x, kv, kv, average_attn_weights=False))
e(lambda: mha(x[:, 0], kv[:, 0], kv[:, 0]))
e(lambda: mha(x, x, x, attn_mask=torch.zeros(4, 4)))
e(lambda: mha(x, x, x, attn_mask=torch.zeros(4, 5, 5)))
e(lambda: mha(x, x, x, attn_mask=torch.zeros(1, 3, 5, 5)))
e(lambda: mha(x, x, x, attn_mask=torch.zeros(5, 5, dtype=torch.int64)))
e(lambda: mha(x, x, x, key_padding_mask=torch.zeros(3, 4, dtype=torch.bool)))
e(lambda: mha(x, x, x, key_padding_mask=torch.zeros(2, 5, dtype=torch.bool)))
e(lambda: mha(x, x, x, key_padding_mask=torch.zeros(3, 5, 1, dtype=torch.bool)))
e(lambda: mha(x, x, x, is_causal=True))
e(lambda: mha(x[None], x[None], x[None]))
e(lambda: mha(x, x[:, 0], x[:, 0]))
e(lambda: mha(x[..., :6], x[..., :6], x[..., :6]))
e(lambda: mha(x, kv, x))
e(lambda: mha(x[:, 0], x[:, 0], x[:, 0], attn_mask=torch.zeros(3, 5, 5)))
e(lambda: mha(x[:, 0], x[:, 0], x[:, 0], key_padding_mask=torch.zeros(1, 5, dtype=torch.bool)))
e(lambda: mha(x, x, x, key_padding_mask=torch.zeros(3, 5, dtype=torch.int32)))

q = torch.randn(2, 3, 4, 8)
k = torch.randn(2, 3, 5, 8)
v = torch.randn(2, 3, 5, 8)
sdpa = F.scaled_dot_product_attention
e(lambda: sdpa(q[0, 0, 0], k[0, 0, 0], v[0, 0, 0]))
e(lambda: sdpa(q, k, v.double()))
e(lambda: sdpa(q, k, v, attn_mask=torch.ones(4, 5, dtype=torch.int64)))
e(lambda: sdpa(q, k, v, attn_mask=torch.ones(4, 5, dtype=torch.float64)))
e(lambda: sdpa(q, k, v, dropout_p=1.5))
e(lambda: sdpa(q[0], k[0], v[0], attn_mask=torch.ones(4, 5, dtype=torch.bool), is_causal=True))
e(lambda: sdpa(q, k, v, attn_mask=torch.ones(4, 5, dtype=torch.bool), is_causal=True))
e(lambda: sdpa(q, k, v, attn_mask=torch.ones(3, 5, dtype=torch.bool)))
e(lambda: sdpa(q, k, v, attn_mask=torch.zeros(3, 4, 4, 5)))
e(lambda: sdpa(q[:1], k[:1], v[:1], attn_mask=torch.zeros(2, 3, 4, 5)))
e(lambda: sdpa(q[0], k[0], v[0], attn_mask=torch.zeros(2, 3, 4, 5)))
e(lambda: sdpa(q[0], k[0, :2], v[0, :2]))
e(lambda: sdpa(q, k, v, 0.5))
e(lambda: sdpa(q.long(), k.long(), v.long()))
e(lambda: sdpa(q, k[:, :1], v[:, :1]))
e(lambda: sdpa(q, k, v, scale=0.0))
ones = torch.ones(1, 3, 4)
print(sdpa(ones[:, :2], ones, torch.arange(6.).reshape(1, 3, 2),
           attn_mask=torch.tensor([True, False, True])))

print(nn.Transformer.generate_square_subsequent_mask(3))
print(nn.Transformer.generate_square_subsequent_mask(2, dtype=torch.float64))
t = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                   dim_feedforward=16)
e(lambda: t(torch.randn(5, 2, 8), torch.randn(4, 3, 8)))
e(lambda: t(torch.randn(5, 2, 8), torch.randn(4, 2, 6)))
e(lambda: t(torch.randn(5, 2, 8), torch.randn(4, 2, 8)))
print(t.encoder.layers[0])
print([n for n, _ in t.named_parameters()][:12])
print(len(t.state_dict()), t.decoder.num_layers, t.encoder.use_nested_tensor)
enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2,
                            enable_nested_tensor=False)
print(enc.use_nested_tensor, enc.layers[0].self_attn.batch_first,
      enc.layers[1].activation_relu_or_gelu)

# eval without autograd, batch-first, padding mask: PyTorch's nested-tensor path (zeros at pads)
torch.manual_seed(0)
enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1).eval()
x = torch.randn(2, 3, 8)
kpm = torch.tensor([[False, False, True], [False, False, False]])
torch.backends.mha.set_fastpath_enabled(False)
with torch.no_grad():
    print(enc(x, src_key_padding_mask=kpm)[0, 2].abs().sum() > 0)
torch.backends.mha.set_fastpath_enabled(True)
with torch.no_grad():
    print(enc(x, src_key_padding_mask=kpm)[0, 2], torch.backends.mha.get_fastpath_enabled())
    print(enc(x, src_key_padding_mask=torch.tensor([[0., 0., -1e9], [0., 0., 0.]]))[0, 2])
print(enc(x, src_key_padding_mask=kpm)[0, 2].abs().sum() > 0)
enc.layers[0].train()
with torch.no_grad():
    print(enc(x, src_key_padding_mask=kpm)[0, 2].abs().sum() > 0)
layer = nn.TransformerEncoderLayer(8, 2, 16, dtype=torch.float64)
print(layer.norm1.weight.dtype, layer.linear1.weight.dtype, layer.self_attn.in_proj_weight.dtype)
