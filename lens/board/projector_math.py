"""Projections of an [N, D] embedding to 2 or 3 dimensions: PCA in NumPy, and t-SNE / UMAP when
scikit-learn / umap-learn are installed (the optional extra lens[projector])."""

import importlib.util

import numpy as np

METHODS = ("pca", "tsne", "umap")


class ProjectionError(ValueError):
    """A projection that cannot be computed; the message says why and what to do."""


def pca(x, dims=3):
    """(points [N, dims], fraction of variance per component): the top principal components."""
    x = np.asarray(x, dtype=np.float32)
    if x.ndim != 2 or x.shape[0] == 0:
        raise ProjectionError("PCA needs a non-empty 2D tensor, got shape %s" % list(x.shape))
    dims = min(dims, x.shape[1])
    centered = x - x.mean(axis=0, dtype=np.float64).astype(np.float32)
    # The D x D covariance's eigenvectors: cheap for tall embeddings (N >> D); the product in
    # float32 (a view, not a fit), the small eigenproblem in float64.
    values, vectors = np.linalg.eigh((centered.T @ centered).astype(np.float64))
    order = np.argsort(values)[::-1][:dims]
    vectors = vectors[:, order]
    # A deterministic sign: each component's largest loading is positive.
    signs = np.sign(vectors[np.abs(vectors).argmax(axis=0), np.arange(dims)])
    vectors = (vectors * np.where(signs == 0, 1, signs)).astype(np.float32)
    total = values.clip(min=0).sum()
    variance = values[order].clip(min=0) / total if total > 0 else np.zeros(dims)
    return centered @ vectors, variance.tolist()


def available():
    """{method: True/False}: which projections this installation can compute."""
    return {"pca": True, "tsne": importlib.util.find_spec("sklearn") is not None,
            "umap": importlib.util.find_spec("umap") is not None}


def project(x, method="pca", dims=3, perplexity=30.0, neighbors=15, seed=0):
    """(points [N, dims] float32, variance list or None) by method."""
    if method not in METHODS:
        raise ProjectionError("unknown projection %r; use one of %s" % (method, ", ".join(METHODS)))
    if dims not in (2, 3):
        raise ProjectionError("dims must be 2 or 3, got %r" % (dims,))
    if method == "pca":
        return pca(x, dims)
    if not available()[method]:
        package = "scikit-learn" if method == "tsne" else "umap-learn"
        raise ProjectionError("%s needs %s: pip install 'lens[projector]' (or %s); PCA works without it"
                              % (method, package, package))
    x = np.asarray(x, dtype=np.float32)
    if method == "tsne":
        from sklearn.manifold import TSNE
        perplexity = min(perplexity, max(1.0, (x.shape[0] - 1) / 3.0))
        out = TSNE(n_components=dims, perplexity=perplexity, init="pca", random_state=seed).fit_transform(x)
    else:
        import umap
        out = umap.UMAP(n_components=dims, n_neighbors=min(neighbors, max(2, x.shape[0] - 1)),
                        random_state=seed).fit_transform(x)
    return np.asarray(out, dtype=np.float32), None
