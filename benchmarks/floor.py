"""Each closed-form model against its floor: the least compiled work that gives its probabilities.

    python -m benchmarks.floor [--sizes 100000 1000000 10000000] [--repeats 3] [--models ...] [--write BENCHMARKS.md]

A model's floor is one plain single-threaded numba pass over the training rows that counts (or
accumulates moments), the small tables made from those sums, and one pass over the rows that scores
and normalises every row: the work per row any implementation must do, and nothing else (no
validation, no domains beyond those the counting pass finds, no pandas, no sample weights). Every
run checks the floor's probabilities against the model's (max |Δp| ≤ 1e-12, else it stops): a floor
that computes another model bounds nothing. Each cell is the median over ``repeats`` of fit(X, y) +
predict_proba(X), the model at one thread, the model at two threads (issue 39 item 3: large inputs'
row blocks on threads, ``pgm_models.config_context(n_jobs=2)``) and the floor alternating on the same
data, so that a slow spell of the (shared) machine falls on all three; ratio = model at one thread ÷
floor (≤ 1.5 is the target at 10⁶ rows and above), ×2 threads = its one-thread time over its
two-thread time (their probabilities equal to the bit, else the run stops).
Bandwidth: the bytes of X and y the fit reads plus those of X the prediction reads, over the time,
beside the machine's copy bandwidth (one large ``np.copyto``, bytes read over the time).

Data, 3 classes: CategoricalNB, and AODE with the other semi-naive and network models (AODEsr, WAODE,
A2DE, HNB, KDB, TAN), integer codes (int64; 20 and 10 attributes × 5 values),
BernoulliNB 20 dense 0/1 float features, MultinomialNB and ComplementNB a sparse 20 000-word
vocabulary (about 40 words a row), GaussianNB / LDA / QDA 20 correlated Gaussian features (LDA also
with a fixed shrinkage, ``shrinkage=SHRINKAGE``), MixedNB 10 integer-coded
categorical and 10 Gaussian columns of a DataFrame. The Gaussian models, and MixedNB, run in their
MLE limit (estimate="mle", class_alpha=0): their per-row work is the same under every estimate, and
the floor then needs no prior scaled to the data.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np
import pandas as pd
import scipy.sparse as sp

import pgm_models
from benchmarks import append_section, command_line, run_record
from pgm_models import (
    A2DE,
    AODE,
    HNB,
    KDB,
    LDA,
    QDA,
    TAN,
    WAODE,
    AODEsr,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
)

N_CLASSES = 3
SHRINKAGE = 0.3  # LDA's fixed shrinkage towards (tr C / p) I
HEADING = "## Closed forms against their floor: one compiled pass to count, one to score"
jit = numba.njit(cache=True, nogil=True)


# ------------------------------------------------------------------ shared compiled pieces
@jit
def _normalised(scores, out, n):
    """out[n] = exp(scores − max) / Σ exp(scores − max): one row's posterior from its log scores."""
    peak = scores[0]
    for k in range(1, scores.size):
        peak = max(peak, scores[k])
    total = 0.0
    for k in range(scores.size):
        out[n, k] = np.exp(scores[k] - peak)
        total += out[n, k]
    for k in range(scores.size):
        out[n, k] /= total


@jit
def _log_sum_exp(parents, scores):
    """scores[k] = log Σ_i exp(parents[i, k]): the average over the parents' models (up to its constant)."""
    for k in range(parents.shape[1]):
        peak = -np.inf
        for i in range(parents.shape[0]):
            peak = max(peak, parents[i, k])
        total = 0.0
        for i in range(parents.shape[0]):
            total += np.exp(parents[i, k] - peak)
        scores[k] = np.log(total) + peak


@jit
def _class_counts(y, n_classes):
    counts = np.zeros(n_classes, np.int64)
    for n in range(y.size):
        counts[y[n]] += 1
    return counts


# ------------------------------------------------------------------ categorical (CategoricalNB, AODE, MixedNB)
CAPACITY = 64  # the largest domain the floors' count tables hold (the benchmark's data has 5 values)


@jit
def _count_categorical(X, y, n_classes, capacity):
    """(K, F, capacity) counts N_kjs and each attribute's largest code, in one pass over the rows."""
    n_rows, n_features = X.shape
    counts = np.zeros((n_classes, n_features, capacity), np.int64)
    top = np.zeros(n_features, np.int64)
    for n in range(n_rows):
        k = y[n]
        for j in range(n_features):
            v = X[n, j]
            if v < 0 or v >= capacity:
                raise ValueError("a code outside the floor's table")
            counts[k, j, v] += 1
            top[j] = max(top[j], v)
    return counts, top


@jit
def _score_categorical(X, table, log_prior):
    """Posterior of every row: log_prior[k] + Σ_j table[j, x_j, k], normalised."""
    n_rows, n_features = X.shape
    n_classes = log_prior.size
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    for n in range(n_rows):
        scores[:] = 0.0
        for j in range(n_features):
            cell = table[j, X[n, j]]
            for k in range(n_classes):
                scores[k] += cell[k]
        for k in range(n_classes):
            scores[k] += log_prior[k]
        _normalised(scores, out, n)
    return out


def _domains(counts, top):
    """The seen domains 0..S_j−1 (every value below the largest seen: the floors' data has no gap)."""
    sizes = top + 1
    seen = counts.sum(axis=0)
    if any((seen[j, : sizes[j]] == 0).any() for j in range(len(sizes))):
        raise ValueError("the floor takes domains without gaps")
    return sizes


class CategoricalFloor:
    """CategoricalNB(): Laplace estimates (N_kjs + 1)/(N_k + S_j), class (N_k + 1)/(N + K)."""

    def fit(self, X, y):
        counts, top = _count_categorical(X, y, N_CLASSES, CAPACITY)
        sizes = _domains(counts, top)
        class_count = counts[:, 0, :].sum(axis=1)
        table = np.zeros((X.shape[1], CAPACITY, N_CLASSES))
        for j, size in enumerate(sizes):
            table[j, :size] = np.log((counts[:, j, :size] + 1.0) / (class_count[:, None] + size)).T
        self.table, self.log_prior = table, np.log((class_count + 1.0) / (class_count.sum() + N_CLASSES))
        return self

    def predict_proba(self, X):
        return _score_categorical(X, self.table, self.log_prior)


@jit
def _count_pairs(X, y, n_classes, capacity):
    """(K, F, S, F, S) pair counts N(k, x_a = u, x_b = v) (the diagonal a = b: N(k, x_a = u))."""
    n_rows, n_features = X.shape
    counts = np.zeros((n_classes, n_features, capacity, n_features, capacity), np.int64)
    top = np.zeros(n_features, np.int64)
    for n in range(n_rows):
        k = y[n]
        for a in range(n_features):
            u = X[n, a]
            if u < 0 or u >= capacity:
                raise ValueError("a code outside the floor's table")
            top[a] = max(top[a], u)
            row = counts[k, a, u]
            for b in range(n_features):
                row[b, X[n, b]] += 1
    return counts


@jit
def _score_aode(X, joint, child):
    """Posterior of every row: log Σ_a exp(joint[a, x_a, k] + Σ_{b≠a} child[a, x_a, b, x_b, k]), normalised."""
    n_rows, n_features = X.shape
    n_classes = joint.shape[2]
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    parents = np.empty((n_features, n_classes))
    for n in range(n_rows):
        for a in range(n_features):
            u = X[n, a]
            for k in range(n_classes):
                parents[a, k] = joint[a, u, k]
            for b in range(n_features):
                if b != a:
                    cell = child[a, u, b, X[n, b]]
                    for k in range(n_classes):
                        parents[a, k] += cell[k]
        _log_sum_exp(parents, scores)
        _normalised(scores, out, n)
    return out


class AODEFloor:
    """AODE() (Weka's): P(y, x_a) = (N(y, x_a) + 1)/(N + K S_a), P(x_b | y, x_a) = (N(y, x_a, x_b) + 1)/(N(y, x_a) + S_b),
    every parent value seen at least once (no missing values in the data)."""

    def fit(self, X, y):
        n_features = X.shape[1]
        sizes = np.full(n_features, X.max() + 1)  # the benchmark's data: every value 0..S−1 seen in every column
        size = int(sizes[0])
        pairs = _count_pairs(X, y, N_CLASSES, size)  # (K, F, S, F, S)
        single = np.einsum("kauau->kau", pairs).astype(float)  # N(k, x_a = u)
        self.joint = np.log((single + 1.0) / (len(y) + N_CLASSES * size)).transpose(1, 2, 0).copy()
        child = np.log((pairs + 1.0) / (single[:, :, :, None, None] + size))
        self.child = child.transpose(1, 2, 3, 4, 0).copy()
        return self

    def predict_proba(self, X):
        return _score_aode(X, self.joint, self.child)


def _m_estimate_tables(pairs, n_rows, m=1.0):
    """Weka's m-estimates of the SPODEs from the pair counts (K, F, S, F, S), every value seen:
    log P(y, x_a) = log (N(y, x_a) + m/(K S))/(N + m) as (F, S, K), log P(x_b | y, x_a) =
    log (N(y, x_a, x_b) + m/S)/(N(y, x_a) + m) as (F, S, F, S, K), and the single counts (K, F, S)."""
    size = pairs.shape[2]
    single = np.einsum("kauau->kau", pairs).astype(float)
    joint = np.log((single + m / (N_CLASSES * size)) / (n_rows + m)).transpose(1, 2, 0).copy()
    child = np.log((pairs + m / size) / (single[:, :, :, None, None] + m)).transpose(1, 2, 3, 4, 0).copy()
    return joint, child, single


def _plogp_ratio(n, numerator, denominator):
    """Σ n log(numerator/denominator) over the cells with n > 0 (0 log 0 = 0)."""
    seen = n > 0
    return float((n[seen] * np.log(numerator[seen] / denominator[seen])).sum())


class WAODEFloor:
    """WAODE() (Weka's): AODE's SPODEs under the m-estimate (m = 1), parent a weighted by
    I(X_a; Y); every parent value seen, no missing values."""

    def fit(self, X, y):
        size = int(X.max()) + 1
        pairs = _count_pairs(X, y, N_CLASSES, size)
        self.joint, self.child, single = _m_estimate_tables(pairs, len(y))
        n, n_k = len(y), single[:, 0, :].sum(axis=1)
        for a in range(X.shape[1]):
            n_kv = single[:, a, :]
            n_v = n_kv.sum(axis=0)
            weight = _plogp_ratio(n_kv, n_kv * n, n_k[:, None] * n_v[None, :]) / n
            self.joint[a] += np.log(weight)
        return self

    def predict_proba(self, X):
        return _score_aode(X, self.joint, self.child)


@jit
def _score_aodesr(X, joint, child, totals, critical):
    """AODE's average over the row's values less its generalisations: x_i goes when another x_j has
    N(x_j) > critical, N(x_i, x_j) = N(x_j) and not (N(x_i) = N(x_j) and i < j)."""
    n_rows, n_features = X.shape
    n_classes = joint.shape[2]
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    parents = np.empty((n_features, n_classes))
    kept = np.empty(n_features, np.bool_)
    for n in range(n_rows):
        for i in range(n_features):
            kept[i] = True
            u = X[n, i]
            for j in range(n_features):
                v = X[n, j]
                seen_j = totals[j, v, j, v]
                if (
                    j != i
                    and seen_j > critical
                    and totals[i, u, j, v] == seen_j
                    and not (totals[i, u, i, u] == seen_j and i < j)
                ):
                    kept[i] = False
                    break
        for a in range(n_features):
            u = X[n, a]
            for k in range(n_classes):
                parents[a, k] = joint[a, u, k] if kept[a] else -np.inf
            if kept[a]:
                for b in range(n_features):
                    if b != a and kept[b]:
                        cell = child[a, u, b, X[n, b]]
                        for k in range(n_classes):
                            parents[a, k] += cell[k]
        _log_sum_exp(parents, scores)
        _normalised(scores, out, n)
    return out


class AODEsrFloor:
    """AODEsr() (Weka's): AODE under the m-estimate (m = 1) on each row's values less its
    generalisations (critical value 50); every parent value seen, no missing values."""

    def fit(self, X, y):
        pairs = _count_pairs(X, y, N_CLASSES, int(X.max()) + 1)
        self.joint, self.child, _ = _m_estimate_tables(pairs, len(y))
        self.totals = pairs.sum(axis=0)  # N(x_a = u, x_b = v)
        return self

    def predict_proba(self, X):
        return _score_aodesr(X, self.joint, self.child, self.totals, 50)


@jit
def _count_triples(X, y, n_classes, capacity):
    """(K, F, S, F, S, F, S) counts N(k, x_a = u, x_b = v, x_c = w) for a < b (A2DE's parent pairs; the
    entries with c = b hold the pair counts N(k, x_a = u, x_b = v)), zero for a ≥ b."""
    n_rows, n_features = X.shape
    counts = np.zeros((n_classes, n_features, capacity, n_features, capacity, n_features, capacity), np.int64)
    for n in range(n_rows):
        k = y[n]
        for a in range(n_features):
            u = X[n, a]
            if u < 0 or u >= capacity:
                raise ValueError("a code outside the floor's table")
            for b in range(a + 1, n_features):
                row = counts[k, a, u, b, X[n, b]]
                for c in range(n_features):
                    row[c, X[n, c]] += 1
    return counts


@jit
def _score_a2de(X, joint, child):
    """log Σ_{a<b} exp(joint[a, x_a, b, x_b, k] + Σ_{j∉{a,b}} child[a, x_a, b, x_b, j, x_j, k]), normalised."""
    n_rows, n_features = X.shape
    n_classes = joint.shape[4]
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    n_pairs = n_features * (n_features - 1) // 2
    parents = np.empty((n_pairs, n_classes))
    for n in range(n_rows):
        at = 0
        for a in range(n_features):
            u = X[n, a]
            for b in range(a + 1, n_features):
                v = X[n, b]
                for k in range(n_classes):
                    parents[at, k] = joint[a, u, b, v, k]
                for j in range(n_features):
                    if j != a and j != b:
                        cell = child[a, u, b, v, j, X[n, j]]
                        for k in range(n_classes):
                            parents[at, k] += cell[k]
                at += 1
        _log_sum_exp(parents, scores)
        _normalised(scores, out, n)
    return out


class A2DEFloor:
    """A2DE() (Laplace, α = 1): P(y, x_a, x_b) = (n + 1)/(N + K S²), P(x_j | y, x_a, x_b) = (n + 1)/(n(y, x_a, x_b) + S),
    averaged over every pair a < b; every pair of values seen, no missing values."""

    def fit(self, X, y):
        size = int(X.max()) + 1
        triples = _count_triples(X, y, N_CLASSES, size)
        pairs = np.einsum("kaubvbv->kaubv", triples).astype(float)
        self.joint = np.log((pairs + 1.0) / (len(y) + N_CLASSES * size**2)).transpose(1, 2, 3, 4, 0).copy()
        child = np.log((triples + 1.0) / (pairs[..., None, None] + size))
        self.child = child.transpose(1, 2, 3, 4, 5, 6, 0).copy()
        return self

    def predict_proba(self, X):
        return _score_a2de(X, self.joint, self.child)


@jit
def _score_hnb(X, log_prior, weight, conditional):
    """log P(y) + Σ_j log Σ_{p≠j} weight[j, p] P(x_j | y, x_p) (weights normalised per j), normalised."""
    n_rows, n_features = X.shape
    n_classes = log_prior.size
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    mixture = np.empty(n_classes)
    for n in range(n_rows):
        for k in range(n_classes):
            scores[k] = log_prior[k]
        for j in range(n_features):
            mixture[:] = 0.0
            v = X[n, j]
            for p in range(n_features):
                if p != j:
                    w = weight[j, p]
                    cell = conditional[j, p, X[n, p], v]
                    for k in range(n_classes):
                        mixture[k] += w * cell[k]
            for k in range(n_classes):
                scores[k] += np.log(mixture[k])
        _normalised(scores, out, n)
    return out


class HNBFloor:
    """HNB() (Weka's, m-estimate m = 1): each attribute's hidden parent mixes P(x_j | y, x_p) with
    weights I(X_j; X_p | Y) normalised over p; every value seen, no missing values, every
    attribute with a positive weight."""

    def fit(self, X, y):
        size, n_features, m = int(X.max()) + 1, X.shape[1], 1.0
        pairs = _count_pairs(X, y, N_CLASSES, size).astype(float)
        single = np.einsum("kauau->kau", pairs)
        n_k = single[:, 0, :].sum(axis=1)
        self.log_prior = np.log((n_k + m / N_CLASSES) / (len(y) + m))
        weight = np.zeros((n_features, n_features))
        for j in range(n_features):
            for p in range(n_features):
                if p != j:
                    n_kuv = pairs[:, p, :, j, :]
                    denominator = single[:, p, :, None] * single[:, j, None, :]
                    weight[j, p] = _plogp_ratio(n_kuv, n_kuv * n_k[:, None, None], denominator) / len(y)
        if not (weight.sum(axis=1) > 0).all():
            raise ValueError("an attribute without weight: the floor has no naive Bayes fallback")
        self.weight = weight / weight.sum(axis=1, keepdims=True)
        # conditional[j, p, u, v, k] = P(x_j = v | y = k, x_p = u)
        self.conditional = ((pairs + m / size) / (single[:, :, :, None, None] + m)).transpose(3, 1, 2, 4, 0).copy()
        return self

    def predict_proba(self, X):
        return _score_hnb(X, self.log_prior, self.weight, self.conditional)


@jit
def _score_one_parent(X, log_prior, parent, table):
    """log P(y) + Σ_j table[j, x_parent(j), x_j, k] (a root's table the same for every parent value), normalised."""
    n_rows, n_features = X.shape
    n_classes = log_prior.size
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    for n in range(n_rows):
        for k in range(n_classes):
            scores[k] = log_prior[k]
        for j in range(n_features):
            cell = table[j, X[n, parent[j]], X[n, j]]
            for k in range(n_classes):
                scores[k] += cell[k]
        _normalised(scores, out, n)
    return out


class KDBFloor:
    """KDB(k=1): attributes placed by I(X_j; Y) (highest first), each after the first with the placed
    attribute of highest I(X_j; X_p | Y) as its parent; θ = (n + 1)/(n_parent + S), P(y) = (N_k + 1)/(N + K);
    every value seen, no missing values."""

    def fit(self, X, y):
        size, n_features, n = int(X.max()) + 1, X.shape[1], len(y)
        pairs = _count_pairs(X, y, N_CLASSES, size).astype(float)
        single = np.einsum("kauau->kau", pairs)
        n_k = single[:, 0, :].sum(axis=1)
        parent = self._parents(pairs, single, n_k, n)
        table = np.empty((n_features, size, size, N_CLASSES))
        for j in range(n_features):
            if parent[j] == j:  # the root: P(x_j | y) whatever the "parent" value
                table[j] = np.log((single[:, j, :] + 1.0) / (n_k[:, None] + size)).T[None, :, :]
            else:
                p = parent[j]
                table[j] = np.log((pairs[:, p, :, j, :] + 1.0) / (single[:, p, :, None] + size)).transpose(1, 2, 0)
        self.parent, self.table = parent, table
        self.log_prior = np.log((n_k + 1.0) / (n + N_CLASSES))
        return self

    @staticmethod
    def _conditional_information(pairs, single, n_k, i, j) -> float:
        """I(X_i; X_j | Y) × N from the pair counts."""
        return _plogp_ratio(
            pairs[:, i, :, j, :],
            pairs[:, i, :, j, :] * n_k[:, None, None],
            single[:, i, :, None] * single[:, j, None, :],
        )

    def _parents(self, pairs, single, n_k, n):
        """Each attribute's parent (itself for the first placed)."""
        n_features = single.shape[1]
        information = [
            _plogp_ratio(single[:, j], single[:, j] * n, n_k[:, None] * single[:, j].sum(axis=0)[None, :]) / n
            for j in range(n_features)
        ]
        order = sorted(range(n_features), key=lambda j: -information[j])  # stable: ties keep the earlier attribute
        parent = np.arange(n_features)
        for at, j in enumerate(order[1:], start=1):
            conditional = [self._conditional_information(pairs, single, n_k, p, j) for p in order[:at]]
            parent[j] = order[:at][int(np.argmax(conditional))]  # argmax: the first placed among ties
        return parent

    def predict_proba(self, X):
        return _score_one_parent(X, self.log_prior, self.parent, self.table)


class TANFloor(KDBFloor):
    """TAN(): the maximum spanning tree of I(X_i; X_j | Y) grown by Prim from attribute 0 (the first
    largest edge on ties), each attribute's parent its tree neighbour towards 0; KDB's tables."""

    def _parents(self, pairs, single, n_k, n):
        n_features = single.shape[1]
        weight = np.zeros((n_features, n_features))
        for i in range(n_features):
            for j in range(i + 1, n_features):
                weight[i, j] = weight[j, i] = self._conditional_information(pairs, single, n_k, i, j) / n
        parent, in_tree = np.arange(n_features), np.zeros(n_features, bool)
        in_tree[0] = True
        best, best_from = weight[0].copy(), np.zeros(n_features, np.intp)
        for _ in range(n_features - 1):
            node = int(np.argmax(np.where(in_tree, -np.inf, best)))
            parent[node], in_tree[node] = best_from[node], True
            better = ~in_tree & (weight[node] > best)
            best[better], best_from[better] = weight[node][better], node
        return parent


# ------------------------------------------------------------------ BernoulliNB, MultinomialNB
@jit
def _count_dense(X, y, n_classes):
    counts = np.zeros((n_classes, X.shape[1]))
    for n in range(X.shape[0]):
        row = counts[y[n]]
        for j in range(X.shape[1]):
            row[j] += X[n, j]
    return counts


@jit
def _score_bernoulli(X, log_p, log_q, log_prior):
    """log_prior[k] + Σ_j x log p + (1 − x) log(1 − p), normalised: log_p, log_q (F, K)."""
    n_rows, n_features = X.shape
    out = np.empty((n_rows, log_prior.size))
    scores = np.empty(log_prior.size)
    for n in range(n_rows):
        scores[:] = 0.0
        for j in range(n_features):
            x = X[n, j]
            for k in range(log_prior.size):
                scores[k] += x * log_p[j, k] + (1.0 - x) * log_q[j, k]
        for k in range(log_prior.size):
            scores[k] += log_prior[k]
        _normalised(scores, out, n)
    return out


class BernoulliFloor:
    """BernoulliNB(binarize=None): p = (N_kj + 1)/(N_k + 2)."""

    def fit(self, X, y):
        counts, class_count = _count_dense(X, y, N_CLASSES), _class_counts(y, N_CLASSES)
        p = (counts + 1.0) / (class_count[:, None] + 2.0)
        self.log_p, self.log_q = np.log(p).T.copy(), np.log1p(-p).T.copy()
        self.log_prior = np.log((class_count + 1.0) / (len(y) + N_CLASSES))
        return self

    def predict_proba(self, X):
        return _score_bernoulli(X, self.log_p, self.log_q, self.log_prior)


@jit
def _count_sparse(indptr, indices, data, y, n_classes, n_columns):
    counts = np.zeros((n_classes, n_columns))
    for n in range(indptr.size - 1):
        row = counts[y[n]]
        for i in range(indptr[n], indptr[n + 1]):
            row[indices[i]] += data[i]
    return counts


@jit
def _score_sparse(indptr, indices, data, table, log_prior):
    n_rows, n_classes = indptr.size - 1, log_prior.size
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    for n in range(n_rows):
        scores[:] = 0.0
        for i in range(indptr[n], indptr[n + 1]):
            cell, x = table[indices[i]], data[i]
            for k in range(n_classes):
                scores[k] += x * cell[k]
        for k in range(n_classes):
            scores[k] += log_prior[k]
        _normalised(scores, out, n)
    return out


class MultinomialFloor:
    """MultinomialNB() on a CSR matrix: θ_kt = (N_kt + 1)/(N_k· + T)."""

    def fit(self, X, y):
        counts = _count_sparse(X.indptr, X.indices, X.data, y, N_CLASSES, X.shape[1])
        class_count = _class_counts(y, N_CLASSES)
        self.table = np.log((counts + 1.0) / (counts.sum(axis=1, keepdims=True) + X.shape[1])).T.copy()
        self.log_prior = np.log((class_count + 1.0) / (len(y) + N_CLASSES))
        return self

    def predict_proba(self, X):
        return _score_sparse(X.indptr, X.indices, X.data, self.table, self.log_prior)


class ComplementFloor:
    """ComplementNB() on a CSR matrix: the complement counts Ñ_kt = Σ_k' N_k't − N_kt,
    θ̃_kt = (Ñ_kt + 1)/(Ñ_k· + T), score_k = −Σ_t x_t log θ̃_kt (no class term)."""

    def fit(self, X, y):
        counts = _count_sparse(X.indptr, X.indices, X.data, y, N_CLASSES, X.shape[1])
        complement = counts.sum(axis=0) - counts
        self.table = -np.log((complement + 1.0) / (complement.sum(axis=1, keepdims=True) + X.shape[1])).T.copy()
        self.log_prior = np.zeros(N_CLASSES)
        return self

    def predict_proba(self, X):
        return _score_sparse(X.indptr, X.indices, X.data, self.table, self.log_prior)


# ------------------------------------------------------------------ Gaussian models (MLE limit)
BLOCK = 512  # rows summed apart before their sums join the totals: the error of a long running sum stays small


@jit
def _moments(X, y, n_classes, shift, full):
    """Per class k: the row count, Σ (x − shift[k]) and Σ (x − shift[k])(x − shift[k])ᵀ (its lower
    triangle; its diagonal only unless ``full``), in one pass; each block of ``BLOCK`` rows summed apart
    and then added, and the shift near the class mean, so that the sums keep the model's digits."""
    n_rows, n_features = X.shape
    count = np.zeros(n_classes)
    total = np.zeros((n_classes, n_features))
    gram = np.zeros((n_classes, n_features, n_features))
    block_total = np.empty((n_classes, n_features))
    block_gram = np.empty((n_classes, n_features, n_features))
    d = np.empty(n_features)
    for start in range(0, n_rows, BLOCK):
        block_total[:] = 0.0
        block_gram[:] = 0.0
        for n in range(start, min(start + BLOCK, n_rows)):
            k = y[n]
            count[k] += 1.0
            g = block_gram[k]
            for i in range(n_features):
                d[i] = X[n, i] - shift[k, i]
                block_total[k, i] += d[i]
                if full:
                    for j in range(i + 1):
                        g[i, j] += d[i] * d[j]
                else:
                    g[i, i] += d[i] * d[i]
        total += block_total
        gram += block_gram
    return count, total, gram


def _class_moments(X, y, full: bool):
    """(N_k, x̄_k, scatter S_k) of every class: ``_moments`` shifted by the class means of the first rows."""
    head, classes = X[:1000], y[:1000]
    shift = np.array([head[classes == k].mean(axis=0) if (classes == k).any() else head[0] for k in range(N_CLASSES)])
    count, total, gram = _moments(X, y, N_CLASSES, shift, full)
    offset = total / count[:, None]
    lower = np.tril(gram)
    scatter = (
        lower + np.swapaxes(np.tril(gram, -1), 1, 2) - count[:, None, None] * offset[:, :, None] * offset[:, None, :]
    )
    return count, shift + offset, scatter


@jit
def _score_diagonal(X, mean, precision, constant):
    """constant[k] − ½ Σ_j precision[k, j] (x_j − mean[k, j])², normalised."""
    n_rows, n_features = X.shape
    n_classes = constant.size
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    for n in range(n_rows):
        for k in range(n_classes):
            s = 0.0
            for j in range(n_features):
                d = X[n, j] - mean[k, j]
                s += precision[k, j] * d * d
            scores[k] = constant[k] - 0.5 * s
        _normalised(scores, out, n)
    return out


class GaussianFloor:
    """GaussianNB(estimate="mle", class_alpha=0): x̄_kj, S_kj/N_k, P(y = k) = N_k/N."""

    def fit(self, X, y):
        count, mean, scatter = _class_moments(X, y, full=False)
        var = np.diagonal(scatter, axis1=1, axis2=2) / count[:, None]
        self.mean, self.precision = mean, 1.0 / var
        self.constant = np.log(count / count.sum()) - 0.5 * np.log(2 * np.pi * var).sum(axis=1)
        return self

    def predict_proba(self, X):
        return _score_diagonal(X, self.mean, self.precision, self.constant)


@jit
def _score_linear(X, weight, constant):
    """constant[k] + Σ_j weight[k, j] x_j, normalised."""
    n_rows, n_features = X.shape
    n_classes = constant.size
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    for n in range(n_rows):
        for k in range(n_classes):
            s = constant[k]
            for j in range(n_features):
                s += weight[k, j] * X[n, j]
            scores[k] = s
        _normalised(scores, out, n)
    return out


class LDAFloor:
    """LDA(estimate="mle", class_alpha=0): the pooled within-class covariance Σ_k S_k / N."""

    def fit(self, X, y):
        count, mean, scatter = _class_moments(X, y, full=True)
        cov = scatter.sum(axis=0) / count.sum()
        weight = np.linalg.solve(cov, mean.T).T
        self.weight = weight
        self.constant = np.log(count / count.sum()) - 0.5 * (weight * mean).sum(axis=1)
        return self

    def predict_proba(self, X):
        return _score_linear(X, self.weight, self.constant)


class ShrunkLDAFloor(LDAFloor):
    """LDA(estimate="mle", class_alpha=0, shrinkage=SHRINKAGE): the pooled covariance C shrunk as
    (1 − s) C + s (tr C / p) I."""

    def fit(self, X, y):
        count, mean, scatter = _class_moments(X, y, full=True)
        cov = scatter.sum(axis=0) / count.sum()
        cov = (1 - SHRINKAGE) * cov + SHRINKAGE * np.trace(cov) / len(cov) * np.eye(len(cov))
        self.weight = np.linalg.solve(cov, mean.T).T
        self.constant = np.log(count / count.sum()) - 0.5 * (self.weight * mean).sum(axis=1)
        return self


@jit
def _score_quadratic(X, mean, factor, constant):
    """constant[k] − ½ |factor[k] (x − mean[k])|², factor[k] lower triangular, normalised."""
    n_rows, n_features = X.shape
    n_classes = constant.size
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    d = np.empty(n_features)
    for n in range(n_rows):
        for k in range(n_classes):
            for j in range(n_features):
                d[j] = X[n, j] - mean[k, j]
            s = 0.0
            f = factor[k]
            for i in range(n_features):
                z = 0.0
                for j in range(i + 1):
                    z += f[i, j] * d[j]
                s += z * z
            scores[k] = constant[k] - 0.5 * s
        _normalised(scores, out, n)
    return out


class QDAFloor:
    """QDA(estimate="mle", class_alpha=0): Σ_k = S_k / N_k, scored through the inverse of its Cholesky factor."""

    def fit(self, X, y):
        count, mean, scatter = _class_moments(X, y, full=True)
        factors, constant = np.empty_like(scatter), np.empty(N_CLASSES)
        for k in range(N_CLASSES):
            cov = scatter[k] / count[k]
            cholesky = np.linalg.cholesky(cov)
            factors[k] = np.linalg.inv(cholesky)
            constant[k] = np.log(count[k] / count.sum()) - np.log(np.diag(cholesky)).sum()
        self.mean, self.factor, self.constant = mean, factors, constant
        return self

    def predict_proba(self, X):
        return _score_quadratic(X, self.mean, self.factor, self.constant)


# ------------------------------------------------------------------ MixedNB (MLE limit)
@jit
def _score_mixed(codes, values, table, mean, precision, constant):
    n_rows = codes.shape[0]
    n_classes = constant.size
    out = np.empty((n_rows, n_classes))
    scores = np.empty(n_classes)
    for n in range(n_rows):
        for k in range(n_classes):
            scores[k] = 0.0
        for j in range(codes.shape[1]):
            cell = table[j, codes[n, j]]
            for k in range(n_classes):
                scores[k] += cell[k]
        for k in range(n_classes):
            s = 0.0
            for j in range(values.shape[1]):
                d = values[n, j] - mean[k, j]
                s += precision[k, j] * d * d
            scores[k] += constant[k] - 0.5 * s
        _normalised(scores, out, n)
    return out


def _mixed_parts(X):
    columns = X.columns
    codes = np.column_stack([X[c].to_numpy() for c in columns if c.startswith("c")])
    values = np.column_stack([X[c].to_numpy() for c in columns if c.startswith("g")])
    return codes, values


class MixedFloor:
    """MixedNB(estimate="mle", class_alpha=0) on categorical and Gaussian columns: N_kjs/N_k, x̄_kj, S_kj/N_k."""

    def fit(self, X, y):
        codes, values = _mixed_parts(X)
        counts, top = _count_categorical(codes, y, N_CLASSES, CAPACITY)  # the categorical columns
        count, mean, scatter = _class_moments(values, y, full=False)  # the Gaussian ones
        sizes = _domains(counts, top)
        table = np.zeros((codes.shape[1], CAPACITY, N_CLASSES))
        for j, size in enumerate(sizes):
            table[j, :size] = np.log(counts[:, j, :size] / count[:, None]).T
        var = np.diagonal(scatter, axis1=1, axis2=2) / count[:, None]
        self.table, self.mean, self.precision = table, mean, 1.0 / var
        self.constant = np.log(count / count.sum()) - 0.5 * np.log(2 * np.pi * var).sum(axis=1)
        return self

    def predict_proba(self, X):
        codes, values = _mixed_parts(X)
        return _score_mixed(codes, values, self.table, self.mean, self.precision, self.constant)


# ------------------------------------------------------------------ data and cases
def make_data(kind: str, n_rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n_rows)
    if kind == "categorical":
        return rng.integers(0, 5, size=(n_rows, 20)), y
    if kind == "aode":
        return rng.integers(0, 5, size=(n_rows, 10)), y
    if kind == "bernoulli":
        return (rng.random((n_rows, 20)) < 0.3 + 0.1 * y[:, None]).astype(np.float64), y
    if kind in ("gaussian", "mixed"):
        mixing = np.eye(20) + 0.3 * rng.normal(size=(20, 20)) / np.sqrt(20)
        values = rng.normal(size=(n_rows, 20)) @ mixing + y[:, None]
        if kind == "gaussian":
            return values, y
        codes = (rng.integers(0, 5, size=(n_rows, 10)) + (y[:, None] > 1)) % 5
        frame = {f"c{j}": codes[:, j] for j in range(10)} | {f"g{j}": values[:, j] for j in range(10)}
        return pd.DataFrame(frame), y
    return _words(rng, y), y


def _words(rng, y, words_per_row: int = 40, vocabulary: int = 20_000, chunk_rows: int = 1_000_000):
    """Sparse word counts, built a chunk of rows at a time (10⁷ rows' coordinates at once would take
    most of the machine's memory); the same numbers as one chunk, the draws taken in the same order.
    """
    chunks = []
    for start in range(0, len(y), chunk_rows):
        own = y[start : start + chunk_rows]
        columns = (rng.zipf(1.3, size=own.size * words_per_row) + np.repeat(own, words_per_row)) % vocabulary
        rows = np.repeat(np.arange(own.size), words_per_row)
        chunk = sp.csr_matrix((np.ones(rows.size), (rows, columns)), shape=(own.size, vocabulary))
        chunk.sum_duplicates()
        chunks.append(chunk)
        del columns, rows
    return chunks[0] if len(chunks) == 1 else sp.vstack(chunks, format="csr")


MIXED_TYPES = {f"c{j}": "categorical" for j in range(10)}
CASES = {
    "CategoricalNB": ("categorical", CategoricalNB, CategoricalFloor),
    "BernoulliNB": ("bernoulli", lambda: BernoulliNB(binarize=None), BernoulliFloor),
    "MultinomialNB": ("multinomial", MultinomialNB, MultinomialFloor),
    "ComplementNB": ("multinomial", ComplementNB, ComplementFloor),
    "GaussianNB": ("gaussian", lambda: GaussianNB(estimate="mle", class_alpha=0), GaussianFloor),
    "LDA": ("gaussian", lambda: LDA(estimate="mle", class_alpha=0), LDAFloor),
    "LDA-shrinkage": ("gaussian", lambda: LDA(estimate="mle", class_alpha=0, shrinkage=SHRINKAGE), ShrunkLDAFloor),
    "QDA": ("gaussian", lambda: QDA(estimate="mle", class_alpha=0), QDAFloor),
    "AODE": ("aode", AODE, AODEFloor),
    "AODEsr": ("aode", AODEsr, AODEsrFloor),
    "WAODE": ("aode", WAODE, WAODEFloor),
    "A2DE": ("aode", A2DE, A2DEFloor),
    "HNB": ("aode", HNB, HNBFloor),
    "KDB": ("aode", KDB, KDBFloor),
    "TAN": ("aode", TAN, TANFloor),
    "MixedNB": (
        "mixed",
        lambda: MixedNB(column_types=MIXED_TYPES, estimate="mle", class_alpha=0),
        MixedFloor,
    ),
}


def input_bytes(X, y) -> int:
    """What fit(X, y) + predict_proba(X) must read: X twice, y once."""
    if sp.issparse(X):
        size = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    elif isinstance(X, pd.DataFrame):
        size = sum(X[c].to_numpy().nbytes for c in X.columns)
    else:
        size = X.nbytes
    return 2 * size + y.nbytes


def copy_bandwidth(n_bytes: int = 1 << 28, repeats: int = 3) -> float:
    """GB/s of one large copy (bytes read over the time; the best of ``repeats``)."""
    source = np.ones(n_bytes // 8)
    target = np.empty_like(source)
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        np.copyto(target, source)
        best = min(best, time.perf_counter() - start)
    return n_bytes / best / 1e9


def check_floor(name: str, n_rows: int = 3000, seed: int = 1) -> float:
    """Max |Δp| between the model and its floor on ``n_rows`` of the benchmark's data."""
    kind, make_model, make_floor = CASES[name]
    X, y = make_data(kind, n_rows, seed)
    expected = make_model().fit(X, y).predict_proba(X)
    return float(np.abs(make_floor().fit(X, y).predict_proba(X) - expected).max())


def time_pair(name: str, X, y, repeats: int):
    """(model s at one thread, model s at two, floor s, max |Δp|): medians of fit + predict_proba, the
    three alternating; the model's two runs give the same probabilities to the bit (else it stops).
    """
    _, make_model, make_floor = CASES[name]
    sides = {"model": (make_model, 1), "model, 2 threads": (make_model, 2), "floor": (make_floor, 1)}
    times, difference = {side: [] for side in sides}, 0.0
    for _ in range(repeats):
        probabilities = {}
        for side, (make, n_jobs) in sides.items():
            with pgm_models.config_context(n_jobs=n_jobs):
                start = time.perf_counter()
                probabilities[side] = make().fit(X, y).predict_proba(X)
                times[side].append(time.perf_counter() - start)
        if not np.array_equal(probabilities["model"], probabilities["model, 2 threads"]):
            raise AssertionError(f"{name}: one and two threads gave different probabilities")
        difference = max(difference, float(np.abs(probabilities["model"] - probabilities["floor"]).max()))
        del probabilities
    return (*(statistics.median(times[side]) for side in sides), difference)


def run(sizes, repeats: int, models) -> tuple[list[dict], float]:
    bandwidth = copy_bandwidth()
    print(f"copy bandwidth {bandwidth:.1f} GB/s", flush=True)
    results = []
    for name in models:
        kind = CASES[name][0]
        warm = check_floor(name, 500)  # compiles both sides' kernels outside the timing
        if not warm <= 1e-12:
            raise AssertionError(f"{name}: the floor is not the model (max |Δp| {warm:.1e})")
        for n_rows in sizes:
            X, y = make_data(kind, n_rows)
            model_s, threads_s, floor_s, difference = time_pair(name, X, y, repeats if n_rows < 5_000_000 else 1)
            if not difference <= 1e-12:
                raise AssertionError(f"{name} at {n_rows} rows: the floor is not the model (max |Δp| {difference:.1e})")
            size = input_bytes(X, y)
            results.append(
                {
                    "model": name,
                    "rows": n_rows,
                    "model_s": model_s,
                    "threads_s": threads_s,
                    "floor_s": floor_s,
                    "ratio": model_s / floor_s,
                    "speedup": model_s / threads_s,
                    "model_gbs": size / model_s / 1e9,
                    "floor_gbs": size / floor_s / 1e9,
                    "difference": difference,
                }
            )
            print(
                f"{name:14s} N={n_rows:>9d}  model {model_s:8.3f} s  floor {floor_s:8.3f} s  ratio {model_s / floor_s:5.2f}"
                f"  2 threads {threads_s:8.3f} s (×{model_s / threads_s:.2f})"
                f"  ({size / model_s / 1e9:.2f} vs {size / floor_s / 1e9:.2f} GB/s)  max |Δp| {difference:.1e}",
                flush=True,
            )
            del X, y
    return results, bandwidth


def markdown(results, bandwidth: float, command: str, repeats: int) -> list[str]:
    lines = [
        "",
        HEADING,
        "",
        f"Command: `{command}` — median of {repeats} runs (one at 10⁷ rows) of fit + predict_proba, the model at one "
        "thread, the model at two (`pgm_models.config_context(n_jobs=2)`) and the floor alternating on the same data; "
        "ratio = model at one thread ÷ floor (target ≤ 1.5 at 10⁶ rows and above); ×2 threads = the model's one-thread "
        "time over its two-thread time (the same probabilities to the bit, checked); GB/s = the bytes of X (read "
        f"twice) and y over the one-thread time, beside a copy's {bandwidth:.1f} GB/s; max |Δp| between model and floor.",
        run_record(f"numpy {np.__version__}, numba {numba.__version__}, pgm_models {pgm_models.__version__}"),
        "",
        "| model | rows | model (s) | floor (s) | ratio | 2 threads (s) | ×2 threads | model GB/s | floor GB/s "
        "| max abs Δp |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['model']} | {r['rows']:,} | {r['model_s']:.3f} | {r['floor_s']:.3f} | {r['ratio']:.2f} | "
            f"{r['threads_s']:.3f} | {r['speedup']:.2f} | {r['model_gbs']:.2f} | {r['floor_gbs']:.2f} | "
            f"{r['difference']:.0e} |"
        )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--write", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    results, bandwidth = run(args.sizes, args.repeats, args.models)
    if args.write:
        append_section(args.write, markdown(results, bandwidth, command_line("floor", argv), args.repeats))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
