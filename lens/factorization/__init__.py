"""tf.contrib.factorization: k-means clustering (KMeans) and its clustering kernels."""
from lens.factorization.clustering_ops import kmeans_plus_plus_initialization, nearest_neighbors
from lens.factorization.kmeans import (CLUSTERS_VAR_NAME, COSINE_DISTANCE, KMC2_INIT, KMEANS_PLUS_PLUS_INIT,
                                       RANDOM_INIT, SQUARED_EUCLIDEAN_DISTANCE, KMeans)

__all__ = ["KMeans", "COSINE_DISTANCE", "SQUARED_EUCLIDEAN_DISTANCE", "RANDOM_INIT", "KMEANS_PLUS_PLUS_INIT",
           "KMC2_INIT", "CLUSTERS_VAR_NAME", "nearest_neighbors", "kmeans_plus_plus_initialization"]
