"""A classic TF1 training script -- variable scopes, collections, seeded random init, tf.data,
losses, a decaying learning rate and a Session loop -- that runs on staticgraph unchanged.

Swap the import for ``import tensorflow.compat.v1 as tf; tf.disable_eager_execution()`` and
the same text runs on TensorFlow 2.x: the same names, the same initial weights and batches (the
random ops and the shuffle draw TF's streams), and losses equal to TF 2.21's but for the last
bits of the training arithmetic itself (BLAS sums, Adam's steps: ~1e-4 in the mse at step 160).

    python -m comparisons.tf1_classic
"""
from __future__ import annotations

import numpy as np

import staticgraph as tf

SCRIPT = __doc__


def dense(x, units, name, activation=None):
    """One layer, TF1 style: variables made (or reused) by name inside a variable_scope."""
    with tf.variable_scope(name):
        w = tf.get_variable("kernel", [x.shape[-1], units],
                            initializer=tf.glorot_uniform_initializer())
        b = tf.get_variable("bias", [units], initializer=tf.zeros_initializer())
        y = tf.nn.bias_add(tf.matmul(x, w), b)
        return activation(y) if activation else y


def main(epochs: int = 20, verbose: bool = True) -> dict:
    tf.reset_default_graph()
    tf.set_random_seed(0)
    rng = np.random.RandomState(0)
    x_data = rng.randn(256, 4).astype(np.float32)
    y_data = (x_data @ np.array([[1.0], [-2.0], [0.5], [3.0]]) + 0.1).astype(np.float32)

    dataset = (tf.data.Dataset.from_tensor_slices((x_data, y_data))
               .shuffle(256, seed=1).batch(32).repeat(epochs))
    x, y = dataset.make_one_shot_iterator().get_next()

    with tf.variable_scope("model", regularizer=lambda w: 1e-4 * tf.nn.l2_loss(w)):
        h = dense(x, 16, "hidden", tf.nn.relu)
        pred = dense(h, 1, "out")
    mse = tf.losses.mean_squared_error(y, pred)
    loss = tf.losses.get_total_loss()

    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.05, step, decay_steps=100, decay_rate=0.5)
    train = tf.train.AdamOptimizer(lr).minimize(loss, global_step=step)

    if verbose:
        print([v.name for v in tf.trainable_variables()])
        print([t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)])
    history = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        while True:
            try:
                _, m, s = sess.run([train, mse, step])
            except tf.errors.OutOfRangeError:
                break
            history.append(float(m))
            if verbose and s % 40 == 0:
                print(f"step {s:3d}  mse {m:.4f}  lr {sess.run(lr):.4f}")
    return {"steps": len(history), "first": history[0], "last": history[-1],
            "trainable": [v.name for v in tf.trainable_variables()]}


if __name__ == "__main__":
    main()
