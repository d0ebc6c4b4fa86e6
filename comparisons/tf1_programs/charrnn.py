import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()

text = "hello world, this is a tiny char rnn corpus. hello again!"
chars = sorted(set(text))
vocab = len(chars)
idx = {c: i for i, c in enumerate(chars)}
data = np.array([idx[c] for c in text], dtype=np.int32)
batch, steps, hidden = 4, 10, 16
rng = np.random.RandomState(0)

inputs = tf.placeholder(tf.int32, [None, None], name="inputs")
targets = tf.placeholder(tf.int32, [None, None], name="targets")
lengths = tf.placeholder(tf.int32, [None], name="lengths")
print(inputs, lengths)

with tf.variable_scope("embedding"):
    emb = tf.get_variable("emb", [vocab, 8], initializer=tf.random_uniform_initializer(-0.1, 0.1))
x = tf.nn.embedding_lookup(emb, inputs)
print(x)
cell = tf.nn.rnn_cell.LSTMCell(hidden)
print(cell.state_size, cell.output_size)
init_state = cell.zero_state(tf.shape(inputs)[0], tf.float32)
print(init_state)
outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, initial_state=init_state)
print(outputs)
print(state)
logits = tf.layers.dense(outputs, vocab, name="proj")
print(logits)
mask = tf.sequence_mask(lengths, tf.shape(inputs)[1], dtype=tf.float32)
print(mask)
xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits)
print(xent)
loss = tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)
print(loss)
tvars = tf.trainable_variables()
for v in tvars:
    print(v)
grads, norm = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
print(norm)
print([g.shape for g in grads])
train = tf.train.AdamOptimizer(0.01).apply_gradients(zip(grads, tvars))
print(train.name)
pred = tf.argmax(logits, axis=-1, output_type=tf.int32)
print(pred)

def batchify():
    starts = rng.randint(0, len(data) - steps - 1, size=batch)
    xs = np.stack([data[s:s + steps] for s in starts])
    ys = np.stack([data[s + 1:s + steps + 1] for s in starts])
    ls = rng.randint(steps // 2, steps + 1, size=batch).astype(np.int32)
    return xs, ys, ls

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    losses = []
    for i in range(60):
        xs, ys, ls = batchify()
        l, _ = sess.run([loss, train], {inputs: xs, targets: ys, lengths: ls})
        losses.append(l)
    print("loss decreased:", losses[-1] < losses[0])
    xs, ys, ls = batchify()
    o, s, m = sess.run([outputs, state, mask], {inputs: xs, targets: ys, lengths: ls})
    print(o.shape, type(s).__name__, s.c.shape, s.h.shape, m.shape, m.dtype)
    print("padded outputs are zero:", all(np.all(o[b, ls[b]:] == 0) for b in range(batch)))
    print("final h is last valid output:", np.allclose(s.h, o[np.arange(batch), ls - 1]))
