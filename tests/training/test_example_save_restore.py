"""The public TF1 example 'save_restore_model' (an MLP trained, saved, restored in a new session, trained
on), unchanged but for synthetic MNIST-shaped data and fewer steps."""
import os

import numpy as np

import lens as tf


def test_save_restore_model_example(tmp_path):
    rng = np.random.RandomState(0)
    images = rng.rand(64, 784).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.randint(0, 10, 64)]
    model_path = str(tmp_path / "model.ckpt")

    n_hidden_1, n_hidden_2, n_input, n_classes = 32, 32, 784, 10
    x = tf.placeholder("float", [None, n_input])
    y = tf.placeholder("float", [None, n_classes])

    def multilayer_perceptron(x, weights, biases):
        layer_1 = tf.nn.relu(tf.add(tf.matmul(x, weights['h1']), biases['b1']))
        layer_2 = tf.nn.relu(tf.add(tf.matmul(layer_1, weights['h2']), biases['b2']))
        return tf.matmul(layer_2, weights['out']) + biases['out']

    weights = {'h1': tf.Variable(tf.random_normal([n_input, n_hidden_1], seed=1)),
               'h2': tf.Variable(tf.random_normal([n_hidden_1, n_hidden_2], seed=2)),
               'out': tf.Variable(tf.random_normal([n_hidden_2, n_classes], seed=3))}
    biases = {'b1': tf.Variable(tf.random_normal([n_hidden_1], seed=4)),
              'b2': tf.Variable(tf.random_normal([n_hidden_2], seed=5)),
              'out': tf.Variable(tf.random_normal([n_classes], seed=6))}
    pred = multilayer_perceptron(x, weights, biases)
    cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=pred, labels=y))
    optimizer = tf.train.AdamOptimizer(learning_rate=0.001).minimize(cost)
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
    correct_prediction = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))

    with tf.Session() as sess:
        sess.run(init)
        for _ in range(3):
            sess.run([optimizer, cost], feed_dict={x: images, y: labels})
        before = sess.run([accuracy, cost], feed_dict={x: images, y: labels})
        save_path = saver.save(sess, model_path)
    assert save_path == model_path
    assert {"model.ckpt.index", "model.ckpt.data-00000-of-00001", "model.ckpt.meta",
            "checkpoint"} <= set(os.listdir(tmp_path))

    with tf.Session() as sess:
        sess.run(init)
        saver.restore(sess, model_path)
        after = sess.run([accuracy, cost], feed_dict={x: images, y: labels})
        assert after == before                    # weights and Adam slots all came back
        _, c = sess.run([optimizer, cost], feed_dict={x: images, y: labels})
        assert c <= before[1] + 1e-6
