import os
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()

rng = np.random.RandomState(3)
X_data = rng.randn(256, 4).astype(np.float32)
y_data = (X_data @ np.array([1.5, -2.0, 0.5, 1.0], np.float32) > 0.2).astype(np.int64)
X_eval, y_eval = X_data[:64], y_data[:64]

x = tf.placeholder(tf.float32, [None, 4], name="x")
y = tf.placeholder(tf.int64, [None], name="y")
w0 = np.linspace(-0.5, 0.5, 4 * 8, dtype=np.float32).reshape(4, 8)
w1 = np.linspace(0.3, -0.3, 8 * 2, dtype=np.float32).reshape(8, 2)
with tf.variable_scope("classifier"):
    h = tf.layers.dense(x, 8, activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(w0),
                        kernel_regularizer=tf.keras.regularizers.l2(1e-3))
    logits = tf.layers.dense(h, 2, kernel_initializer=tf.constant_initializer(w1),
                             kernel_regularizer=tf.keras.regularizers.l2(1e-3))
print(logits)
print(tf.losses.get_regularization_losses())
xent = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
loss = tf.losses.get_total_loss()
print(xent, loss, tf.losses.get_regularization_loss())

global_step = tf.train.get_or_create_global_step()
step = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=global_step)
ema = tf.train.ExponentialMovingAverage(0.9, num_updates=global_step)
with tf.control_dependencies([step]):
    train_op = ema.apply(tf.trainable_variables())
print(train_op.name, train_op.type)
print([ema.average(v).name for v in tf.trainable_variables()])
print([v.name for v in tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES)])

pred = tf.argmax(logits, 1)
prob = tf.nn.softmax(logits)[:, 1]
with tf.name_scope("eval"):
    acc, acc_up = tf.metrics.accuracy(y, pred)
    prec, prec_up = tf.metrics.precision(y, pred)
    rec, rec_up = tf.metrics.recall(y, pred)
    auc, auc_up = tf.metrics.auc(y, prob, num_thresholds=50)
    mloss, mloss_up = tf.metrics.mean(xent)
updates = tf.group(acc_up, prec_up, rec_up, auc_up, mloss_up)
print(acc, acc_up, prec, auc)
print([v.name for v in tf.local_variables()])
print(len(tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)), len(tf.global_variables()))


def evaluate(sess):
    sess.run(tf.local_variables_initializer())
    for i in range(0, 64, 16):
        sess.run(updates, {x: X_eval[i:i + 16], y: y_eval[i:i + 16]})
    return [round(float(v), 4) for v in sess.run([acc, prec, rec, auc, mloss])]


saver = tf.train.Saver()
path = os.path.join(tempfile.mkdtemp(), "model.ckpt")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print("before", evaluate(sess))
    for epoch in range(3):
        for i in range(0, 256, 32):
            _, l = sess.run([train_op, loss], {x: X_data[i:i + 32], y: y_data[i:i + 32]})
        print("epoch", epoch, round(float(l), 4), "eval", evaluate(sess))
    print("step", sess.run(global_step), "avg", np.round(sess.run(ema.average(tf.trainable_variables()[-1])), 4))
    saver.save(sess, path)

restore = ema.variables_to_restore()
print(sorted(restore)[:3])
with tf.Session() as sess:
    tf.train.Saver(restore).restore(sess, path)
    print("averaged", evaluate(sess))
