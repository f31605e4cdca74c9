"""The agencies' disclosure-risk measures on categorical key variables.

Statistical agencies judge a microdata release by how rare each record's combination of
categorical key values (quasi-identifiers) is. This module computes, for every record:

* the **sample frequency** ``fk``: how many records of the file share its key values, and,
  with sampling weights, the **estimated population frequency** ``Fk``: the sum of the weights
  of those records (Templ, Kowarik & Meindl 2015, section 3.1);
* **k-anonymity violations**: the records with ``fk < k`` (Samarati & Sweeney 1998), counted
  for k = 2, 3, 5;
* the **individual re-identification risk** ``r_k`` under the super-population model of
  Benedetti & Franconi (1998): given ``fk``, the population frequency ``Fk`` of the cell is
  negative binomial with success probability ``p_k``, estimated by ``fk / Fk``; the risk is the
  expectation of ``1 / Fk``. Franconi & Polettini (2004, eq. 5-7) give it in closed form for
  ``fk = 1`` and ``fk = 2`` and an approximation for larger ``fk``::

      fk = 1:  r = p / (1 - p) * log(1 / p)
      fk = 2:  r = p / (1 - p) - (p / (1 - p))**2 * log(1 / p)
      fk > 2:  r = p / (fk - (1 - p))

  A cell whose weights sum to its sample count (``Fk == fk``: the whole population is in the
  sample) has ``r = 1 / fk``; without weights the risk is ``1 / fk`` (every record its own
  population). The **global risk** is the expected number of re-identifications, the sum of
  ``r_k`` over the records (``risk_ER``), also per record (``risk``) and in percent;
* **l-diversity** of sensitive attributes within each key cell (Machanavajjhala, Kifer, Gehrke &
  Venkitasubramaniam 2007): *distinct* l-diversity (the number of distinct sensitive values),
  *entropy* l-diversity (``exp`` of the entropy of the cell's sensitive values) and *recursive*
  (c, l)-diversity (the largest ``l`` with ``r_1 < c (r_l + ... + r_m)`` for the cell's value
  counts sorted in decreasing order).

These are the definitions sdcMicro (Templ, Kowarik & Meindl 2015) implements in
``measure_risk`` (``risk$individual``, ``risk$global``), ``print(sdc, "kAnon")`` and
``ldiversity``; the values here equal sdcMicro 5.8.1's to 1e-6 relative
(``research/peer/compare_key_risk.py``), including its conventions for missing values:

* **Missing key values** (NaN, None, pandas NA) match any value, as sdcMicro's ``freqCalc`` does
  with its default ``alpha = 1`` (Templ, Kowarik & Meindl 2015, section 3.1): a record with
  missing keys counts every record that agrees with it on the keys both have, and is counted by
  them. Two refinements of sdcMicro 5.8.1 are kept: a record whose keys are *all* missing has
  ``fk`` = the number of records (``Fk`` = the total weight) and, with two or more keys, is not
  counted in the frequencies of the records without missing keys (with one key it is).
  l-diversity groups records by their key values exactly, a missing value being a value of its own.
* **Missing sensitive values** in l-diversity: in a numeric column the code ``missing``
  (default -999, sdcMicro's) is one category, counted only where the cell has some other value;
  a NaN (R's ``NA``) never equals another value, so each one counts as a category of its own.
  Where a cell's sensitive values are all ``missing`` codes, distinct l-diversity is 0, entropy
  l-diversity 1 and recursive l-diversity undefined (NaN here; sdcMicro 5.8.1 leaves the value of
  the previously processed cell there).

Everything is vectorised (factorised codes, ``np.bincount``); memory is a few integer arrays per
record, time about linear in the number of records (one pass per pattern of missing keys).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

K_LEVELS = (2, 3, 5)
MISSING_CODE = -999


@dataclass(frozen=True)
class KeyRisk:
    """The agencies' measures of one file on its categorical keys.

    ``records``: one row per record, in the order (and with the index) of the data: ``fk``,
    ``Fk`` and ``risk`` (sdcMicro's ``risk$individual`` columns ``fk``, ``Fk``, ``risk``), then
    per sensitive attribute ``S``: ``S_Distinct_Ldiversity``, ``S_Entropy_Ldiversity``,
    ``S_Recursive_Ldiversity`` (sdcMicro's ``ldiversity`` columns).
    ``k_anonymity``: per k, the number and percent of records with ``fk < k``.
    ``risk_ER``: expected re-identifications (sum of the individual risks); ``risk``: per
    record (``risk_ER / n``); ``risk_pct``: in percent (sdcMicro's ``risk$global``).
    """

    keys: tuple[str, ...]
    weights: str | None
    sensitive: tuple[str, ...]
    n: int
    records: pd.DataFrame
    k_anonymity: pd.DataFrame
    risk_ER: float
    risk: float
    risk_pct: float

    def summary(self) -> dict:
        """The file-level figures as plain numbers (a report's JSON)."""
        return {"keys": list(self.keys), "weights": self.weights, "sensitive": list(self.sensitive), "n": self.n,
                "risk_ER": self.risk_ER, "risk": self.risk, "risk_pct": self.risk_pct,
                "k_anonymity": self.k_anonymity.to_dict("records")}


# ---------------------------------------------------------------------------------------------
# input checks

def _check_columns(data: pd.DataFrame, columns, what: str) -> tuple[str, ...]:
    columns = (columns,) if isinstance(columns, str) else tuple(columns)
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"{what} column(s) {missing} not in the data (columns: {list(data.columns)})")
    return columns


def check_weights(data: pd.DataFrame, column: str) -> np.ndarray:
    """The sampling weights of ``column`` as float64, or ValueError (one line naming the column)
    unless every value is a finite number greater than 0."""
    if column not in data.columns:
        raise ValueError(f"weights column {column!r} not in the data (columns: {list(data.columns)})")
    s = data[column]
    if not (pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)):
        bad = s[pd.to_numeric(s, errors="coerce").isna()]
        example = f" (e.g. {bad.iloc[0]!r})" if len(bad) else ""
        raise ValueError(f"weights column {column!r}: expected numbers greater than 0, found {s.dtype} values{example}")
    w = s.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(w) | (w <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"weights column {column!r}: expected finite numbers greater than 0, "
                         f"found {w[i]!r} in {int(bad.sum())} record(s) (first at row {i})")
    return w


# ---------------------------------------------------------------------------------------------
# codes and cells

def _codes(s: pd.Series) -> np.ndarray:
    """Dense int64 codes of a column's values, -1 for a missing value (NaN, None, NA)."""
    codes, _ = pd.factorize(s, use_na_sentinel=True)
    return codes.astype(np.int64, copy=False)


def _cell_ids(codes: list[np.ndarray], n: int, dense: bool = False) -> tuple[np.ndarray, int]:
    """Ids in ``[0, size)`` of the distinct rows of ``codes`` (each >= -1, -1 being a value) and
    ``size``: mixed-radix codes while their range stays within ``max(2n, 2**20)`` (no hashing),
    factorised beyond or where ``dense`` (every id in ``[0, size)`` then used)."""
    cap = 0 if dense else max(2 * n, 2**20)
    ids = np.zeros(n, dtype=np.int64)
    size = 1
    for c in codes:
        card = int(c.max(initial=-1)) + 2
        if size * card >= 2**62:
            ids, uniques = pd.factorize(ids)
            ids = ids.astype(np.int64, copy=False)
            size = len(uniques)
        ids = ids * card + (c + 1)
        size *= card
    if size > cap:
        ids, uniques = pd.factorize(ids)
        ids = ids.astype(np.int64, copy=False)
        size = len(uniques)
    return ids, size


def frequencies(data: pd.DataFrame, keys, weights: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(fk, Fk)`` per record: the sample frequency of the record's key values and the sum of
    the weights of those records (``Fk = fk`` without weights). Missing key values match any
    value (sdcMicro's ``freqCalc`` with ``alpha = 1``; the module docstring gives the rule)."""
    keys = _check_columns(data, keys, "key")
    if not keys:
        raise ValueError("at least one key column is needed")
    w = check_weights(data, weights) if weights is not None else np.ones(len(data))
    return _frequencies([_codes(data[k]) for k in keys], w)


def _frequencies(codes: list[np.ndarray], w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`frequencies` from the keys' codes (-1 missing) and the weights."""
    n, K = len(w), len(codes)
    present = [c >= 0 for c in codes]
    if all(p.all() for p in present):
        ids, size = _cell_ids(codes, n)
        fk = np.bincount(ids, minlength=size)[ids].astype(np.float64)
        Fk = np.bincount(ids, weights=w, minlength=size)[ids]
        return fk, Fk
    fk, Fk = np.empty(n), np.empty(n)
    if K == 1:
        na = ~present[0]
        ids = codes[0]
        full = np.flatnonzero(~na)
        fk[na], Fk[na] = n, w.sum()
        if len(full):
            g = int(ids[full].max()) + 1
            fk[full] = np.bincount(ids[full], minlength=g)[ids[full]] + na.sum()
            Fk[full] = np.bincount(ids[full], weights=w[full], minlength=g)[ids[full]] + w[na].sum()
        return fk, Fk
    mask = np.zeros(n, dtype=np.int64)
    for j, p in enumerate(present):
        mask |= p.astype(np.int64) << j
    ALL, NONE = (1 << K) - 1, 0
    patterns = {int(m): np.flatnonzero(mask == m) for m in np.unique(mask)}
    on_keys: dict[int, tuple[np.ndarray, int]] = {}  # common keys -> every record's cell on them
    counted: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}  # (common, pattern) -> counts

    def counts(common: int, m2: int, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Records of pattern m2 equal on the keys ``common`` to each record of ``target``."""
        rows = patterns[m2]
        if common == NONE:
            return np.full(len(target), float(len(rows))), np.full(len(target), w[rows].sum())
        if common not in on_keys:
            on_keys[common] = _cell_ids([codes[j] for j in range(K) if common >> j & 1], n)
        ids, size = on_keys[common]
        if (common, m2) not in counted:
            counted[common, m2] = (np.bincount(ids[rows], minlength=size).astype(np.float64),
                                   np.bincount(ids[rows], weights=w[rows], minlength=size))
        f, F = counted[common, m2]
        return f[ids[target]], F[ids[target]]

    for m, target in patterns.items():
        if m == NONE:
            fk[target], Fk[target] = n, w.sum()
            continue
        # the records compatible with pattern m: equal on the keys both have; a complete record
        # is not matched by records with every key missing (sdcMicro 5.8.1, see the docstring)
        f = np.zeros(len(target))
        F = np.zeros(len(target))
        for m2 in patterns:
            if not (m == ALL and m2 == NONE):
                a, b = counts(m & m2, m2, target)
                f += a
                F += b
        fk[target], Fk[target] = f, F
    return fk, Fk


# ---------------------------------------------------------------------------------------------
# measures

def individual_risk(fk: np.ndarray, Fk: np.ndarray | None = None) -> np.ndarray:
    """``r_k`` per record: ``1 / fk`` without weights (``Fk`` None), else the Benedetti-Franconi
    risk with ``p_k = fk / Fk`` (Franconi & Polettini 2004; module docstring)."""
    fk = np.asarray(fk, dtype=np.float64)
    if Fk is None:
        return 1.0 / fk
    Fk = np.asarray(Fk, dtype=np.float64)
    p = fk / Fk
    r = np.zeros_like(p)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = p / (1.0 - p)
        log_inv = np.log(1.0 / p)
        one, two, more = fk == 1, fk == 2, fk > 2
        r[one] = (q * log_inv)[one]
        r[two] = (q - q * q * log_inv)[two]
        r[more] = (p / (fk - (1.0 - p)))[more]
    whole = fk == Fk
    r[whole] = 1.0 / fk[whole]
    return r


def k_anonymity(fk: np.ndarray, ks=K_LEVELS) -> pd.DataFrame:
    """Per k: the number (``violations``) and percent of records with ``fk < k``."""
    fk = np.asarray(fk)
    n = len(fk)
    rows = [(int(k), int((fk < k).sum())) for k in ks]
    return pd.DataFrame({"k": [k for k, _ in rows], "violations": [v for _, v in rows],
                         "percent": [100.0 * v / n if n else 0.0 for _, v in rows]})


def _sensitive_codes(s: pd.Series, missing) -> tuple[np.ndarray, np.ndarray]:
    """Category codes of a sensitive column (each NaN its own category) and the records holding
    the ``missing`` code (numeric columns only)."""
    n = len(s)
    numeric = pd.api.types.is_numeric_dtype(s) and not isinstance(s.dtype, pd.CategoricalDtype)
    is_code = np.zeros(n, dtype=bool)
    if numeric and missing is not None:
        is_code = (s.to_numpy(dtype=np.float64, na_value=np.nan) == missing)
    codes = _codes(s)
    nan = codes < 0
    top = int(codes.max(initial=-1)) + 1
    codes[nan] = top + np.arange(int(nan.sum()))
    return codes, is_code


def l_diversity(data: pd.DataFrame, keys, sensitive, c: float = 2.0, missing=MISSING_CODE,
                _key_codes: list[np.ndarray] | None = None) -> pd.DataFrame:
    """Distinct, entropy and recursive (c, l) l-diversity of each sensitive column within each
    record's key cell (records equal on every key, a missing key value being a value of its own),
    per record: columns ``S_Distinct_Ldiversity``, ``S_Entropy_Ldiversity``,
    ``S_Recursive_Ldiversity`` for each sensitive column ``S`` (sdcMicro's ``ldiversity``)."""
    keys = _check_columns(data, keys, "key")
    sensitive = _check_columns(data, sensitive, "sensitive")
    both = sorted(set(keys) & set(sensitive))
    if both:
        raise ValueError(f"sensitive column(s) {both} are also keys")
    if not c > 0:
        raise ValueError(f"the recursive l-diversity constant c must be > 0, got {c!r}")
    n = len(data)
    cell, G = _cell_ids(_key_codes or [_codes(data[k]) for k in keys], n, dense=True)
    size = np.bincount(cell, minlength=G).astype(np.float64)
    out = {}
    for s in sensitive:
        codes, is_code = _sensitive_codes(data[s], missing)
        n_missing = np.bincount(cell[is_code], minlength=G).astype(np.float64)
        keep = np.flatnonzero(~is_code)
        # one entry per (cell, category) present
        pair, P = _cell_ids([cell[keep], codes[keep]], len(keep), dense=True)
        pair_count = np.bincount(pair, minlength=P).astype(np.float64)
        pair_cell = np.zeros(P, dtype=np.int64)
        pair_cell[pair] = cell[keep]
        distinct = np.bincount(pair_cell, minlength=G).astype(np.float64)
        ratio = pair_count / size[pair_cell]
        plogp = np.bincount(pair_cell, weights=ratio * np.log(ratio), minlength=G)
        with_missing = (n_missing > 0) & (distinct > 0)
        mratio = np.where(with_missing, n_missing / size, 1.0)
        plogp = plogp + np.where(with_missing, mratio * np.log(mratio), 0.0)
        count = distinct + with_missing
        entropy_l = np.exp(-plogp)
        # recursive (c, l): counts sorted decreasingly within the cell; l = 1 + #{l >= 2: c * S_l > r_1}
        order = np.lexsort((-pair_count, pair_cell))
        pc, cc = pair_count[order], pair_cell[order]
        start = np.searchsorted(cc, np.arange(G))
        rank = np.arange(P) - start[cc]  # 0 for the most frequent category of the cell
        cum = np.cumsum(pc)
        before_cell = np.concatenate([[0.0], cum])[start]  # total of the cells sorted before
        total = np.bincount(cc, weights=pc, minlength=G)
        suffix = total[cc] - (cum - pc - before_cell[cc])  # r_l + ... + r_m at the l-th category
        first = np.zeros(G)
        first[cc[rank == 0]] = pc[rank == 0]
        ok = (rank >= 1) & (c * suffix > first[cc])
        recursive = 1.0 + np.bincount(cc[ok], minlength=G)
        recursive[distinct == 0] = np.nan
        out[f"{s}_Distinct_Ldiversity"] = count[cell]
        out[f"{s}_Entropy_Ldiversity"] = entropy_l[cell]
        out[f"{s}_Recursive_Ldiversity"] = recursive[cell]
    return pd.DataFrame(out, index=data.index)


def key_risk(data: pd.DataFrame, keys, weights: str | None = None, sensitive=(), ks=K_LEVELS,
             c: float = 2.0, missing=MISSING_CODE) -> KeyRisk:
    """Every measure of the module for one file: :class:`KeyRisk`. ``keys``: the categorical key
    columns; ``weights``: the sampling-weight column (None: every record its own population);
    ``sensitive``: columns whose l-diversity is measured; ``c``: the recursive l-diversity
    constant; ``missing``: the missing-value code of numeric sensitive columns."""
    keys = _check_columns(data, keys, "key")
    sensitive = _check_columns(data, sensitive, "sensitive")
    if not keys:
        raise ValueError("at least one key column is needed")
    w = check_weights(data, weights) if weights is not None else np.ones(len(data))
    codes = [_codes(data[k]) for k in keys]
    fk, Fk = _frequencies(codes, w)
    r = individual_risk(fk, Fk if weights is not None else None)
    records = pd.DataFrame({"fk": fk, "Fk": Fk, "risk": r}, index=data.index)
    if sensitive:
        ldiv = l_diversity(data, keys, sensitive, c=c, missing=missing, _key_codes=codes)
        records = pd.concat([records, ldiv], axis=1)
    n = len(data)
    er = float(r.sum())
    return KeyRisk(keys=keys, weights=weights, sensitive=sensitive, n=n, records=records,
                   k_anonymity=k_anonymity(fk, ks), risk_ER=er, risk=er / n if n else 0.0,
                   risk_pct=100.0 * er / n if n else 0.0)


__all__ = ["KeyRisk", "K_LEVELS", "MISSING_CODE", "check_weights", "frequencies", "individual_risk",
           "k_anonymity", "l_diversity", "key_risk"]
