"""Summary writers for TensorBoard's plugin dashboards (PR curves, custom scalars, hparams).

Each module writes TensorBoard's own summary protos and plugin_data, so TensorBoard and
`lens board` read the same files; `lens.plugins` exposes them under TensorBoard's names.
"""
