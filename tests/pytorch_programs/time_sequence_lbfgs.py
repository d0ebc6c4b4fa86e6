"""PyTorch's "time sequence prediction" example (pytorch/examples), scaled down (only
``import torch``): two stacked LSTMCells in float64 learn sine waves, trained with
``LBFGS(lr=0.8)`` and a closure that prints the loss at every evaluation; after each step the
model predicts past the end of the test waves.  A second run uses the strong-Wolfe line search."""
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

HIDDEN = 10


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, HIDDEN)
        self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
        self.linear = nn.Linear(HIDDEN, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def waves(T=4, L=16, N=8):
    np.random.seed(2)
    x = np.empty((N, L), 'int64')
    x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    return np.sin(x / 1.0 / T).astype('float64')


def train(line_search_fn, steps=2):
    np.random.seed(0)
    torch.manual_seed(0)
    data = waves()
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    seq = Sequence()
    seq.double()
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=8,
                            line_search_fn=line_search_fn)
    for i in range(steps):
        print('STEP: ', i)

        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print('loss: %.7f' % loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            future = 5
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print('test loss: %.7f' % loss.item())
            y = pred.detach().numpy()
        print('prediction:', np.round(y[0, -future:], 4).tolist())
    state = optimizer.state_dict()['state'][0]
    print('func_evals', state['func_evals'], 'n_iter', state['n_iter'],
          'history', len(state['old_dirs']))


train(None)
train('strong_wolfe')
