#!/usr/bin/env python3
"""Fit the constants of cairn_core::rank::relevance (a logistic model).

Input: the JSON Lines `cairn-bench eval --min-relevance 0 --dump-relevance PATH`
writes, one (question, result) pair a line with its cosine, term share and
whether the case names the memory as an answer. Abstain cases are left out
(they are the check, not the fit).

Prints the maximum-likelihood coefficients of

    relevance = sigmoid(bias + a * cosine + b * term_share)     (semantic, hybrid)
    relevance = sigmoid(bias + b * term_share)                  (keyword: no cosine)

and, for candidate floors, the share of answerable cases whose relevant
result stays above the floor. Pure Python (Newton's method), no packages.

Usage: scripts/fit-relevance.py pairs.jsonl
"""
import json
import math
import sys


def fit(rows, features):
    """Logistic regression by Newton-Raphson (L2 1e-6 for stability)."""
    k = len(features) + 1
    w = [0.0] * k
    for _ in range(50):
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]
        for x, y in rows:
            v = [1.0] + [x[f] for f in features]
            z = sum(wi * vi for wi, vi in zip(w, v))
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            for i in range(k):
                grad[i] += (y - p) * v[i]
                for j in range(k):
                    hess[i][j] += p * (1 - p) * v[i] * v[j]
        for i in range(k):
            grad[i] -= 1e-6 * w[i]
            hess[i][i] += 1e-6
        step = solve(hess, grad)
        w = [wi + si for wi, si in zip(w, step)]
        if max(abs(s) for s in step) < 1e-9:
            break
    return w


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def main(path):
    pairs = [json.loads(l) for l in open(path) if l.strip()]
    answerable = [p for p in pairs if p["kind"] != "abstain"]
    with_cos = [
        ({"cosine": p["cosine"], "term_share": p["term_share"]}, 1.0 if p["relevant"] else 0.0)
        for p in answerable
        if p["mode"] in ("semantic", "hybrid") and p["cosine"] is not None
    ]
    terms_only = [
        ({"term_share": p["term_share"]}, 1.0 if p["relevant"] else 0.0)
        for p in answerable
        if p["mode"] == "keyword"
    ]
    pos = sum(y for _, y in with_cos)
    print(f"pairs with a cosine: {len(with_cos)} ({pos:.0f} relevant)")
    b, a, c = fit(with_cos, ["cosine", "term_share"])
    print(f"RELEVANCE_BIAS = {b:.3f}\nRELEVANCE_COSINE = {a:.3f}\nRELEVANCE_TERMS = {c:.3f}")
    # The model Cairn uses: the evidence summed as cosine + 0.5 * term_share
    # (the weight chosen with the floor, docs/design/relevance.md), the scale
    # and intercept of the sum fitted.
    summed = [({"x": x["cosine"] + 0.5 * x["term_share"]}, y) for x, y in with_cos]
    b, s = fit(summed, ["x"])
    print(f"summed: bias = {b:.3f}, cosine = {s:.3f}, terms = {0.5 * s:.3f}")
    if terms_only:
        pos = sum(y for _, y in terms_only)
        print(f"pairs without: {len(terms_only)} ({pos:.0f} relevant)")
        b2, c2 = fit(terms_only, ["term_share"])
        print(f"RELEVANCE_TERMS_ONLY_BIAS = {b2:.3f}\nRELEVANCE_TERMS_ONLY = {c2:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
