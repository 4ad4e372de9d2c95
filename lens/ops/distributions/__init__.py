"""tf.distributions (TF1.15's deprecated module): Distribution, the reparameterization types, KL
registration, and Normal, Laplace, Uniform, StudentT, Gamma, Exponential, Beta, Dirichlet,
Bernoulli, Categorical, Multinomial, DirichletMultinomial as graph ops."""
from lens.ops.distributions.distribution import (FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED, Distribution,  # noqa: F401
                                                 RegisterKL, ReparameterizationType, kl_divergence)
from lens.ops.distributions.continuous import Laplace, Normal, StudentT, Uniform  # noqa: F401
from lens.ops.distributions.gamma_family import Beta, Dirichlet, Exponential, Gamma  # noqa: F401
from lens.ops.distributions.discrete import Bernoulli, Categorical, DirichletMultinomial, Multinomial  # noqa: F401

__all__ = ["Distribution", "ReparameterizationType", "FULLY_REPARAMETERIZED", "NOT_REPARAMETERIZED", "RegisterKL",
           "kl_divergence", "Normal", "Laplace", "Uniform", "StudentT", "Gamma", "Exponential", "Beta", "Dirichlet",
           "Bernoulli", "Categorical", "Multinomial", "DirichletMultinomial"]
