"""Boosting's slot histograms: a node's slots taken as its parent's minus its sibling's
are the slots summed from its own rows."""
from __future__ import annotations

import numpy as np
import pytest

from engine.tree._binning import prepare_features
from engine.tree._search_binned import BinnedX
from engine.tree._slot_histogram import SlotHistogram


def _binned(rng, n, p, dense: bool = False):
    """Few-valued columns, each mostly one value (not always the smallest): their rare
    entries are listed. ``dense``: columns of many values, summed column by column."""
    X = rng.integers(0, 6 if not dense else 12, size=(n, p)).astype(float)
    if not dense:
        X[rng.random((n, p)) < 0.5] = 2.0
    prep = prepare_features(X, np.zeros(p, dtype=np.intp), None)
    binned = BinnedX.from_prepared(prep)
    assert binned.dense == dense
    return binned


def _split(rng, rows, lnode, m):
    """Each node's rows into two children, some of which are not searched (leaves):
    the searched children's rows, nodes and parents, as the builder hands them on."""
    side = rng.random(len(rows)) < rng.uniform(0.2, 0.8, m)[lnode]
    child = 2 * lnode + side
    searched = rng.random(2 * m) < 0.8
    searched[:2] = True  # two siblings at least
    keep = searched[child]
    place = np.cumsum(searched) - 1
    return rows[keep], place[child[keep]], np.arange(2 * m)[searched] // 2


def _fills(hist, binned, w, z, mean, codes, K):
    """Counts, weights, a centred residual and class weights, as the search fills them."""
    out = {"count": hist.fill(binned, name="count"),
           "weight": hist.fill(binned, w, name="weight")}
    out["z"] = hist.fill(binned, z, name="z", centre=(mean, ("weight", 1.0)))
    out["classes"] = hist.fill_classes(binned, w, codes, K, name="classes")
    return out


def _centred(y, w, rows, lnode, m):
    """w·(y - node mean) per row (0 off the level) and the node means."""
    mean = np.bincount(lnode, weights=(w * y)[rows], minlength=m) / np.bincount(
        lnode, weights=w[rows], minlength=m)
    z = np.zeros(len(y))
    z[rows] = w[rows] * (y[rows] - mean[lnode])
    return z, mean


@pytest.mark.parametrize("dense", [False, True], ids=["rare entries", "columns"])
@pytest.mark.parametrize("seed", range(8))
def test_derived_slots_are_the_slots_of_the_nodes_own_rows(seed, dense):
    rng = np.random.default_rng(seed)
    n, p, K = int(rng.integers(200, 600)), int(rng.integers(1, 5)), int(rng.integers(2, 4))
    binned = _binned(rng, n, p, dense)
    w = rng.integers(1, 4, n).astype(float) if seed % 2 else rng.uniform(0.1, 2.0, n)
    y, codes = rng.normal(3.0, 2.0, n), rng.integers(0, K, n)
    m_above = int(rng.integers(1, 4))
    rows_above = np.sort(rng.permutation(n)[: n * 3 // 4])
    lnode_above = rng.integers(0, m_above, len(rows_above))
    above = SlotHistogram(binned, rows_above, lnode_above, m_above)
    z_above, mean_above = _centred(y, w, rows_above, lnode_above, m_above)
    _fills(above, binned, w, z_above, mean_above, codes, K)

    rows, lnode, parent = _split(rng, rows_above, lnode_above, m_above)
    m = len(parent)
    z, mean = _centred(y, w, rows, lnode, np.bincount(lnode, minlength=m).size)
    derived = SlotHistogram(binned, rows, lnode, m, above.kept, parent)
    direct = SlotHistogram(binned, rows, lnode, m)
    got, want = (_fills(h, binned, w, z, mean, codes, K) for h in (derived, direct))
    assert derived.derived is not None and derived.n_read(binned) < direct.n_read(binned)
    np.testing.assert_array_equal(got["count"], want["count"])  # whole numbers: to the bit
    for name in ("weight", "z", "classes"):
        np.testing.assert_allclose(got[name], want[name], rtol=1e-9, atol=1e-9, err_msg=name)
    if seed % 2:  # whole weights: class weights to the bit too
        np.testing.assert_array_equal(got["classes"], want["classes"])


@pytest.mark.parametrize("dense", [False, True], ids=["rare entries", "columns"])
def test_a_statistic_the_level_above_lacks_is_summed_from_every_nodes_rows(dense):
    rng = np.random.default_rng(0)
    binned = _binned(rng, 200, 3, dense)
    rows_above, lnode_above = np.arange(200), np.zeros(200, dtype=np.intp)
    above = SlotHistogram(binned, rows_above, lnode_above, 1)
    above.fill(binned, name="count")
    rows, lnode, parent = _split(rng, rows_above, lnode_above, 1)
    m = len(parent)
    stat = rng.normal(size=200)
    derived = SlotHistogram(binned, rows, lnode, m, above.kept, parent)
    direct = SlotHistogram(binned, rows, lnode, m)
    np.testing.assert_allclose(derived.fill(binned, stat, name="new"),
                               direct.fill(binned, stat, name="new"), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dense", [False, True], ids=["rare entries", "columns"])
def test_slots_are_the_sums_of_their_rows_counted_one_by_one(dense):
    """Against a brute force: every (node, bin) slot's count, sum and class weights,
    from a loop over the level's rows and columns."""
    rng = np.random.default_rng(5)
    n, p, m, K = 300, 3, 3, 3
    binned = _binned(rng, n, p, dense)
    rows = np.sort(rng.permutation(n)[:250])
    lnode = rng.integers(0, m, len(rows))
    stat, weight, codes = rng.normal(size=n), rng.uniform(0.5, 2.0, n), rng.integers(0, K, n)
    hist = SlotHistogram(binned, rows, lnode, m)
    B = binned.n_bins
    count, total, classes = np.zeros(m * B), np.zeros(m * B), np.zeros((m * B, K))
    for i, node in zip(rows, lnode, strict=True):
        for j in range(p):
            slot = node * B + binned.gbin[i, j]
            count[slot] += 1
            total[slot] += stat[i]
            classes[slot, codes[i]] += weight[i]
    np.testing.assert_array_equal(hist.fill(binned), count)
    np.testing.assert_allclose(hist.fill(binned, stat), total, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hist.fill_classes(binned, weight, codes, K), classes,
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 9, 13])
def test_a_level_s_entries_come_node_after_node_in_bin_order(m, monkeypatch):
    """Taken node by node (a pass each, few nodes) or sorted by node (more), a level's
    entries are each node's, in the order of the binned entries, nodes in order; rows
    that left the level bring none."""
    from engine.tree import _search_binned

    rng = np.random.default_rng(m)
    n, p = 300, 3
    X = rng.normal(size=(n, p)).round(2)  # many values (and some ties): entries, not slots
    binned = BinnedX.from_prepared(prepare_features(X, np.zeros(p, dtype=np.intp), None))
    rows = np.flatnonzero(rng.random(n) < (1.0 if m == 2 else 0.8))  # (every row: no sift)
    lnode = rng.integers(0, m, len(rows))
    node_of_row = np.full(n, -1)
    node_of_row[rows] = lnode
    nd = node_of_row[binned.ent_row]
    expected = np.concatenate([np.flatnonzero(nd == j) for j in range(m)])
    found = []
    for by_passes in (0, 100):
        monkeypatch.setattr(_search_binned, "NODES_BY_PASSES", by_passes)
        geo = _search_binned._geometry(binned, rows, lnode, m, n, np.bincount(lnode, minlength=m))
        assert geo.hist is None  # entries
        found.append(geo)
        np.testing.assert_array_equal(geo.sel, expected)
    np.testing.assert_array_equal(found[0].cut, found[1].cut)
    np.testing.assert_array_equal(found[0].erow, binned.ent_row[expected])
