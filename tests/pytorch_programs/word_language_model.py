"""pytorch/examples' word_language_model (LSTM) on synthetic tokens (only ``import torch``).

RNNModel (Embedding -> LSTM -> Linear with tied weights), init_weights, batchify,
get_batch, repackage_hidden, clip_grad_norm_, a hand-written SGD step, evaluation
under no_grad, and the example's whole-model checkpoint: ``torch.save(model, f)``
into an open file, ``torch.load(f, weights_only=False)`` back, and the reloaded
model evaluated again.
"""
import io
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt=8):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


torch.manual_seed(1111)
ntokens = 50
# A synthetic "corpus": token i+1 tends to follow token i, so there is something to learn.
steps = torch.randint(0, 3, (1200,))
corpus = torch.cumsum(steps, 0) % ntokens
train_data = batchify(corpus[:960], 6)
val_data = batchify(corpus[960:], 4)
print("train", tuple(train_data.shape), train_data.dtype, "val", tuple(val_data.shape))

# float64, so that the printed digits do not depend on float32 summation order
model = RNNModel('LSTM', ntokens, 16, 16, 2, dropout=0.2, tie_weights=True).double()
print(model)
print(model.decoder.weight is model.encoder.weight,
      sum(p.numel() for p in model.parameters()))
criterion = nn.NLLLoss()
bptt, clip = 8, 0.25


def evaluate(model, data_source, eval_batch_size):
    model.eval()
    total_loss = 0.
    hidden = model.init_hidden(eval_batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train(lr, epoch):
    model.train()
    total_loss = 0.
    hidden = model.init_hidden(6)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i, bptt)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
        if batch % 5 == 4:
            cur_loss = total_loss / 5
            print('| epoch {:3d} | {:5d}/{:5d} batches | lr {:02.2f} | grad norm {:6.3f} | '
                  'loss {:5.3f} | ppl {:8.3f}'.format(epoch, batch + 1, len(train_data) // bptt,
                                                     lr, norm.item(), cur_loss,
                                                     math.exp(cur_loss)))
            total_loss = 0


lr = 20.0
best_val_loss = None
save = os.path.join(tempfile.mkdtemp(), "model.pt")
for epoch in range(1, 4):
    train(lr, epoch)
    val_loss = evaluate(model, val_data, 4)
    print('| end of epoch {:3d} | valid loss {:5.3f} | valid ppl {:8.3f}'.format(
        epoch, val_loss, math.exp(val_loss)))
    if not best_val_loss or val_loss < best_val_loss:
        with open(save, 'wb') as f:
            torch.save(model, f)
        best_val_loss = val_loss
    else:
        lr /= 4.0

# Load the best saved model.  PyTorch 2.6+ needs weights_only=False for a whole module.
with open(save, 'rb') as f:
    try:
        torch.load(f)
    except Exception as e:
        print(type(e).__name__, str(e)[:24])
with open(save, 'rb') as f:
    model = torch.load(f, weights_only=False)
    model.rnn.flatten_parameters()
print(type(model).__name__, model.training, model.rnn_type, model.nhid, model.nlayers,
      model.decoder.weight is model.encoder.weight)
test_loss = evaluate(model, val_data, 4)
print('| End of training | test loss {:5.3f} | test ppl {:8.3f} | same as best {}'.format(
    test_loss, math.exp(test_loss), abs(test_loss - best_val_loss) < 1e-6))

# The same round trip through memory, mapped to the CPU.
buffer = io.BytesIO()
torch.save(model, buffer)
buffer.seek(0)
again = torch.load(buffer, map_location=torch.device('cpu'), weights_only=False)
print(all(torch.equal(a, b) for a, b in zip(model.state_dict().values(),
                                            again.state_dict().values())),
      [k for k in again.state_dict()][:3])
hidden = again.init_hidden(1)
with torch.no_grad():
    output, hidden = again(val_data[:12, :1], hidden)
print("input    ", val_data[:12, 0].tolist())
print("predicted", output.argmax(dim=1).tolist())
