"""Parsing speed of ``engine.data.load_csv``: 200,000 rows x 10 columns in under 3 s.

Run from the repository root::

    .venv/bin/python bench/bench_load_csv.py              # median of 5 repeats
    .venv/bin/python bench/bench_load_csv.py --rows 50000 --repeats 3

The file mixes what uploads hold: six float columns (two with missing cells), an integer
column, two categorical columns and a short free-text column with quoted commas. It is
generated in memory with a fixed seed and written once as UTF-8 bytes, then in a
semicolon/decimal-comma dialect, and each is timed end to end (decode, sniff, parse,
tidy) on one core. pandas' own ``read_csv`` told the dialect (no sniffing, decoding or
tidying) is printed for comparison.
"""
from __future__ import annotations

import argparse
import io

from _common import pin_threads, use_repo_imports

pin_threads(1)
use_repo_imports()

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _common import environment, measure_pair  # noqa: E402

from engine.data import load_csv  # noqa: E402

TARGET_SECONDS = 3.0


def make_frame(n_rows: int, seed: int = 0) -> pd.DataFrame:
    """A table of ``n_rows`` x 10 columns of mixed kinds."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"x{j}": rng.normal(10, 3, n_rows).round(4) for j in range(6)})
    for j in (1, 4):
        frame.loc[rng.random(n_rows) < 0.05, f"x{j}"] = np.nan
    frame["count"] = rng.integers(0, 1000, n_rows)
    frame["colour"] = rng.choice(["red", "green", "blue", "yellow"], n_rows)
    frame["answer"] = rng.choice(["yes", "no"], n_rows)
    frame["note"] = rng.choice(["fine, thanks", "slow service", "great food, rude staff"], n_rows)
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    frame = make_frame(args.rows)
    dialects = {
        "comma, dot decimals": frame.to_csv(index=False).encode("utf-8"),
        "semicolon, decimal commas": frame.to_csv(index=False, sep=";", decimal=",").encode(),
    }
    print(environment())
    print(f"{args.rows:,} rows x {frame.shape[1]} columns; target < {TARGET_SECONDS:.1f} s\n")
    print(f"{'dialect':<28} {'MB':>6} {'load_csv s':>11} {'read_csv s':>11} {'ratio':>6}  status")
    for name, data in dialects.items():
        loaded = load_csv(data)
        assert loaded.shape == frame.shape, loaded.shape
        sep, decimal = (";", ",") if "semicolon" in name else (",", ".")
        ours, theirs = measure_pair(
            lambda d=data: load_csv(d),
            lambda d=data, s=sep, c=decimal: pd.read_csv(io.BytesIO(d), sep=s, decimal=c),
            repeats=args.repeats,
        )
        status = "ok" if ours.median < TARGET_SECONDS else "TOO SLOW"
        print(f"{name:<28} {len(data) / 1e6:6.1f} {ours.median:11.3f} {theirs.median:11.3f} "
              f"{ours.median / theirs.median:6.1f}  {status}")


if __name__ == "__main__":
    main()
