"""Vectors as the database keeps them: the bytes of a float32 array, L2-normalised."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]


def vector_to_bytes(vector: npt.ArrayLike) -> bytes:
    """The stored form of vector, normalised to unit length (a zero vector stays zero)."""
    array = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(array))
    if norm > 0:
        array = array / norm
    return array.astype("<f4").tobytes()


def vector_from_bytes(data: bytes | memoryview) -> FloatArray:
    """The array stored as data (a copy, writable)."""
    return np.frombuffer(bytes(data), dtype="<f4").astype(np.float32)


def vectors_from_bytes(rows: list[bytes | memoryview], dimensions: int) -> FloatArray:
    """A (len(rows), dimensions) matrix of stored vectors, one row each."""
    if not rows:
        return np.zeros((0, dimensions), dtype=np.float32)
    joined = b"".join(bytes(row) for row in rows)
    return np.frombuffer(joined, dtype="<f4").reshape(len(rows), dimensions).astype(np.float32)
