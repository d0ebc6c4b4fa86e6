"""cnn: the same small convolutional classifier trained in both engines, step by step.

Run: ``python -m comparisons.cnn [--out DIR]``.

Two conv + max-pool blocks, a dense layer with dropout, a dense head; a few SGD steps on
synthetic 28x28 images, from identical initial weights.  PyTorch's layout is NCHW with
``(out, in, kh, kw)`` filters, TF's is NHWC with ``(kh, kw, in, out)`` filters, so the
weights are transposed once between them -- and the first dense layer's rows reordered,
since flattening a NCHW map lists channels first and a NHWC map lists them last.

Dropout's masks are fed to both: one ``(batch, 32)`` mask per step, drawn here, multiplies
the dense layer's output in each program.  Each engine's own dropout draws as its
framework does -- PyTorch's Mersenne Twister, TF's Philox -- so, like the real PyTorch and
TF, two seeded programs would drop different units; with the masks shared, the losses
must agree step by step.
"""
from __future__ import annotations

import dyngraph as torch
import numpy as np
import staticgraph as tf

from .sidebyside import agree, columns, draw_static, facts, heading, parse_args, recorded_summary, show_programs, static_summary

__all__ = ["main"]

STEPS, BATCH, LR = 4, 8, 0.05
RNG = np.random.default_rng(0)
IMAGES = RNG.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
LABELS = (IMAGES[:, 0, :14].mean(axis=(1, 2)) > IMAGES[:, 0, 14:].mean(axis=(1, 2))).astype(np.int64)


def _init(*shape):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    return (RNG.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


# PyTorch layouts; the TF program gets the same numbers transposed (see tf_weights)
WEIGHTS = [_init(8, 1, 3, 3), np.zeros(8, np.float32), _init(16, 8, 3, 3), np.zeros(16, np.float32),
           _init(32, 16 * 7 * 7), np.zeros(32, np.float32), _init(10, 32), np.zeros(10, np.float32)]
DROP = 0.5
MASKS = ((RNG.random((STEPS, BATCH, 32)) >= DROP) / (1 - DROP)).astype(np.float32)
"""Inverted-dropout masks, one per step: 0 (dropped) or 1/(1 - DROP) (kept)."""


def tf_weights(w):
    """HWIO filters, ``(in, out)`` dense matrices, the first one's rows in (h, w, c) order."""
    c1, b1, c2, b2, d1, e1, d2, e2 = w
    d1 = d1.reshape(32, 16, 7, 7).transpose(2, 3, 1, 0).reshape(-1, 32)
    return [c1.transpose(2, 3, 1, 0), b1, c2.transpose(2, 3, 1, 0), b2, d1, e1, d2.T, e2]


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc1 = torch.nn.Linear(16 * 7 * 7, 32)
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x, mask):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        x = torch.relu(self.fc1(x.flatten(1))) * mask   # dropout, with the mask given
        return self.fc2(x)


def eager_training(images, labels, steps):
    net = Net()
    net.load_state_dict(dict(zip(net.state_dict(), map(torch.tensor, WEIGHTS))))
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    x, y = torch.tensor(images), torch.tensor(labels)
    losses = []
    for step in range(steps):
        loss = torch.nn.functional.cross_entropy(net(x, torch.tensor(MASKS[step])), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, loss


def static_graph(weights):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (None, 28, 28, 1), name="x")
        y = tf.placeholder(tf.int64, (None,), name="y")
        mask = tf.placeholder(tf.float32, (None, 32), name="mask")
        c1, b1, c2, b2, d1, e1, d2, e2 = [tf.Variable(w) for w in weights]
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, c1, 1, "SAME"), b1))
        h = tf.nn.max_pool(h, 2, 2, "VALID")
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, c2, 1, "SAME"), b2))
        h = tf.nn.max_pool(h, 2, 2, "VALID")
        h = tf.nn.relu(tf.matmul(tf.reshape(h, (-1, 7 * 7 * 16)), d1) + e1)
        h = h * mask                                    # dropout, with the mask fed
        logits = tf.matmul(h, d2) + e2
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.train.GradientDescentOptimizer(LR).minimize(loss)
    return g, x, y, mask, loss, train


def static_training(images, labels, steps):
    g, x, y, mask, loss, train = static_graph(tf_weights(WEIGHTS))
    feed = {x: images.transpose(0, 2, 3, 1), y: labels}
    with g.as_default():
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        losses = [float(sess.run([train, loss], {**feed, mask: MASKS[step]})[1])
                  for step in range(steps)]
    return losses, g


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    heading(f"conv-pool, conv-pool, dense + dropout, dense: {STEPS} SGD steps, batch {BATCH}")
    show_programs((Net, eager_training), (static_graph, static_training))
    eager, last = eager_training(IMAGES, LABELS, STEPS)
    static, g = static_training(IMAGES, LABELS, STEPS)
    print()
    columns([(f"step {k} loss", f"{a:.6f}", f"{b:.6f}") for k, (a, b) in enumerate(zip(eager, static))])
    draw_static(args.out, "cnn_static", g, "staticgraph: the CNN train step")
    facts([f"CNN training: losses step by step {agree(list(zip(eager, static)))}, from the same "
           f"initial weights and the same dropout masks.",
           f"dyngraph recorded {recorded_summary(last)} on every one of the {STEPS} passes "
           f"(and threw it away after backward); staticgraph built {static_summary(g)} once "
           f"(forward, gradients, SGD updates, variable plumbing) and ran that plan {STEPS} times.",
           "Layouts: dyngraph runs NCHW tensors with (out, in, kh, kw) filters, staticgraph NHWC "
           "with (kh, kw, in, out) -- the same registry ops, told their layout by an attribute."])


if __name__ == "__main__":
    main()
