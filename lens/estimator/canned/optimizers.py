"""Optimizer names the canned estimators accept ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD')."""
from lens.training.gradient_descent import GradientDescentOptimizer
from lens.training.optimizer import Optimizer
from lens.training.optimizers import AdagradOptimizer, AdamOptimizer, FtrlOptimizer, RMSPropOptimizer

_OPTIMIZERS = {"Adagrad": AdagradOptimizer, "Adam": AdamOptimizer, "Ftrl": FtrlOptimizer,
               "RMSProp": RMSPropOptimizer, "SGD": GradientDescentOptimizer}


def get_optimizer_instance(opt, learning_rate=None):
    """An Optimizer from a name (with learning_rate), an instance, or a callable returning one."""
    if isinstance(opt, str):
        if opt in _OPTIMIZERS:
            if not learning_rate:
                raise ValueError("learning_rate must be specified when opt is string.")
            return _OPTIMIZERS[opt](learning_rate=learning_rate)
        raise ValueError("Unsupported optimizer name: {}. Supported names are: {}".format(
            opt, tuple(sorted(_OPTIMIZERS))))
    if callable(opt) and not isinstance(opt, Optimizer):
        opt = opt()
    if not isinstance(opt, Optimizer):
        raise ValueError("The given object is not an Optimizer instance. Given: {}".format(opt))
    return opt
