import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()

tf.set_random_seed(42)
rng = np.random.RandomState(1)
X_data = rng.randn(200, 3).astype(np.float32)
true_w = np.array([[2.0], [-1.0], [0.5]], np.float32)
y_data = X_data @ true_w + 0.3 + 0.01 * rng.randn(200, 1).astype(np.float32)

X = tf.placeholder(tf.float32, shape=[None, 3], name="X")
Y = tf.placeholder(tf.float32, shape=[None, 1], name="Y")

def linear(x, n_out, scope):
    with tf.variable_scope(scope, reuse=tf.AUTO_REUSE):
        w = tf.get_variable("w", [x.shape[-1], n_out], initializer=tf.truncated_normal_initializer(stddev=0.1))
        b = tf.get_variable("b", [n_out], initializer=tf.zeros_initializer())
        tf.add_to_collection("weights", w)
        tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.nn.l2_loss(w) * 1e-4)
        return tf.matmul(x, w) + b

with tf.variable_scope("model"):
    pred = linear(X, 1, "linear")
    pred2 = linear(X, 1, "linear")
print(pred, pred2)
print(tf.get_collection("weights"))
print(len(tf.get_collection("weights")), tf.get_collection("weights")[0] is tf.get_collection("weights")[1])
with tf.variable_scope("model", reuse=True):
    w_again = tf.get_variable("linear/w")
print(w_again)
try:
    with tf.variable_scope("model"):
        tf.get_variable("linear/w", [3, 1])
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
try:
    with tf.variable_scope("model", reuse=True):
        tf.get_variable("nope", [1])
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])

with tf.name_scope("loss"):
    mse = tf.reduce_mean(tf.square(pred - Y), name="mse")
    reg = tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES), name="reg")
    total = tf.add(mse, reg, name="total")
print(mse, reg, total)
print(tf.losses.get_regularization_losses())
global_step = tf.Variable(0, trainable=False, name="global_step")
print(global_step)
lr = tf.train.exponential_decay(0.1, global_step, decay_steps=50, decay_rate=0.5, staircase=True)
print(lr)
opt = tf.train.GradientDescentOptimizer(lr)
grads_and_vars = opt.compute_gradients(total)
for g, v in grads_and_vars:
    print(g, v.name)
grads, tvars = zip(*grads_and_vars)
clipped, gnorm = tf.clip_by_global_norm(grads, 1.0)
print(clipped[0], gnorm)
train_op = opt.apply_gradients(zip(clipped, tvars), global_step=global_step)
print(train_op.name, train_op.type)
tf.summary.scalar("mse", mse)
tf.summary.scalar("lr", lr)
merged = tf.summary.merge_all()
print(merged)
print([t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)])
print(sorted(tf.get_default_graph().get_all_collection_keys()))
print([v.name for v in tf.global_variables()])
print([v.name for v in tf.trainable_variables()])
init = tf.global_variables_initializer()
print(init.name, init.type)
with tf.Session() as sess:
    sess.run(init)
    print(sess.run(tf.report_uninitialized_variables()))
    for step in range(200):
        _, l, r = sess.run([train_op, mse, lr], {X: X_data, Y: y_data})
        if step % 50 == 0:
            print(step, "lr", r)
    w, b = sess.run([w_again, "model/linear/b/Read/ReadVariableOp:0"])
    print("w close:", np.allclose(w, true_w, atol=0.1), "b close:", np.allclose(b, 0.3, atol=0.1))
    print("final mse small:", l < 0.01, sess.run(global_step))
    print(sess.run(lr), type(sess.run(lr)).__name__)
    print(sess.run(tf.norm(tf.constant([3.0, 4.0]))), sess.run(tf.clip_by_norm(tf.constant([3.0, 4.0]), 1.0)))
    print(sess.run(tf.train.piecewise_constant(global_step, [100, 300], [1.0, 0.5, 0.1])))
