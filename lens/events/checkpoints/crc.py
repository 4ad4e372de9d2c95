"""CRC-32C of tensor bytes at disk speed: no copies, and computed beside the file I/O in a thread.

google_crc32c's Python API takes only `bytes`, which would cost a copy of every saved array; its
bundled C library (the same code) is called through ctypes on the array's memory when it can be
found, and the chunked `bytes` path is the fallback. ctypes releases the GIL, so checksums of
large tensors run in a worker thread while the next tensor is written or read.
"""
import ctypes
import glob
import os
from concurrent.futures import ThreadPoolExecutor

import google_crc32c
import numpy as np

_CHUNK = 4 << 20
_PARALLEL_MIN = 1 << 20        # below this a thread hand-off costs more than it saves


def _load_extend():
    lib_dir = os.path.dirname(os.path.abspath(google_crc32c.__file__)) + ".libs"
    for path in sorted(glob.glob(os.path.join(lib_dir, "libcrc32c*.so*"))):
        try:
            fn = ctypes.CDLL(path).crc32c_extend
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_uint32
        fn.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t]
        probe = np.frombuffer(b"123456789", dtype=np.uint8)
        if fn(0, probe.ctypes.data, probe.size) == google_crc32c.value(b"123456789"):
            return fn
    return None


_EXTEND = _load_extend()


def crc_of_array(arr):
    """CRC-32C of a C-contiguous array's bytes."""
    if arr.size == 0:
        return 0
    if _EXTEND is not None:
        return _EXTEND(0, arr.ctypes.data, arr.nbytes)
    flat = arr.reshape(-1).view(np.uint8)
    crc = 0
    for start in range(0, flat.size, _CHUNK):
        crc = google_crc32c.extend(crc, flat[start:start + _CHUNK].tobytes())
    return crc


class Checksums:
    """Compute CRCs of large arrays in a worker thread; result(key) waits for one."""

    def __init__(self, workers=1):
        self._pool = None
        self._workers = workers
        self._pending = {}

    def submit(self, key, arr):
        if arr.nbytes < _PARALLEL_MIN or _EXTEND is None:
            self._pending[key] = crc_of_array(arr)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="lens-crc")
        self._pending[key] = self._pool.submit(crc_of_array, arr)

    def submit_value(self, key, crc):
        """Record a CRC computed by the caller."""
        self._pending[key] = crc

    def result(self, key):
        value = self._pending.pop(key)
        return value if isinstance(value, int) else value.result()

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
