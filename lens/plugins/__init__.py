"""TensorBoard plugin writers under TensorBoard's own module names.

`lens.plugins.pr_curve.summary`, `lens.plugins.custom_scalar.summary` / `.layout_pb2` and
`lens.plugins.hparams.api` / `.summary` / `.summary_v2` mirror `tensorboard.plugins.*`, so TF1
code that imported those modules runs with `lens` in their place; each package also exposes its
functions directly (`lens.plugins.pr_curve.pb`, `lens.plugins.hparams.HParam`, ...).
"""
