"""PyTorch's word-level language model with a Transformer encoder (the "Language Modeling with
nn.Transformer" tutorial and examples/word_language_model's TransformerModel), on synthetic
token data (only ``import torch``); its output under PyTorch 2 is in the .expected file."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import TransformerEncoder, TransformerEncoderLayer


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


class TransformerModel(nn.Module):
    def __init__(self, ntoken, d_model, nhead, d_hid, nlayers, dropout=0.5):
        super().__init__()
        self.model_type = 'Transformer'
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)
        self.init_weights()

    def init_weights(self):
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src, src_mask=None):
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        output = self.transformer_encoder(src, src_mask)
        return self.linear(output)


class WLMTransformerModel(nn.Transformer):
    """examples/word_language_model/model.py: an nn.Transformer whose decoder is a Linear."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                         num_encoder_layers=nlayers)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)
        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        if has_mask:
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                self.src_mask = self._generate_square_subsequent_mask(len(src))
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


def batchify(data, bsz):
    seq_len = data.size(0) // bsz
    data = data[:seq_len * bsz]
    return data.view(bsz, seq_len).t().contiguous()


bptt = 8


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].reshape(-1)
    return data, target


# synthetic "corpus": a noisy repeating pattern over 40 word ids
rng = np.random.default_rng(0)
ids = (np.arange(600) * 7 + rng.integers(0, 3, 600)) % 40
ntokens = 40
train_data = batchify(torch.tensor(ids[:480]), 4)
val_data = batchify(torch.tensor(ids[480:]), 2)
print(train_data.shape, val_data.shape, train_data.dtype)

torch.manual_seed(0)
model = TransformerModel(ntokens, 16, 2, 32, 2, dropout=0.2)
print(sum(p.numel() for p in model.parameters()), model.transformer_encoder.layers[1].linear1)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)


def evaluate(model, eval_data):
    model.eval()
    total_loss = 0.
    with torch.no_grad():
        for i in range(0, eval_data.size(0) - 1, bptt):
            data, targets = get_batch(eval_data, i)
            seq_len = data.size(0)
            output = model(data)
            output_flat = output.view(-1, ntokens)
            total_loss += seq_len * criterion(output_flat, targets).item()
    return total_loss / (len(eval_data) - 1)


for epoch in range(1, 3):
    model.train()
    losses = []
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        output = model(data)
        output_flat = output.view(-1, ntokens)
        loss = criterion(output_flat, targets)
        optimizer.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        losses.append(f"{loss.item():.4f}/{norm.item():.3f}")
    scheduler.step()
    val_loss = evaluate(model, val_data)
    print(f"epoch {epoch} lr {scheduler.get_last_lr()[0]:.4f}", " ".join(losses))
    print(f"  valid loss {val_loss:.4f} ppl {math.exp(val_loss):.3f}")

# examples/word_language_model: nn.Transformer subclass, log_softmax + NLLLoss, manual SGD
torch.manual_seed(1)
wlm = WLMTransformerModel(ntokens, 16, 2, 32, 1, dropout=0.2)
print(sorted({k.split('.')[0] for k in wlm.state_dict()}), len(wlm.state_dict()))
nll = nn.NLLLoss()
lr = 2.0
wlm.train()
for batch, i in enumerate(range(0, 40, bptt)):
    data, targets = get_batch(train_data, i)
    wlm.zero_grad()
    output = wlm(data).view(-1, ntokens)
    loss = nll(output, targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(wlm.parameters(), 0.25)
    for p in wlm.parameters():
        if p.grad is not None:
            p.data.add_(p.grad, alpha=-lr)
    print(batch, f"{loss.item():.4f}", wlm.src_mask.shape)
