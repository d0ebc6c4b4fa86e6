import os, shutil, tempfile
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()

tf.set_random_seed(0)
rng = np.random.RandomState(0)
images = rng.rand(64, 28, 28, 1).astype(np.float32)
labels = rng.randint(0, 10, size=64).astype(np.int64)

ds = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(64, seed=1).batch(16).repeat(2)
it = ds.make_one_shot_iterator()
x, y = it.get_next()
print(x, y)
print(ds.output_shapes, ds.output_types)

training = tf.placeholder_with_default(False, [], name="training")
with tf.variable_scope("cnn"):
    h = tf.layers.conv2d(x, 8, 3, padding="same", activation=tf.nn.relu, name="conv1")
    print(h)
    h = tf.layers.max_pooling2d(h, 2, 2, name="pool1")
    print(h)
    h = tf.layers.conv2d(h, 16, 3, activation=tf.nn.relu, name="conv2")
    h = tf.layers.max_pooling2d(h, 2, 2)
    print(h)
    h = tf.layers.flatten(h)
    print(h)
    h = tf.layers.dense(h, 32, activation=tf.nn.relu)
    h = tf.layers.dropout(h, 0.5, training=training)
    logits = tf.layers.dense(h, 10, name="logits")
print(logits)
loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
print(loss)
acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
print(acc)
global_step = tf.train.get_or_create_global_step()
print(global_step)
opt = tf.train.AdamOptimizer(1e-3)
train_op = opt.minimize(loss, global_step=global_step)
print(train_op.name, train_op.type)
for v in tf.trainable_variables():
    print(v.name, v.shape, v.dtype)
print(len(tf.global_variables()))
print([v.name for v in tf.global_variables()][-6:])
print(tf.get_collection(tf.GraphKeys.LOSSES))
saver = tf.train.Saver(max_to_keep=2)
ckdir = tempfile.mkdtemp()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    while True:
        try:
            _, l, a, gs = sess.run([train_op, loss, acc, global_step], {training: True})
            step += 1
        except tf.errors.OutOfRangeError as e:
            print("done after", step, "steps:", type(e).__name__, str(e).splitlines()[0])
            break
    print("global_step", gs, type(gs))
    path = saver.save(sess, os.path.join(ckdir, "model"), global_step=gs)
    print(os.path.basename(path))
    print(sorted(os.path.basename(p) for p in os.listdir(ckdir)))
    print(os.path.basename(tf.train.latest_checkpoint(ckdir)))
names = [n for n, _ in tf.train.list_variables(ckdir)]
print(names)
print(tf.train.load_variable(ckdir, "cnn/logits/bias").shape)
tf.reset_default_graph()
saver2 = tf.train.import_meta_graph(path + ".meta")
with tf.Session() as sess:
    saver2.restore(sess, path)
    print(sess.run(tf.train.get_global_step()))
    print(tf.train.get_global_step())
    g = tf.get_default_graph()
    print(g.get_tensor_by_name("cnn/logits/BiasAdd:0"))
shutil.rmtree(ckdir)
