"""Distributed TF1 on Ray: ClusterSpec, Server, and sessions on 'grpc://' targets run by task actors."""
from lens.distributed import runtime as _runtime  # noqa: F401 - registers the 'grpc://' session target
from lens.distributed.cluster import ClusterSpec
from lens.distributed.ray_env import ADDRESS_ENV
from lens.distributed.server import Server, create_local_cluster

__all__ = ["ClusterSpec", "Server", "create_local_cluster", "ADDRESS_ENV"]
