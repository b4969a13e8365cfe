"""A2DE: a brute-force computation from the rows (missing values, every estimate), the exact joint
model on two attributes, the AODE fallback, the memory refusal, partial_fit and weights."""

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from pgm_models import A2DE, AODE
from pgm_models.datasets import load_dataset


def _with_missing(dataset, fraction, seed):
    X, y = load_dataset(dataset)
    return X.mask(np.random.default_rng(seed).random(X.shape) < fraction), y


def _brute_force(X, y, classes, rows, estimate, alpha, m, limit):
    """log p(y = k, x) of ``rows`` by the formula, every count a comparison over X's rows; Laplace
    ``alpha`` or, with ``m``, the m-estimate; pairs below ``limit`` left out (None if none left)."""
    codes = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
    sizes = [len(X[c].cat.categories) for c in X.columns]
    labels = np.asarray(y)

    def estimated(count, total, n_cells):
        a = alpha if m is None else m / n_cells
        if estimate == "mle":
            return count / total if total > 0 else 1 / n_cells
        if estimate == "map":
            return (count + a - 1) / (total + n_cells * (a - 1))
        return (count + a) / (total + n_cells * a)

    result = np.full((len(rows), len(classes)), np.nan)
    for r, n in enumerate(rows):
        observed = [j for j in range(len(sizes)) if codes[n, j] >= 0]
        pairs = [
            (a, b)
            for a, b in combinations(observed, 2)
            if ((codes[:, a] == codes[n, a]) & (codes[:, b] == codes[n, b])).sum() >= limit
        ]
        if not pairs:
            continue
        for k, label in enumerate(classes):
            total = 0.0
            for a, b in pairs:
                both = (codes[:, a] == codes[n, a]) & (codes[:, b] == codes[n, b])
                parents_observed = (codes[:, a] >= 0) & (codes[:, b] >= 0)
                p = estimated(
                    (both & (labels == label)).sum(), parents_observed.sum(), len(classes) * sizes[a] * sizes[b]
                )
                for j in observed:
                    if j in (a, b):
                        continue
                    given = both & (labels == label) & (codes[:, j] >= 0)
                    p *= estimated((given & (codes[:, j] == codes[n, j])).sum(), given.sum(), sizes[j])
                total += p
            result[r, k] = np.log(total / len(pairs))
    return result


@pytest.mark.parametrize(
    "estimate, prior",
    [(estimate, {"alpha": 2.0}) for estimate in ("mle", "map", "mean", "predictive")]
    # (the m-estimate's cells have α = m/S < 1: no interior mode)
    + [(estimate, {"estimator": "m-estimate", "m": 3.0}) for estimate in ("mle", "mean")],
)
def test_equals_the_formula_computed_from_the_rows(estimate, prior):
    X, y = _with_missing("breast-cancer", 0.05, 0)
    rows = np.arange(0, len(y), 9)
    model = A2DE(**prior).fit(X, y)
    m = prior.get("m") if "estimator" in prior else None
    expected = _brute_force(
        X, y, model.classes_, rows, "mean" if estimate == "predictive" else estimate, prior.get("alpha"), m, 1
    )
    assert not np.isnan(expected).any()
    np.testing.assert_allclose(model.predict_joint_log_proba(X.iloc[rows], estimate=estimate), expected, rtol=1e-10)


def test_two_attributes_are_the_exact_smoothed_joint_model():
    """One pair and no child: p(y, x1, x2) = (n(y, x1, x2) + α)/(N + K r1 r2 α)."""
    X, y = load_dataset("contact-lenses")
    X = X[["age", "tear-prod-rate"]]
    model = A2DE(alpha=0.5).fit(X, y)
    table = pd.crosstab([y, X["age"], X["tear-prod-rate"]], columns="n").reindex(
        pd.MultiIndex.from_product([model.classes_, X["age"].cat.categories, X["tear-prod-rate"].cat.categories]),
        fill_value=0,
    )
    n = table["n"].to_numpy().reshape(len(model.classes_), 3, 2)
    joint = (n + 0.5) / (len(y) + 3 * 3 * 2 * 0.5)
    expected = joint[:, X["age"].cat.codes, X["tear-prod-rate"].cat.codes].T
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(X)), expected, rtol=1e-12)


def test_rows_without_a_frequent_pair_fall_back_to_aode():
    """Under limit 120 a quarter of breast-cancer's rows have no pair of values seen together 120
    times; AODE scores those with the same limit on single values."""
    X, y = _with_missing("breast-cancer", 0.05, 1)
    model = A2DE(frequency_limit=120).fit(X, y)
    aode = AODE(frequency_limit=120).fit(X, y)
    rows = np.arange(len(y))
    expected = _brute_force(X, y, model.classes_, rows[::7], "mean", 1.0, None, 120)
    fallback = np.isnan(expected[:, 0])
    assert fallback.any() and not fallback.all()
    scores = model.predict_joint_log_proba(X.iloc[rows[::7]])
    np.testing.assert_allclose(scores[~fallback], expected[~fallback], rtol=1e-10)
    np.testing.assert_allclose(scores[fallback], aode.predict_joint_log_proba(X.iloc[rows[::7]][fallback]), rtol=1e-12)


def test_a_triple_tensor_too_large_is_refused_with_its_size():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"x{j}": pd.Categorical(rng.integers(0, 3000, 100), categories=range(3000)) for j in range(3)})
    with pytest.raises(ValueError, match=r"A2DE's triple counts, a 2 × 9000 × 9000 × 9000 tensor .* GiB of memory"):
        A2DE(max_triple_cells=10**13).fit(X, np.repeat(["a", "b"], 50))
    with pytest.raises(
        ValueError,
        match=r"a 2 × 9000 × 9000 × 9000 tensor .* 1,458,000,000,000 cells, more than max_triple_cells=67,108,864",
    ):
        A2DE().fit(X, np.repeat(["a", "b"], 50))
    with pytest.raises(ValueError, match="max_triple_cells must be a whole number > 0"):
        A2DE(max_triple_cells=0.5).fit(X, np.repeat(["a", "b"], 50))


def test_partial_fit_and_integer_weights_equal_fit_on_the_rows():
    X, y = _with_missing("breast-cancer", 0.05, 2)
    model = A2DE().fit(X, y)
    batches = A2DE().partial_fit(X[:100], y[:100], classes=model.classes_).partial_fit(X[100:], y[100:])
    np.testing.assert_allclose(batches.predict_proba(X), model.predict_proba(X), rtol=1e-12)
    weight = np.arange(len(y)) % 3
    rows = np.repeat(np.arange(len(y)), weight)
    np.testing.assert_allclose(
        A2DE().fit(X, y, sample_weight=weight).predict_proba(X),
        A2DE().fit(X.iloc[rows], y.iloc[rows]).predict_proba(X),
        rtol=1e-12,
    )


def _rows_and_cells(n_rows, n_values, missing, seed, n_classes=3):
    """(cells (N, F) value cells, T where missing, class index, model) of a synthetic set whose groups of
    (class, value) hold more than 64 rows (several words of bits) and some no row."""
    rng = np.random.default_rng(seed)
    sizes = [n_values, 2, n_values + 1, 3, 2, n_values]
    X = pd.DataFrame(
        {f"x{j}": pd.Categorical(rng.integers(0, r, n_rows), categories=range(r + 1)) for j, r in enumerate(sizes)}
    )
    X = X.mask(rng.random(X.shape) < missing)
    y = pd.Series(rng.integers(0, n_classes, n_rows)).map({0: "a", 1: "b", 2: "c"})
    model = A2DE().fit(X, y)
    codes = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
    return model._layout.value_index(codes), pd.Categorical(y).codes.astype(np.intp), model


def _row_by_row_triples(cells, class_index, weight, n_classes, n_values):
    """N(k, s, t, u) by the definition: each row adds its weight to every multiset of its observed
    cells, row after row (so each cell's sum runs in row order)."""
    counts = np.zeros((n_classes, n_values, n_values, n_values))
    for row, k, w in zip(cells, class_index, weight):
        seen = sorted(c for c in row if c < n_values)
        for i, s in enumerate(seen):
            for j in range(i, len(seen)):
                for m in range(j, len(seen)):
                    for order in {
                        (s, seen[j], seen[m]),
                        (s, seen[m], seen[j]),
                        (seen[j], s, seen[m]),
                        (seen[j], seen[m], s),
                        (seen[m], s, seen[j]),
                        (seen[m], seen[j], s),
                    }:
                        counts[(k, *order)] += w
    return counts


@pytest.mark.parametrize("n_rows, missing", [(40, 0.0), (700, 0.15)])
def test_the_compiled_triple_counts_are_the_row_by_row_counts_bit_for_bit(n_rows, missing):
    """The bit-set kernel (unit weights) and the weighted kernel give the definition's counts: whole
    numbers exactly, fractional weights summed in the same (row) order, so bit for bit; 700 rows put
    more than 64 rows of a (class, value) group in several words of bits."""
    from pgm_models.semi_naive import _a2de_kernel as kernels

    cells, class_index, model = _rows_and_cells(n_rows, 3, missing, seed=n_rows)
    layout, n_values = model._layout, len(model._layout.value_cells)
    ones = np.ones(n_rows)
    expected = _row_by_row_triples(cells, class_index, ones, 3, n_values)
    np.testing.assert_array_equal(model.triple_count_, expected)
    for dtype in (np.int16, np.intp):
        rows = np.ascontiguousarray(cells, dtype=dtype)
        counts = np.zeros(expected.shape)
        kernels.unit_triple_counts(rows, class_index, layout.value_starts, layout.sizes, counts)
        np.testing.assert_array_equal(counts, expected)
        counts = np.zeros(expected.shape)
        kernels.triple_counts(rows, class_index, ones, layout.value_starts, layout.sizes, counts)
        np.testing.assert_array_equal(counts, expected)
    weight = np.random.default_rng(1).random(n_rows) * 3
    counts = np.zeros(expected.shape)
    kernels.triple_counts(cells, class_index, weight, layout.value_starts, layout.sizes, counts)
    np.testing.assert_array_equal(counts, _row_by_row_triples(cells, class_index, weight, 3, n_values))


def test_the_compiled_scores_and_child_tables_are_the_plain_ones():
    """``log_child_means`` is ``_log_pair_child("mean")`` where scoring reads it (to 1e-15) and
    ``child_means`` its exponential (class last, 1 at the parents' cells and the padding cell); the
    compiled log scores are the running log-sum-exp computed pair by pair in Python (bit for bit) and
    the scores in probabilities, which predictions use here, equal them to 1e-13; for 3 classes and
    for 2 (whose sums run side by side, four rows at once)."""
    from pgm_models.semi_naive import _a2de_kernel as kernels

    for n_classes in (3, 2):
        cells, class_index, model = _rows_and_cells(300, 3, 0.1, seed=n_classes, n_classes=n_classes)
        log_joint, log_child = model._log_pair_joint("mean"), model._log_child_means()
        joint, child, pair_frequency, in_probabilities = model._a2de_tables("mean")
        assert in_probabilities
        plain = model._log_pair_child("mean")
        layout, n_values = model._layout, len(model._layout.value_cells)
        reads = np.triu(~layout.same_attribute_mask(), 1)  # the lines (s < t of two attributes) scoring reads
        np.testing.assert_allclose(log_child[:, reads], plain[:, reads], rtol=0, atol=1e-15)
        np.testing.assert_allclose(child[reads][:, :n_values].transpose(2, 0, 1), np.exp(plain[:, reads]), rtol=1e-15)
        np.testing.assert_array_equal(child[reads][:, n_values], 1.0)
        np.testing.assert_allclose(joint.transpose(2, 0, 1)[:, reads], np.exp(log_joint[:, reads]), rtol=1e-15)
        scores, counts = kernels.a2de_log_scores(log_joint, log_child, pair_frequency, np.asarray(cells, np.intp), 2.0)
        products, product_counts = kernels.a2de_scores(joint, child, pair_frequency, np.asarray(cells, np.intp), 2.0)
        np.testing.assert_array_equal(product_counts, counts)
        np.testing.assert_allclose(products, scores, rtol=1e-13)
        (n_rows, n_features) = cells.shape
        for n in range(0, n_rows, 7):
            peaks, sums, eligible = np.full(n_classes, -np.inf), np.zeros(n_classes), 0
            for a, b in combinations(range(n_features), 2):
                s, t = cells[n, a], cells[n, b]
                if s == n_values or t == n_values or pair_frequency[s, t] < 2.0:
                    continue
                eligible += 1
                for k in range(n_classes):
                    term = log_joint[k, s, t]
                    for j in range(n_features):
                        if j not in (a, b) and cells[n, j] < n_values:
                            term += log_child[k, s, t, cells[n, j]]
                    if term == -np.inf:
                        continue
                    if term <= peaks[k]:
                        sums[k] += np.exp(term - peaks[k])
                    else:
                        sums[k], peaks[k] = sums[k] * np.exp(peaks[k] - term) + 1.0, term
            assert counts[n] == eligible
            if eligible:
                np.testing.assert_array_equal(scores[n], np.log(sums) + peaks - np.log(float(eligible)))


def _products_stay_normal(model):
    """The model's own test that chooses the scores in probabilities, on its least joint and child."""
    return model._products_stay_normal(model._log_pair_joint("mean"), model._child_means()[1])


def test_scores_switch_to_logs_where_a_product_could_fall_below_the_normal_floats():
    """The smaller α, the smaller the least product: on either side of the α at which it crosses
    2^−1000 (found by bisection, both sides within a factor 1 + 1e-9), predictions take the
    probabilities' path above it and the logs' below, and both equal the log path's scores."""
    from pgm_models.semi_naive import _a2de_kernel as kernels

    X, y = _with_missing("breast-cancer", 0.05, 3)
    low, high = -200.0, 0.0  # log10 α: below, products of 7 children under 2^−1000; above, over
    for _ in range(40):
        middle = (low + high) / 2
        if _products_stay_normal(A2DE(alpha=10.0**middle).fit(X, y)):
            high = middle
        else:
            low = middle
    assert high - low < 1e-9 / np.log(10) and -100 < low < -20
    for log_alpha, expected in ((high, True), (low, False)):
        model = A2DE(alpha=10.0**log_alpha).fit(X, y)
        assert _products_stay_normal(model) is expected
        assert model._a2de_tables("mean")[3] is expected
        codes = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
        cells = np.asarray(model._layout.value_index(codes), np.intp)
        pair_frequency = model._value_counts(model.pair_count_, model._layout).sum(axis=0)
        logs, counts = kernels.a2de_log_scores(
            model._log_pair_joint("mean"), model._log_child_means(), pair_frequency, cells, 1.0
        )
        assert (counts > 0).all()
        np.testing.assert_allclose(model.predict_joint_log_proba(X), logs, rtol=1e-13)


def test_fallback_rows_are_scored_in_aodes_blocks(monkeypatch):
    """With every row below the frequency limit and blocks of 256 rows, A2DE's 286 rows go to AODE in
    two blocks and equal AODE's scores."""
    from pgm_models.semi_naive import a2de

    X, y = _with_missing("breast-cancer", 0.05, 4)
    monkeypatch.setattr(a2de, "FLOATS_PER_BLOCK", 1)
    model = A2DE(frequency_limit=10**6).fit(X, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), AODE(frequency_limit=10**6).fit(X, y).predict_joint_log_proba(X), rtol=1e-12
    )


def test_loo_of_two_attributes_says_it_is_not_exact_rather_than_comparing_absent_triples():
    """With two attributes A2DE counts no triples (``triple_count_`` is None): the LOO's check that
    the rows give the fitted statistics skips an absent statistic instead of calling None ≠ None
    (it stopped ``pgm-models zoo`` on textbook-15 and mountain-climbing)."""
    from pgm_models.datasets import load_dataset

    X, y = load_dataset("textbook-15")
    model = A2DE().fit(X, y)
    assert X.shape[1] == 2 and model.triple_count_ is None
    with pytest.raises(NotImplementedError, match="A2DE has no exact leave-one-out"):
        model.loo(X, y)
    other = X.copy()
    column = other.columns[0]
    other.loc[other.index[0], column] = next(v for v in other[column].unique() if v != other[column].iloc[0])
    with pytest.raises(ValueError, match="do not give the fitted pair_count_"):
        model.loo(other, y)


def test_one_attribute_is_aodes_model_in_prediction_and_synthetic_rows():
    """No pair of super-parents exists: every row is AODE's (it raised an IndexError)."""
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 30)
    X = ((y + rng.integers(0, 2, 30)) % 3)[:, None]
    model, aode = A2DE().fit(X, y), AODE().fit(X, y)
    for estimate in ("mean", "map", "mle", "predictive"):
        np.testing.assert_array_equal(
            model.predict_proba(X, estimate=estimate), aode.predict_proba(X, estimate=estimate)
        )
    for fitted in (model, aode):
        fitted.sample_prior_predictive(4, random_seed=3)
        fitted.sample_posterior_predictive(n=4, random_seed=3)
    for group in ("prior_predictive", "posterior_predictive"):
        np.testing.assert_array_equal(model.idata_[group]["x_x0"], aode.idata_[group]["x_x0"])
        np.testing.assert_array_equal(model.idata_[group]["y"], aode.idata_[group]["y"])


@pytest.mark.parametrize("prior", [True, False], ids=["prior", "posterior"])
def test_two_attributes_synthetic_rows_follow_the_smoothed_joint(prior):
    """Two attributes keep no triple counts (it raised 'diag requires an array of at least two
    dimensions'): the rows come from the joint (n(y, x1, x2) + α)/(N + K r1 r2 α), α = 1, uniform
    1/12 under the prior. Pooled over 3000 datasets of 24 rows each cell's frequency has a standard
    deviation below 0.002 (the Dirichlet's spread over the datasets, at most sqrt(p(1 − p)/13/3000),
    and the rows' own); 0.03 is 15 of them: a false failure far below once in 10^12 runs."""
    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, 24)
    X = np.column_stack([(y + rng.integers(0, 2, 24)) % 3, rng.integers(0, 2, 24)])
    model = A2DE().fit(X, y)
    if prior:
        model.sample_prior_predictive(3000, random_seed=4)
        drawn, expected = model.idata_.prior_predictive, np.full((2, 3, 2), 1 / 12)
    else:
        model.sample_posterior_predictive(n=3000, random_seed=4)
        drawn = model.idata_.posterior_predictive
        counts = np.zeros((2, 3, 2))
        np.add.at(counts, (y, X[:, 0], X[:, 1]), 1)
        expected = (counts + 1) / (24 + 12)
    cells = np.zeros((2, 3, 2))
    np.add.at(cells, (drawn["y"].values.ravel(), drawn["x_x0"].values.ravel(), drawn["x_x1"].values.ravel()), 1)
    np.testing.assert_allclose(cells / cells.sum(), expected, atol=0.03)
