import collections
import math
import random

import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()

# Step 1: a small synthetic corpus -- sentences from a few topics, Zipf-like word choice.
rs = np.random.RandomState(42)
topics = [["king", "queen", "prince", "crown", "castle", "royal"],
          ["cat", "dog", "mouse", "pet", "fur", "tail"],
          ["car", "road", "wheel", "engine", "drive", "fuel"],
          ["sun", "moon", "star", "sky", "night", "light"]]
fillers = ["the", "a", "of", "and", "to", "in", "is", "it"]
words = []
for _ in range(400):
    topic = topics[rs.randint(len(topics))]
    for _ in range(6):
        if rs.rand() < 0.4:
            words.append(fillers[min(int(rs.zipf(1.5)) - 1, len(fillers) - 1)])
        else:
            words.append(topic[rs.randint(len(topic))])
print("Data size", len(words))

# Step 2: the dictionary, rare words replaced by UNK.
vocabulary_size = 30


def build_dataset(words, n_words):
    count = [["UNK", -1]]
    count.extend(collections.Counter(words).most_common(n_words - 1))
    dictionary = {}
    for word, _ in count:
        dictionary[word] = len(dictionary)
    data = []
    unk_count = 0
    for word in words:
        index = dictionary.get(word, 0)
        if index == 0:
            unk_count += 1
        data.append(index)
    count[0][1] = unk_count
    reversed_dictionary = dict(zip(dictionary.values(), dictionary.keys()))
    return data, count, dictionary, reversed_dictionary


data, count, dictionary, reverse_dictionary = build_dataset(words, vocabulary_size)
print("Most common words (+UNK)", count[:5])
print("Sample data", data[:10], [reverse_dictionary[i] for i in data[:10]])

data_index = 0
random.seed(7)


# Step 3: a training batch for the skip-gram model.
def generate_batch(batch_size, num_skips, skip_window):
    global data_index
    assert batch_size % num_skips == 0
    assert num_skips <= 2 * skip_window
    batch = np.ndarray(shape=(batch_size), dtype=np.int32)
    labels = np.ndarray(shape=(batch_size, 1), dtype=np.int32)
    span = 2 * skip_window + 1
    buffer = collections.deque(maxlen=span)
    if data_index + span > len(data):
        data_index = 0
    buffer.extend(data[data_index:data_index + span])
    data_index += span
    for i in range(batch_size // num_skips):
        context_words = [w for w in range(span) if w != skip_window]
        words_to_use = random.sample(context_words, num_skips)
        for j, context_word in enumerate(words_to_use):
            batch[i * num_skips + j] = buffer[skip_window]
            labels[i * num_skips + j, 0] = buffer[context_word]
        if data_index == len(data):
            buffer.extend(data[0:span])
            data_index = span
        else:
            buffer.append(data[data_index])
            data_index += 1
    data_index = (data_index + len(data) - span) % len(data)
    return batch, labels


batch, labels = generate_batch(batch_size=8, num_skips=2, skip_window=1)
for i in range(4):
    print(batch[i], reverse_dictionary[batch[i]], "->", labels[i, 0],
          reverse_dictionary[labels[i, 0]])

# Step 4: the skip-gram model with NCE loss.
batch_size = 64
embedding_size = 16
skip_window = 1
num_skips = 2
num_sampled = 8
valid_examples = np.array([dictionary[w] for w in ("king", "cat", "car", "sun")])

graph = tf.Graph()
with graph.as_default():
    tf.set_random_seed(1234)
    train_inputs = tf.placeholder(tf.int32, shape=[batch_size])
    train_labels = tf.placeholder(tf.int32, shape=[batch_size, 1])
    valid_dataset = tf.constant(valid_examples, dtype=tf.int32)

    embeddings = tf.Variable(tf.random_uniform([vocabulary_size, embedding_size], -1.0, 1.0))
    embed = tf.nn.embedding_lookup(embeddings, train_inputs)
    nce_weights = tf.Variable(tf.truncated_normal([vocabulary_size, embedding_size],
                                                  stddev=1.0 / math.sqrt(embedding_size)))
    nce_biases = tf.Variable(tf.zeros([vocabulary_size]))

    loss = tf.reduce_mean(
        tf.nn.nce_loss(weights=nce_weights, biases=nce_biases, labels=train_labels,
                       inputs=embed, num_sampled=num_sampled, num_classes=vocabulary_size))
    optimizer = tf.train.GradientDescentOptimizer(1.0).minimize(loss)

    norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
    normalized_embeddings = embeddings / norm
    valid_embeddings = tf.nn.embedding_lookup(normalized_embeddings, valid_dataset)
    similarity = tf.matmul(valid_embeddings, normalized_embeddings, transpose_b=True)
    init = tf.global_variables_initializer()

# Step 5: train.
num_steps = 301
with tf.Session(graph=graph) as session:
    init.run()
    average_loss = 0
    for step in range(num_steps):
        batch_inputs, batch_labels = generate_batch(batch_size, num_skips, skip_window)
        feed_dict = {train_inputs: batch_inputs, train_labels: batch_labels}
        _, loss_val = session.run([optimizer, loss], feed_dict=feed_dict)
        average_loss += loss_val
        if step % 50 == 0:
            if step > 0:
                average_loss /= 50
            print("Average loss at step", step, ":", round(float(average_loss), 4))
            average_loss = 0
    sim = similarity.eval()
    for i in range(len(valid_examples)):
        valid_word = reverse_dictionary[valid_examples[i]]
        nearest = (-sim[i, :]).argsort()[1:4]
        print("Nearest to %s: %s" % (valid_word, ", ".join(reverse_dictionary[k] for k in nearest)))
    final_embeddings = normalized_embeddings.eval()
    print("final_embeddings[0, :4]", np.round(final_embeddings[0, :4], 4))
