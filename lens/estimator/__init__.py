"""tf.estimator: Estimator, EstimatorSpec, ModeKeys, RunConfig, train_and_evaluate, the canned
estimators and tf.estimator.inputs, as TF1.15 names them."""
from lens.estimator import export, inputs  # noqa: F401 - tf.estimator.export, tf.estimator.inputs
from lens.estimator.contrib import DNNEstimator, LinearEstimator
from lens.estimator.canned.baseline import BaselineClassifier, BaselineRegressor
from lens.estimator.canned.boosted_trees import BoostedTreesClassifier, BoostedTreesRegressor
from lens.estimator.canned.dnn import DNNClassifier, DNNRegressor
from lens.estimator.canned.dnn_linear_combined import DNNLinearCombinedClassifier, DNNLinearCombinedRegressor
from lens.estimator.canned.linear import LinearClassifier, LinearRegressor
from lens.estimator.estimator import Estimator
from lens.estimator.exporter import Exporter, FinalExporter, LatestExporter
from lens.estimator.model_fn import EstimatorSpec, ModeKeys
from lens.estimator.run_config import RunConfig
from lens.estimator.training import EvalSpec, TrainSpec, train_and_evaluate
from lens.estimator.warm_starting import VocabInfo, WarmStartSettings

__all__ = ["Estimator", "EstimatorSpec", "ModeKeys", "RunConfig", "WarmStartSettings", "VocabInfo",
           "inputs", "export", "Exporter", "FinalExporter", "LatestExporter", "BaselineClassifier", "BaselineRegressor", "DNNEstimator", "LinearEstimator", "DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor",
           "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor", "TrainSpec", "EvalSpec",
           "train_and_evaluate", "BoostedTreesClassifier", "BoostedTreesRegressor"]
