"""Generate the synthetic sample datasets of Glassbox (numpy only, fixed seed).

Run ``python sample_data/make_synthetic.py``; it rewrites the CSV files next to
this script and is idempotent: every generator takes its own seeded
``numpy.random.Generator``, so the output is byte-identical on every run.

Friedman #1 follows Friedman (1991), "Multivariate adaptive regression
splines", Annals of Statistics 19(1); ``esl_10_2`` follows Hastie, Tibshirani
& Friedman, *The Elements of Statistical Learning*, eq. (10.2), section 10.1.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

SEED = 20240501
HERE = Path(__file__).resolve().parent
# chi-square(10) median, so the two ESL classes are almost balanced
ESL_THRESHOLD = 9.34


def _rng(offset: int) -> np.random.Generator:
    # One independent stream per dataset: changing one set never shifts another.
    return np.random.default_rng(SEED + offset)


def two_moons(n: int = 300, noise: float = 0.25) -> dict[str, np.ndarray]:
    """Two interleaving half circles, ``n // 2`` points each (classes A, B)."""
    rng = _rng(1)
    half = n // 2
    t = rng.uniform(0.0, np.pi, size=(2, half))
    upper = np.column_stack([np.cos(t[0]), np.sin(t[0])])
    lower = np.column_stack([1.0 - np.cos(t[1]), 0.5 - np.sin(t[1])])
    X = np.vstack([upper, lower]) + rng.normal(0.0, noise, size=(2 * half, 2))
    return _shuffle(rng, X, np.repeat(["A", "B"], half))


def circles(n: int = 300, noise: float = 0.1, factor: float = 0.5) -> dict[str, np.ndarray]:
    """An inner circle of radius ``factor`` inside a unit circle (inner, outer)."""
    rng = _rng(2)
    half = n // 2
    angle = rng.uniform(0.0, 2.0 * np.pi, size=2 * half)
    radius = np.repeat([factor, 1.0], half)
    X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    X += rng.normal(0.0, noise, size=X.shape)
    return _shuffle(rng, X, np.repeat(["inner", "outer"], half))


def xor(n: int = 400, flip: float = 0.05) -> dict[str, np.ndarray]:
    """Uniform points in [-1, 1]^2, class A where x1 * x2 > 0, ``flip`` labels flipped."""
    rng = _rng(3)
    X = rng.uniform(-1.0, 1.0, size=(n, 2))
    positive = X[:, 0] * X[:, 1] > 0
    flipped = rng.random(n) < flip
    return _shuffle(rng, X, np.where(positive ^ flipped, "A", "B"))


def blobs(n: int = 300, spread: float = 1.0) -> dict[str, np.ndarray]:
    """Three Gaussian blobs (A, B, C) of ``n // 3`` points around fixed centres."""
    rng = _rng(4)
    centres = np.array([[-2.5, 0.0], [2.5, 1.0], [0.0, 3.5]])
    per = n // 3
    X = np.repeat(centres, per, axis=0) + rng.normal(0.0, spread, size=(3 * per, 2))
    return _shuffle(rng, X, np.repeat(["A", "B", "C"], per))


def friedman1_signal(X: np.ndarray) -> np.ndarray:
    """Noise-free Friedman #1: 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5.

    ``X`` has shape (n_samples, >= 5); columns 6..10 do not enter.
    """
    return (10.0 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20.0 * (X[:, 2] - 0.5) ** 2
            + 10.0 * X[:, 3] + 5.0 * X[:, 4])


def friedman1(n: int = 500, noise: float = 1.0) -> dict[str, np.ndarray]:
    """Friedman #1 regression: x1..x10 ~ U[0, 1], y = signal + N(0, noise^2)."""
    rng = _rng(5)
    X = rng.uniform(0.0, 1.0, size=(n, 10))
    y = friedman1_signal(X) + rng.normal(0.0, noise, size=n)
    data = {f"x{j + 1}": X[:, j] for j in range(10)}
    data["y"] = y
    return data


def esl_10_2(n: int = 2000) -> dict[str, np.ndarray]:
    """ESL eq. (10.2): X ~ N(0, I_10), y = 1 if sum_j x_j^2 > 9.34 else -1."""
    rng = _rng(6)
    X = rng.normal(size=(n, 10))
    # Label the rounded values so the file on disk obeys the rule exactly.
    X = np.round(X, 4)
    data = {f"x{j + 1}": X[:, j] for j in range(10)}
    data["y"] = np.where((X**2).sum(axis=1) > ESL_THRESHOLD, 1, -1)
    return data


def _shuffle(rng: np.random.Generator, X: np.ndarray, labels: np.ndarray) -> dict[str, np.ndarray]:
    # Shuffle rows so a file preview shows both classes, not one block then the other.
    order = rng.permutation(len(labels))
    return {"x1": X[order, 0], "x2": X[order, 1], "class": labels[order]}


GENERATORS: dict[str, Callable[[], dict[str, np.ndarray]]] = {
    "two_moons": two_moons,
    "circles": circles,
    "xor": xor,
    "blobs": blobs,
    "friedman1": friedman1,
    "esl_10_2": esl_10_2,
}


def to_csv_text(data: dict[str, np.ndarray]) -> str:
    """Render columns as CSV text: floats with 4 decimals, other values as str."""
    columns = []
    for values in data.values():
        if np.issubdtype(values.dtype, np.floating):
            columns.append([f"{v:.4f}" for v in values])
        else:
            columns.append([str(v) for v in values])
    lines = [",".join(data)] + [",".join(row) for row in zip(*columns, strict=True)]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Write every generated dataset as ``<name>.csv`` next to this script."""
    for name, make in GENERATORS.items():
        path = HERE / f"{name}.csv"
        path.write_text(to_csv_text(make()), encoding="utf-8", newline="\n")
        print(f"wrote {path.name}")


if __name__ == "__main__":
    main()
