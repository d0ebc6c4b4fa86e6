import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()

tf.set_random_seed(2024)
data = tf.Variable(tf.random_normal([64, 10]), trainable=False, name="data")
labels = tf.cast(tf.reduce_sum(data[:, :3], axis=1) > 0.0, tf.int64)


def dense(x, units, name, activation=None, initializer=None):
    with tf.variable_scope(name):
        w = tf.get_variable("kernel", [x.shape[-1], units], initializer=initializer)
        b = tf.get_variable("bias", [units], initializer=tf.zeros_initializer())
        y = tf.matmul(x, w) + b
        return activation(y) if activation else y


hidden = dense(data, 32, "hidden", tf.nn.relu)                       # glorot_uniform
hidden = tf.nn.dropout(hidden, rate=0.25)                            # a new mask every step
logits = dense(hidden, 2, "out", initializer=tf.truncated_normal_initializer(stddev=0.3))
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)

weights = {v.op.name: v for v in tf.trainable_variables()}

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print("data[0, :4]          ", np.round(sess.run(data)[0, :4], 6))
    print("hidden/kernel[0, :4] ", np.round(sess.run(weights["hidden/kernel"])[0, :4], 6))
    print("out/kernel[:4, 0]    ", np.round(sess.run(weights["out/kernel"])[:4, 0], 6))
    for step in range(10):
        _, value = sess.run([train, loss])
        print(f"step {step}: loss {value:.6f}")
