''' A 2-hidden-layer MLP on (synthetic) MNIST trained eagerly with tf.GradientTape, as the TF1.x
eager guide writes it: variables, a tape around the forward pass, optimizer.apply_gradients. '''
from __future__ import absolute_import, division, print_function

import numpy as np
import lens as tf

tf.enable_eager_execution()

import synthetic_mnist as input_data  # noqa: E402
mnist = input_data.read_data_sets("/tmp/data/", one_hot=False)

learning_rate = 0.001
num_steps = 40
batch_size = 128
display_step = 20
n_hidden_1 = 64
n_hidden_2 = 64
num_input = 784
num_classes = 10

dataset = tf.data.Dataset.from_tensor_slices((mnist.train.images, mnist.train.labels))
dataset = dataset.repeat().shuffle(1000, seed=1).batch(batch_size)

weights = {
    'h1': tf.Variable(tf.random_normal([num_input, n_hidden_1], stddev=0.05, seed=1)),
    'h2': tf.Variable(tf.random_normal([n_hidden_1, n_hidden_2], stddev=0.05, seed=2)),
    'out': tf.Variable(tf.random_normal([n_hidden_2, num_classes], stddev=0.05, seed=3)),
}
biases = {
    'b1': tf.Variable(tf.zeros([n_hidden_1])),
    'b2': tf.Variable(tf.zeros([n_hidden_2])),
    'out': tf.Variable(tf.zeros([num_classes])),
}


def neural_net(x):
    layer_1 = tf.nn.relu(tf.add(tf.matmul(x, weights['h1']), biases['b1']))
    layer_2 = tf.nn.relu(tf.add(tf.matmul(layer_1, weights['h2']), biases['b2']))
    return tf.matmul(layer_2, weights['out']) + biases['out']


def loss_fn(x, y):
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(logits=neural_net(x), labels=y))


def accuracy_fn(x, y):
    correct = tf.equal(tf.argmax(neural_net(x), 1), y)
    return tf.reduce_mean(tf.cast(correct, tf.float32))


optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
variables = list(weights.values()) + list(biases.values())

for step, (batch_x, batch_y) in enumerate(dataset):
    if step == num_steps:
        break
    with tf.GradientTape() as tape:
        loss = loss_fn(batch_x, batch_y)
    gradients = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(gradients, variables))
    if step % display_step == 0 or step == num_steps - 1:
        print("Step: %04d loss= %.6f accuracy= %.4f" % (step + 1, loss, accuracy_fn(batch_x, batch_y)))

print("Testset Accuracy: {:.4f}".format(accuracy_fn(mnist.test.images, mnist.test.labels)))
_ = np
