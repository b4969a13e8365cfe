"""The bad-input matrix: one row per case — the estimator, what is wrong, the error it must give.

Every message names the offending column, value or shape; nothing is silently dropped.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from pgm_models import (
    A2DE,
    AODE,
    BMATAN,
    HNB,
    KDB,
    LDA,
    MANB,
    QDA,
    SPODE,
    TAN,
    WAODE,
    AODEsr,
    BayesNetClassifier,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    LogisticRegression,
    MixedNB,
    MultinomialNB,
)

X3 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [2.0, 2.0, 0.0], [1.0, 1.0, 1.0]])
Y = np.array(["a", "b", "a", "b"])
COLORS = pd.DataFrame({"color": ["red", "blue", "red", "blue"], "size": ["S", "L", "L", "S"]})
NULLABLE = pd.DataFrame({"w": pd.array([1.0, None, 2.0, 0.0], dtype="Float64"), "v": [1.0, 2.0, 0.0, 1.0]})
HUGE = np.vstack([X3, X3 + 1]) * 1e160
CODES = np.array([[0, 1, 2], [1, 0, 1], [2, 2, 0], [1, 1, 1]])  # nominal values as codes
NOMINAL = (AODEsr, WAODE, HNB, A2DE, KDB, BayesNetClassifier, MANB, BMATAN)
DISCRETE = (CategoricalNB, BernoulliNB, MultinomialNB, ComplementNB, SPODE, TAN, AODE, *NOMINAL)
EVERY = (*DISCRETE, GaussianNB, LDA, QDA, LogisticRegression, MixedNB)


def with_value(row, column, value, X=X3):
    bad = X.copy()
    bad[row, column] = value
    return bad


def fit(Model, X=X3, y=Y, **params):
    return lambda: Model(**params).fit(X, y)


def predict(Model, X_fit, X_predict, **params):
    return lambda: Model(**params).fit(X_fit, Y).predict(X_predict)


CASES = [
    (
        "NaN in numeric input",
        fit(GaussianNB, with_value(1, 2, np.nan)),
        ValueError,
        r"NaN or inf value: nan in column 2",
    ),
    ("inf in numeric input", fit(LDA, with_value(0, 1, np.inf)), ValueError, r"NaN or inf value: inf in column 1"),
    ("negative counts", fit(MultinomialNB, with_value(2, 0, -4.0)), ValueError, r"negative value -4.0 in column 0"),
    (
        "non-binary with binarize=None",
        fit(BernoulliNB, X3, binarize=None),
        ValueError,
        r"non-binary value 2.0 in column 2",
    ),
    (
        "unseen category, policy error",
        predict(CategoricalNB, COLORS, COLORS.assign(color="green"), handle_unknown="error"),
        ValueError,
        r"column 'color' has value\(s\) \['green'\] outside its domain \['blue', 'red'\]",
    ),
    (
        "unseen category in training",
        lambda: CategoricalNB(n_categories=2).fit(with_value(0, 0, 7.0), Y),
        ValueError,
        r"column 0 has value\(s\) \[2.0, 7.0\] outside its domain \[0, 1\]",
    ),
    (
        "wrong feature count",
        predict(GaussianNB, X3, X3[:, :2]),
        ValueError,
        r"X has 2 features, but GaussianNB is expecting 3",
    ),
    ("X/y length mismatch", fit(AODE, X3, Y[:3]), ValueError, r"X has 4 rows but y has 3"),
    ("empty X", fit(MultinomialNB, X3[:0], Y[:0]), ValueError, r"X is empty \(0 rows\)"),
    (
        "NaN labels",
        fit(CategoricalNB, X3, np.array(["a", np.nan, "b", "a"], dtype=object)),
        ValueError,
        r"y has 1 missing label\(s\).*row 1",
    ),
    (
        "loss matrix of the wrong shape",
        lambda: GaussianNB().fit(X3, Y).predict(X3, loss=np.ones((3, 3))),
        ValueError,
        r"loss matrix has shape \(3, 3\); expected \(2, 2\)",
    ),
    (
        "negative loss",
        lambda: GaussianNB().fit(X3, Y).predict(X3, loss=[[0, 1], [-2, 0]]),
        ValueError,
        r"entry \[1, 0\] = -2.0 is negative",
    ),
    ("alpha < 0", fit(MultinomialNB, alpha=-0.5), ValueError, r"alpha must be finite and ≥ 0, got -0.5"),
    ("unknown estimate", fit(SPODE, estimate="posterior"), ValueError, r"estimate='posterior' is not one of"),
    (
        "super-parent out of range",
        fit(SPODE, parent=3),
        ValueError,
        r"parent=3 is out of range: there are 3 attributes",
    ),
    ("1-D X", fit(GaussianNB, X3[:, 0]), ValueError, r"Expected a 2-D X .* Reshape your data"),
    (
        "sparse X for a Gaussian model",
        lambda: GaussianNB().fit(__import__("scipy.sparse").sparse.csr_matrix(X3), Y),
        ValueError,
        r"GaussianNB needs dense numeric X",
    ),
    # issue 17: values whose squares overflow, parameters out of range, draws, nullable <NA>
    *[
        (
            f"values of 1e160 for {M.__name__}",
            fit(M, HUGE, np.r_[Y, Y]),
            ValueError,
            r"X has the value 1e\+160 in column 0; Gaussian models need \|x\| ≤ 1e\+150",
        )
        for M in (GaussianNB, LDA, QDA)
    ],
    # MixedNB's Gaussian columns as GaussianNB's: one class's overflowing scatter made every class's NaN
    *[
        (
            f"{value} in a Gaussian column of MixedNB",
            fit(MixedNB, pd.DataFrame({"a": [value, 2.0, 3.0, 1.0], "b": [0.1, 0.5, 0.3, 0.2]})),
            ValueError,
            rf"column 'a' is a gaussian column and has a value beyond ±1e\+150 .*rescale the column\): {text}",
        )
        for value, text in ((1e160, r"1e\+160"), (-1e200, r"-1e\+200"), (np.inf, "inf"))
    ],
    *[
        (
            f"reg_param={r} for {M.__name__}",
            fit(M, reg_param=r),
            ValueError,
            rf"reg_param must be a number in \[0, 1\].*got {r}",
        )
        for M in (LDA, QDA)
        for r in (2.0, -1, np.nan)
    ],
    (
        "frequency_limit NaN",
        lambda: AODE(frequency_limit=np.nan).fit(X3, Y).predict(X3),
        ValueError,
        r"frequency_limit must be a number ≥ 0 \(Weka -F\), got nan",
    ),
    (
        "binarize NaN",
        fit(BernoulliNB, binarize=np.nan),
        ValueError,
        r"binarize must be a finite number \(the threshold\) or None, got nan",
    ),
    (
        "no posterior draws",
        lambda: CategoricalNB().fit(X3, Y).predict_proba_draws(X3, n_draws=0),
        ValueError,
        r"n_draws must be a whole number ≥ 1 \(how many posterior draws\), got 0",
    ),
    (
        "fractional number of draws",
        lambda: GaussianNB().fit(X3, Y).predict_proba_draws(X3, n_draws=2.5),
        ValueError,
        r"n_draws must be a whole number ≥ 1",
    ),
    (
        "no exact draws",
        lambda: CategoricalNB().fit(X3, Y).posterior_draws(0),
        ValueError,
        r"n must be a whole number ≥ 1.*got 0",
    ),
    *[
        (
            f"nullable <NA> for {M.__name__}",
            fit(M, NULLABLE),
            ValueError,
            r"X has a NaN or inf value: nan in column 'w'",
        )
        for M in (GaussianNB, LDA, BernoulliNB, MultinomialNB, LogisticRegression)
    ],
    *[
        (
            f"repeated column name at fit for {M.__name__}",
            fit(M, pd.DataFrame(X3, columns=["u", "v", "u"])),
            ValueError,
            r"X has repeated column name\(s\) \['u'\]: every column needs its own name",
        )
        for M in (GaussianNB, LDA, MultinomialNB, LogisticRegression)
    ],
    *[
        (
            f"repeated column name at fit for {M.__name__}",
            fit(M, COLORS.set_axis(["c", "c"], axis=1)),
            ValueError,
            r"X has repeated column name\(s\) \['c'\]",
        )
        for M in (CategoricalNB, AODE, TAN)
    ],
    (
        "repeated column name at predict",
        predict(CategoricalNB, COLORS, COLORS.assign(size2=COLORS["size"]).set_axis(["color", "size", "size"], axis=1)),
        ValueError,
        r"X has repeated column name\(s\) \['size'\]",
    ),
    *[
        (
            f"AODE tempered weights, temperature={t!r}",
            lambda t=t: AODE(weights="tempered", temperature=t).fit(CODES, Y).predict_proba(CODES),
            ValueError,
            rf"temperature must be a number ≥ 0, got {text}",
        )
        for t, text in ((-1, "-1"), ("hot", "'hot'"), (np.nan, "nan"))
    ],
    *[
        (
            f"MixedNB {name}={value!r} with a Gaussian column",
            fit(MixedNB, NULLABLE.astype(float).fillna(0.5), **{name: value}),
            ValueError,
            rf"{name} must be a number {bound}, got {text}",
        )
        for name, value, bound, text in (
            ("var_strength", -1, "> 0", "-1"),
            ("mean_strength", "x", "> 0", "'x'"),
            ("var_smoothing", -1, "≥ 0", "-1"),
        )
    ],
    # the refusal names the estimator given the input (it said CategoricalNB, or MultinomialNB, for any)
    *[
        (
            f"sparse X for {M.__name__}",
            lambda M=M: M().fit(__import__("scipy.sparse").sparse.csr_matrix(CODES), Y),
            ValueError,
            rf"^{M.__name__} takes dense attribute values, not a sparse matrix$",
        )
        for M in (SPODE, TAN, AODE, *NOMINAL, MixedNB)
    ],
    *[
        (
            f"text in a numeric column for {M.__name__}",
            fit(M, pd.DataFrame(X3, columns=["u", "v", "w"]).astype(object).assign(v=[1.0, 2.0, "n/a", 0.0])),
            ValueError,
            rf"X must be numeric for {M.__name__}: .* \(column 'v', row 2: 'n/a'\)$",
        )
        for M in (GaussianNB, LDA, MultinomialNB, LogisticRegression)
    ],
    (
        "negative counts for ComplementNB",
        fit(ComplementNB, with_value(2, 0, -4.0)),
        ValueError,
        r"negative value -4.0 in column 0; Negative values in data are not counts: ComplementNB needs counts ≥ 0$",
    ),
    (
        "pair tensor beyond memory",
        lambda: TAN(n_categories=1000).fit(np.zeros((2, 2000), dtype=int), [0, 1]),
        ValueError,
        r"TAN's pair counts, a 2 × 2002000 × 2002000 tensor .* GiB of memory, more than the .* GiB available",
    ),
]


# issue 33: this round's families and their parameters; class_prior and n_categories on every model that takes them
ROUND_3 = [
    *[
        (f"string m for {M.__name__}", M, dict(m="abc"), r"m must be a number ≥ 0, got 'abc'")
        for M in (SPODE, AODE, AODEsr, WAODE, HNB, A2DE)
    ],
    *[
        (f"m < 0 for {M.__name__}", M, dict(estimator="m-estimate", m=-1.0), r"m must be a number ≥ 0, got -1.0")
        for M in (AODEsr, WAODE, HNB, A2DE)
    ],
    *[
        (f"estimator typo for {M.__name__}", M, dict(estimator="laplase"), r"estimator='laplase' is not one of")
        for M in (AODEsr, WAODE, HNB, A2DE)
    ],
    *[
        (f"alpha < 0 for {M.__name__}", M, dict(alpha=-1), r"alpha must be a number ≥ 0, got -1")
        for M in (AODEsr, WAODE, HNB, A2DE)
    ],
    (
        "A2DE takes no learned alpha",
        A2DE,
        dict(alpha="evidence"),
        r"alpha='evidence': A2DE takes a number \(no learned prior\)",
    ),
    (
        "A2DE max_triple_cells 0",
        A2DE,
        dict(max_triple_cells=0),
        r"max_triple_cells must be a whole number > 0, got 0",
    ),
    ("A2DE frequency_limit < 0", A2DE, dict(frequency_limit=-1), r"frequency_limit must be a number ≥ 0 \(Weka -F\)"),
    ("AODEsr critical_value NaN", AODEsr, dict(critical_value=np.nan), r"critical_value must be a number ≥ 0.*got nan"),
    ("AODEsr critical_value string", AODEsr, dict(critical_value="50"), r"critical_value must be .*got '50'"),
    ("KDB k < 0", KDB, dict(k=-1), r"k must be a whole number ≥ 0 \(attribute parents besides the class\), got -1"),
    ("KDB fractional k", KDB, dict(k=1.5), r"k must be a whole number ≥ 0.*got 1.5"),
    *[
        (f"prior_count {v!r} for {M.__name__}", M, dict(prior_count=v), rf"prior_count must be a number > 0, got {t}")
        for M in (KDB, BayesNetClassifier)
        for v, t in ((0, "0"), ("abc", "'abc'"), (np.inf, "inf"))
    ],
    *[
        (
            f"missing policy typo for {M.__name__}",
            M,
            dict(missing="drop"),
            r"missing='drop' is not one of \('mode', 'error'\)",
        )
        for M in (KDB, BayesNetClassifier, BMATAN)
    ],
    (
        "BayesNetClassifier search typo",
        BayesNetClassifier,
        dict(search="k3"),
        r"search='k3' is not one of \('k2', 'hill-climb', 'tan'\)",
    ),
    (
        "BayesNetClassifier score typo",
        BayesNetClassifier,
        dict(score_type="mdl"),
        r"score_type='mdl' is not one of \('bayes', 'bdeu', 'bic', 'aic', 'loglik'\)",
    ),
    *[
        (
            f"BayesNetClassifier max_parents={v!r}",
            BayesNetClassifier,
            dict(max_parents=v),
            rf"max_parents must be a whole number ≥ 0 \(the class counts as one\), got {t}",
        )
        for v, t in ((-1, "-1"), (1.5, "1.5"), ("2", "'2'"))
    ],
    *[
        (
            f"MANB arc_prior={v!r}",
            MANB,
            dict(arc_prior=v),
            rf"arc_prior must be a number in \(0, 1\) or 'evidence', got {t}",
        )
        for v, t in ((0.0, "0.0"), (1.0, "1.0"), (np.nan, "nan"))
    ],
    (
        "MANB arc_prior typo",
        MANB,
        dict(arc_prior="evidense"),
        r"arc_prior='evidense': a string must be one of \('evidence',\)",
    ),
    *[
        (f"MANB alpha={v!r}", MANB, dict(alpha=v), rf"alpha must be a number > 0, got {t}")
        for v, t in ((0, "0"), ("abc", "'abc'"))
    ],
    *[
        (f"BMATAN ess={v!r}", BMATAN, dict(ess=v), rf"ess must be a number > 0, got {t}")
        for v, t in ((0, "0"), ("1", "'1'"))
    ],
    (
        "BMATAN edge_prior of the wrong shape",
        BMATAN,
        dict(edge_prior=np.ones((2, 2))),
        r"edge_prior must be a symmetric \(3, 3\) array of finite numbers > 0 off the diagonal, got shape \(2, 2\)",
    ),
    (
        "BMATAN edge_prior with a zero",
        BMATAN,
        dict(edge_prior=np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0]])),
        r"edge_prior must be .*got off-diagonal entries from 0 to 1",
    ),
    (
        "BMATAN asymmetric edge_prior",
        BMATAN,
        dict(edge_prior=np.array([[1.0, 2.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])),
        r"edge_prior must be .*got an asymmetric array \(largest \|P − Pᵀ\| 1\)",
    ),
    ("BMATAN edge_prior text", BMATAN, dict(edge_prior="uniform"), r"edge_prior must be .*got 'uniform'"),
    ("ComplementNB norm not a bool", ComplementNB, dict(norm="l2"), r"norm must be True or False, got 'l2'"),
    ("ComplementNB alpha < 0", ComplementNB, dict(alpha=-0.5), r"alpha must be finite and ≥ 0, got -0.5"),
    *[
        (
            f"{M.__name__} shrinkage={v!r}",
            M,
            dict(shrinkage=v),
            rf"shrinkage must be None, 'auto' \(Ledoit–Wolf\), 'oas' or a number in \[0, 1\], got {t}",
        )
        for M in (LDA, QDA)
        for v, t in ((1.5, "1.5"), (-0.1, "-0.1"), ("ledoit", "'ledoit'"), (np.nan, "nan"))
    ],
    *[
        (
            f"{M.__name__} shrinkage with a covariance_estimator",
            M,
            dict(shrinkage=0.5, covariance_estimator=__import__("sklearn.covariance").covariance.OAS()),
            r"shrinkage=0.5 and covariance_estimator are both set: give one of them",
        )
        for M in (LDA, QDA)
    ],
    *[
        (
            f"{M.__name__} covariance_estimator without fit",
            M,
            dict(covariance_estimator="oas"),
            r"covariance_estimator must be a scikit-learn covariance estimator \(with fit and covariance_\), got 'oas'",
        )
        for M in (LDA, QDA)
    ],
    *[
        (
            f"{M.__name__} prior_mean of the wrong length",
            M,
            dict(prior_mean=[1.0, 2.0]),
            r"prior_mean must be a number or 3 numbers \(one per feature\), got \[1.0, 2.0\]",
        )
        for M in (GaussianNB, LDA, QDA)
    ],
    (
        "GaussianNB prior_var of the wrong length",
        GaussianNB,
        dict(prior_var=[1.0, 2.0]),
        r"prior_var must be a number > 0 or 3 of them \(one per feature\)",
    ),
    *[
        (f"GaussianNB ddof={v!r}", GaussianNB, dict(ddof=v), rf"ddof must be a number ≥ 0 .*got {t}")
        for v, t in ((-1, "-1"), ("1", "'1'"), (np.nan, "nan"))
    ],
    (
        "GaussianNB var_smoothing text",
        GaussianNB,
        dict(var_smoothing="1e-9"),
        r"var_smoothing must be a number ≥ 0, got '1e-9'",
    ),
    *[
        (
            f"LogisticRegression max_iter={v!r}",
            LogisticRegression,
            dict(max_iter=v),
            rf"max_iter must be a whole number ≥ 1 \(L-BFGS iterations\), got {t}",
        )
        for v, t in ((0, "0"), (10.5, "10.5"), (None, "None"))
    ],
    *[
        (
            f"LogisticRegression tol={v!r}",
            LogisticRegression,
            dict(tol=v),
            rf"tol must be a finite number ≥ 0 .*got {t}",
        )
        for v, t in ((-1.0, "-1.0"), (np.nan, "nan"), ("small", "'small'"))
    ],
    (
        "LogisticRegression prior_sd text",
        LogisticRegression,
        dict(prior_sd="1"),
        r"prior_sd must be a number > 0, got '1'",
    ),
    (
        "MixedNB column_types not a dict",
        MixedNB,
        dict(column_types=["gaussian"]),
        r"column_types must be a dict \{column: type\}.*got \['gaussian'\]",
    ),
    ("MixedNB count_strength text", MixedNB, dict(count_strength="1"), r"count_strength must be a number > 0.*got '1'"),
    *[
        (f"class_prior {what} for {M.__name__}", M, dict(class_prior=v), message)
        for M in EVERY
        for what, v, message in (
            ("of one class", [1.0], r"class_prior has shape \(1,\); it needs one probability per class \(2\)"),
            ("below 0", [-0.5, 1.5], r"class_prior must be finite and ≥ 0, got \[-0.5, 1.5\]"),
            ("not summing to 1", [0.3, 0.3], r"class_prior must sum to 1, its entries sum to 0.6$"),
            ("as text", "uniform", r"class_prior must be a vector of class probabilities, got 'uniform'"),
        )
    ],
    *[
        (f"n_categories={v!r} for {M.__name__}", M, dict(n_categories=v), message)
        for M in (CategoricalNB, SPODE, TAN, AODE, *NOMINAL)
        for v, message in (
            (-1, r"n_categories must be whole numbers ≥ 1, got -1"),
            (0, r"n_categories must be whole numbers ≥ 1, got 0"),
            (2.5, r"n_categories must be whole numbers ≥ 1, got 2.5"),
            ("three", r"n_categories must be whole numbers ≥ 1, got 'three'"),
            ([3, 3], r"n_categories has 2 entries; expected 3 \(one per feature\)"),
        )
    ],
    *[
        (f"estimate typo for {M.__name__}", M, dict(estimate="posterior"), r"estimate='posterior' is not one of")
        for M in NOMINAL + (ComplementNB,)
    ],
    *[
        (
            f"handle_unknown typo for {M.__name__}",
            M,
            dict(handle_unknown="ignore"),
            r"handle_unknown='ignore' is not one of \('missing', 'error'\)",
        )
        for M in NOMINAL
    ],
]


def _data_for(Model):
    """Codes for the nominal families (and MixedNB: integer columns are counts), three numbers per row for the others."""
    return CODES if Model in (*DISCRETE, MixedNB) and Model not in (MultinomialNB, ComplementNB, BernoulliNB) else X3


@pytest.mark.parametrize("case, Model, params, message", ROUND_3, ids=[c[0] for c in ROUND_3])
def test_bad_parameter_of_this_round_gets_an_error_that_names_it(case, Model, params, message):
    with pytest.raises(ValueError, match=message):
        Model(**params).fit(_data_for(Model), Y).predict_proba(_data_for(Model))


def test_every_estimator_is_in_the_matrix():
    """Every estimator of ``pgm_models.ESTIMATORS`` (but HierarchicalNB, whose fit samples) has class_prior rows."""
    import pgm_models

    covered = {case[1].__name__ for case in ROUND_3 if case[0].startswith("class_prior")}
    assert set(pgm_models.ESTIMATORS) - {"HierarchicalNB"} == covered


@pytest.mark.parametrize("case, action, error, message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_an_error_that_names_it(case, action, error, message):
    with pytest.raises(error, match=message):
        action()


def test_predict_proba_draws_on_no_rows_is_empty():
    model = CategoricalNB().fit(X3, Y)
    assert model.predict_proba_draws(X3[:0], n_draws=3).shape == (3, 0, 2)
    assert model.predict_proba(X3[:0]).shape == (0, 2)


def test_nullable_missing_values_are_missing_for_categorical_models():
    """A nullable Float64 column's <NA> is a missing value, like NaN."""
    with_na = CategoricalNB().fit(NULLABLE, Y).predict_proba(NULLABLE)
    with_nan = CategoricalNB().fit(NULLABLE.astype(float), Y).predict_proba(NULLABLE.astype(float))
    np.testing.assert_allclose(with_na, with_nan)


def test_unseen_category_default_policy_warns_and_skips_it():
    model = CategoricalNB().fit(COLORS, Y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proba = model.predict_proba(COLORS.assign(color="green"))
    assert any("'green'" in str(w.message) and "treated as missing" in str(w.message) for w in caught)
    np.testing.assert_allclose(proba, model.predict_proba(COLORS.assign(color=None)))


@pytest.mark.parametrize("Model", [CategoricalNB, TAN, HNB, AODEsr, MANB], ids=lambda m: m.__name__)
def test_a_slash_in_a_column_name_is_refused_by_the_workflow_and_kept_out_of_idata(Model):
    """A column 'km/h' makes PyMC names ('feature_prob_km/h', 'km/h_value', 'x_km/h') that PyMC and
    netCDF refuse: the workflow names it before PyMC does, ``idata_`` is left as it was (so ``save``
    still works), and prediction, which needs no such name, equals the renamed column's."""
    frame = pd.DataFrame({"km/h": CODES[:, 0], "size": CODES[:, 1]})
    model = Model().fit(frame, Y)
    renamed = frame.rename(columns={"km/h": "km_h"})
    np.testing.assert_array_equal(model.predict_proba(frame), Model().fit(renamed, Y).predict_proba(renamed))
    message = r"name\(s\) \[.*km/h.*\] hold a '/', taken from a column name.*rename the column"
    for step in (
        lambda: model.sample_prior_predictive(2, random_seed=0),
        lambda: model.sample_posterior_predictive(random_seed=0),
        *([lambda: model.graph()] if Model is not AODEsr and Model is not MANB else []),
        *([lambda: model.posterior_draws(2, store=True)] if Model is not AODEsr else []),
    ):
        with pytest.raises(ValueError, match=message):
            step()
        assert getattr(model, "idata_", None) is None
