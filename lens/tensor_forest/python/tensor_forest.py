"""tf.contrib.tensor_forest.python.tensor_forest: ForestHParams and RandomForestGraphs as TF1.15
(online random trees for classification; each tree held in variables, see forest_ops)."""
import math
import random

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.core import group
from lens.ops.indexing import gather
from lens.ops.logic import less, where
from lens.ops.random import random_uniform
from lens.ops.reduce import reduce_mean, reduce_sum
from lens.ops.variable_scope import get_variable
from lens.ops.variables import Variable
from lens.tensor_forest.forest_ops import train_tree, tree_predictions

__all__ = ["ForestHParams", "RandomForestGraphs", "RandomTreeGraphs", "ForestVariables", "TreeVariables"]


class ForestHParams:
    """A forest's hyperparameters; fill() derives the ones left unset, as TF1.15's."""

    def __init__(self, num_trees=100, max_nodes=10000, bagging_fraction=1.0, num_splits_to_consider=0,
                 feature_bagging_fraction=1.0, max_fertile_nodes=0, split_after_samples=250,
                 valid_leaf_threshold=1, dominate_method="bootstrap", dominate_fraction=0.99,
                 model_name="all_dense", split_finish_name="basic", split_pruning_name="none",
                 prune_every_samples=0, early_finish_check_every_samples=0, collate_examples=False,
                 checkpoint_stats=False, use_running_stats_method=False, initialize_average_splits=False,
                 inference_tree_paths=False, param_file=None, split_name="less_or_equal", **kwargs):
        for key, value in dict(locals(), **kwargs).items():
            if key not in ("self", "kwargs"):
                setattr(self, key, value)

    def values(self):
        return self.__dict__

    def fill(self):
        """Sets the derived parameters (bagged features, outputs, splits to consider, seed)."""
        for required in ("num_classes", "num_features"):
            if not hasattr(self, required):
                raise AttributeError("ForestHParams needs %s: pass ForestHParams(%s=...)" % (required, required))
        self.bagged_num_features = int(self.feature_bagging_fraction * self.num_features)
        self.bagged_features = None
        if self.feature_bagging_fraction < 1.0:
            self.bagged_features = [random.sample(range(self.num_features), self.bagged_num_features)
                                    for _ in range(self.num_trees)]
        self.regression = getattr(self, "regression", False)
        self.num_outputs = self.num_classes if self.regression else 1
        self.num_output_columns = self.num_classes + 1
        self.num_splits_to_consider = self.num_splits_to_consider or min(
            max(10, math.floor(math.sqrt(self.num_features))), 1000)
        self.base_random_seed = getattr(self, "base_random_seed", 0)
        return self


def _dense_input(input_data):
    """A float32 [n, features] tensor from a tensor or a dict of tensors (keys in sorted order)."""
    if isinstance(input_data, dict):
        cols = []
        for key in sorted(input_data):
            t = M.cast(convert_to_tensor(input_data[key], name=key), _dt.float32)
            cols.append(t if t.shape.ndims == 2 else A.reshape(t, [-1, 1]))
        return A.concat(cols, 1)
    return M.cast(convert_to_tensor(input_data, name="input_data"), _dt.float32)


class TreeVariables:
    """One tree's variables (`tree-<i>/...`) and the name of its fertile-leaf statistics (`stats-<i>`)."""

    def __init__(self, params, tree_num, training=True, tree_config="", tree_stat=""):
        n, c = params.max_nodes, params.num_classes
        if n < 1:
            raise ValueError("max_nodes must be at least 1, got %r" % (n,))

        def var(name, shape, value, dtype):
            return Variable(A.fill(shape, convert_to_tensor(value, dtype=dtype)), trainable=False, name=name)

        with name_scope(self.get_tree_name("tree", tree_num)):
            self.tree = {"feature": var("feature", [n], -1, _dt.int32),
                         "threshold": var("threshold", [n], 0.0, _dt.float32),
                         "left": var("left", [n], 0, _dt.int32),
                         "counts": var("counts", [n, c], 0.0, _dt.float32),
                         "size": Variable(1, dtype=_dt.int32, trainable=False, name="size")}
        # The fertile leaves' statistics live in the session under this name (forest_ops.FertileStats).
        self.stats = self.get_tree_name("stats", tree_num) if training else None

    def get_tree_name(self, name, num):
        return "{0}-{1}".format(name, num)


class ForestVariables:
    """The variables of every tree, indexable by tree number."""

    def __init__(self, params, device_assigner=None, training=True, tree_variables_class=TreeVariables,
                 tree_configs=None, tree_stats=None):
        self.device_dummies = [get_variable(name="device_dummy_%d" % i, shape=[0])
                               for i in range(params.num_trees)]
        self.variables = [tree_variables_class(params, i, training) for i in range(params.num_trees)]

    def __setitem__(self, t, val):
        self.variables[t] = val

    def __getitem__(self, t):
        return self.variables[t]


class RandomTreeGraphs:
    """Training and inference graphs of one tree."""

    def __init__(self, variables, params, tree_num):
        self.variables, self.params, self.tree_num = variables, params, tree_num

    def training_graph(self, input_data, input_labels, random_seed, data_spec=None, sparse_features=None,
                       input_weights=None):
        if sparse_features is not None or input_weights is not None:
            raise NotImplementedError("lens's tensor_forest trains on dense features without weights")
        if self.variables.stats is None:
            raise ValueError("tree %d was built with training=False: it has no statistics to train"
                             % self.tree_num)
        return train_tree(input_data, input_labels, self.variables.tree, self.variables.stats,
                          self.params.split_after_samples, self.params.num_splits_to_consider, random_seed)

    def inference_graph(self, input_data, data_spec=None, sparse_features=None):
        return tree_predictions(input_data, self.variables.tree)

    def size(self):
        """The number of nodes of the tree."""
        return self.variables.tree["size"].value()


class RandomForestGraphs:
    """Builds the training, loss and inference graphs of a classification forest."""

    def __init__(self, params, tree_configs=None, tree_stats=None, device_assigner=None, variables=None,
                 tree_variables_class=TreeVariables, tree_graphs=None, training=True):
        if getattr(params, "regression", False):
            raise NotImplementedError("lens's tensor_forest grows classification forests "
                                      "(ForestHParams(regression=True) is not supported)")
        if not hasattr(params, "num_splits_to_consider") or not hasattr(params, "num_output_columns"):
            raise ValueError("RandomForestGraphs needs filled params: pass ForestHParams(...).fill()")
        self.params = params
        self.variables = variables or ForestVariables(params, device_assigner, training, tree_variables_class,
                                                      tree_configs, tree_stats)
        tree_graph_class = tree_graphs or RandomTreeGraphs
        self.trees = [tree_graph_class(self.variables[i], params, i) for i in range(params.num_trees)]

    def _bag_features(self, tree_num, input_data):
        cols = A.split(input_data, self.params.num_features, axis=1)
        return A.concat([cols[i] for i in self.params.bagged_features[tree_num]], 1)

    def training_graph(self, input_data, input_labels, num_trainers=1, trainer_id=0, **tree_kwargs):
        """The op that trains every tree (of this trainer's share) on one batch."""
        data = _dense_input(input_data)
        labels = convert_to_tensor(input_labels, name="input_labels")
        per = self.params.num_trees / num_trainers
        ops = []
        for i in range(int(trainer_id * per), int((trainer_id + 1) * per)):
            seed = self.params.base_random_seed
            if seed != 0:
                seed += i
            tree_data, tree_labels = data, labels
            if self.params.bagging_fraction < 1.0:
                # Each example kept with probability bagging_fraction (without replacement, as TF).
                r = random_uniform(A.shape(data)[:1], seed=seed or None)
                keep = A.squeeze(where(less(r, self.params.bagging_fraction)), axis=[1])
                tree_data, tree_labels = gather(data, keep), gather(labels, keep)
            if self.params.bagged_features:
                tree_data = self._bag_features(i, tree_data)
            ops.append(self.trees[i].training_graph(tree_data, tree_labels, seed, **tree_kwargs))
        return group(*ops, name="train")

    def inference_graph(self, input_data, **inference_args):
        """(probabilities [n, num_classes], tree_paths [n, num_trees] leaf ids, variance)."""
        data = _dense_input(input_data)
        probs, paths = [], []
        for i in range(self.params.num_trees):
            tree_data = self._bag_features(i, data) if self.params.bagged_features else data
            p, path = self.trees[i].inference_graph(tree_data, **inference_args)
            probs.append(p)
            paths.append(path)
        all_predict = A.stack(probs, axis=1)
        average = M.divide(reduce_sum(all_predict, 1), float(self.params.num_trees), name="probabilities")
        squares = M.divide(reduce_sum(M.multiply(all_predict, all_predict), 1), float(self.params.num_trees))
        variance = M.maximum(0.0, M.subtract(squares, M.multiply(average, average)))
        return average, A.stack(paths, axis=1), variance

    def average_size(self):
        """The mean number of nodes over the trees."""
        return reduce_mean(M.cast(A.stack([t.size() for t in self.trees]), _dt.float32))

    def training_loss(self, features, labels, name="training_loss"):
        """TF's stand-in loss: minus the average tree size."""
        return M.negative(self.average_size(), name=name)

    def validation_loss(self, features, labels):
        return M.negative(self.average_size())
