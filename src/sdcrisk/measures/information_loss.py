"""Information loss IL of the score framework (Domingo-Ferrer & Torra 2001, "A quantitative
comparison of disclosure control methods for microdata"; Nin, Herranz & Torra (2008, rank swapping) §2.2, Nin, Herranz & Torra (2008, multivariate microaggregation) §2.3, Nin, Herranz & Torra (2007) §3).

``IL = 100 * 0.2 * (IL1 + IL2 + IL3 + IL4 + IL5)`` with, for the original file X and masked X':

* IL1 - X vs X' (Nin, Herranz & Torra (2007): "mean variation"; Nin, Herranz & Torra (2008, rank swapping); Nin, Herranz & Torra (2008, multivariate microaggregation): "mean absolute error");
* IL2 - mean variation of the attribute means;
* IL3 - mean variation of the covariance matrices V, V';
* IL4 - mean variation of the variances S = diag(V), S';
* IL5 - mean absolute error of the correlation matrices R, R' (Nin, Herranz & Torra (2008, multivariate microaggregation): "mean variation").

The "mean variation" of a vector/matrix ``a`` (original) against ``b`` (masked) is the mean of
``|a - b| / |a|`` over its entries. The papers leave open: the exact IL1 (``il1``), what to do
with zero denominators (``zero``; EIA has zeros), which entries of the symmetric matrices count
(``cov_entries`` / ``corr_entries``), IL5 as MAE or variation (``il5``) and the covariance
denominator (``ddof``; the variations of IL3/IL4 and all of IL5 do not depend on it). Every option
is selectable; the defaults are the convention chosen by ``research/calibrate_il.py`` on the
deterministic cells (see ``docs/replication_measures.md``).
"""

from __future__ import annotations

import numpy as np

from ..fixed_order import covariance

from ..validation import prepare

IL1_RULES = ("variation", "mae", "sd", "sd_sqrt2")
ZERO_RULES = ("skip", "zero", "abs_error", "column_scale")
ENTRIES = ("upper", "strict", "full")
IL5_RULES = ("mae", "variation")

DEFAULTS = {"il1": "variation", "zero": "skip", "cov_entries": "upper", "corr_entries": "strict",
            "il5": "mae", "ddof": 1}


def _choice(name: str, value, allowed) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def mean_variation(a, b, zero: str = "skip", scale=None) -> float:
    """Mean of ``|a - b| / |a|`` over the entries of ``a`` (original) and ``b`` (masked).

    ``zero`` says what an entry with ``a == 0`` contributes: ``"skip"`` leaves it out of the
    mean, ``"zero"`` counts it as 0 (it stays in the count), ``"abs_error"`` counts ``|a - b|``
    (denominator 1), ``"column_scale"`` divides by ``scale`` (an array broadcastable to ``a``,
    e.g. the column's mean absolute value) instead of ``|a|``.
    """
    zero = _choice("zero", zero, ZERO_RULES)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    err = np.abs(a - b)
    den = np.abs(a)
    nz = den > 0
    if nz.all():
        return float(np.mean(err / den))
    if zero == "skip":
        return float(np.mean(err[nz] / den[nz])) if nz.any() else 0.0
    ratio = np.zeros_like(err)
    np.divide(err, den, out=ratio, where=nz)
    if zero == "abs_error":
        ratio[~nz] = err[~nz]
    elif zero == "column_scale":
        if scale is None:
            raise ValueError("scale: required when zero='column_scale'")
        s = np.broadcast_to(np.asarray(scale, dtype=np.float64), a.shape)
        ok = ~nz & (s > 0)
        ratio[ok] = err[ok] / s[ok]
    return float(np.mean(ratio))


def _entries(mat: np.ndarray, which: str) -> np.ndarray:
    m = mat.shape[0]
    if which == "full":
        return mat.ravel()
    i, j = np.triu_indices(m, k=0 if which == "upper" else 1)
    return mat[i, j]


def _corr(cov: np.ndarray) -> np.ndarray:
    sd = np.sqrt(np.diag(cov))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.outer(sd, sd)
    r[~np.isfinite(r)] = 0.0  # a constant (fully aggregated) masked column correlates with nothing
    np.fill_diagonal(r, 1.0)
    return r


def il_components(original, masked, *, il1: str = DEFAULTS["il1"], zero: str = DEFAULTS["zero"],
                  cov_entries: str = DEFAULTS["cov_entries"], corr_entries: str = DEFAULTS["corr_entries"],
                  il5: str = DEFAULTS["il5"], ddof: int = DEFAULTS["ddof"], cov=None) -> np.ndarray:
    """IL1..IL5 (as fractions, not percent) of ``masked`` against ``original`` (see module doc).

    ``il1``: ``"variation"`` mean of |x - x'| / |x|; ``"mae"`` mean |x - x'| (raw units);
    ``"sd"`` mean |x - x'| / sd_j; ``"sd_sqrt2"`` mean |x - x'| / (sqrt(2) sd_j) (IL1s of Yancey,
    Winkler & Creecy 2002), sd_j of the original attribute. ``cov_entries`` / ``corr_entries``:
    ``"upper"`` (i <= j), ``"strict"`` (i < j) or ``"full"`` matrix. ``il5``: ``"mae"`` or
    ``"variation"``. ``ddof``: 0 (population) or 1 (sample) covariances. ``cov``: the pair
    :func:`covariances` of the same files and ``ddof``, when the caller has it already.
    """
    _choice("il1", il1, IL1_RULES)
    _choice("zero", zero, ZERO_RULES)
    _choice("cov_entries", cov_entries, ENTRIES)
    _choice("corr_entries", corr_entries, ENTRIES)
    _choice("il5", il5, IL5_RULES)
    if ddof not in (0, 1) or isinstance(ddof, bool):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    x, y = prepare(original, masked)
    m = x.shape[1]
    if m == 1 and corr_entries == "strict":
        raise ValueError("corr_entries: 'strict' needs at least 2 attributes; use 'upper' or 'full'")
    colscale = np.mean(np.abs(x), axis=0)
    if il1 == "variation":
        c1 = mean_variation(x, y, zero, scale=colscale)
    else:
        err = np.abs(x - y)
        if il1 == "mae":
            c1 = float(err.mean())
        else:
            sd = x.std(axis=0, ddof=ddof) * (np.sqrt(2.0) if il1 == "sd_sqrt2" else 1.0)
            c1 = float((err / sd).mean())
    mx, my = x.mean(axis=0), y.mean(axis=0)
    c2 = mean_variation(mx, my, zero, scale=colscale)
    vx, vy = covariances(x, y, ddof) if cov is None else cov
    vscale = np.sqrt(np.outer(np.diag(vx), np.diag(vx)))
    c3 = mean_variation(_entries(vx, cov_entries), _entries(vy, cov_entries), zero,
                        scale=_entries(vscale, cov_entries))
    c4 = mean_variation(np.diag(vx), np.diag(vy), zero, scale=np.diag(vx))
    rx, ry = _entries(_corr(vx), corr_entries), _entries(_corr(vy), corr_entries)
    if il5 == "mae":
        c5 = float(np.mean(np.abs(rx - ry)))
    else:
        c5 = mean_variation(rx, ry, zero, scale=1.0)
    return np.array([c1, c2, c3, c4, c5])


def covariances(x: np.ndarray, y: np.ndarray, ddof: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The covariance matrices of both files, without BLAS (the same bits on every CPU,
    :mod:`sdcrisk.fixed_order`): the slow part of the measures at 10^6 records (correctly rounded
    sums), so computed once where several measures need them."""
    return covariance(x, ddof=ddof), covariance(y, ddof=ddof)


def information_loss(original, masked, **options) -> float:
    """``IL = 100 * 0.2 * (IL1 + ... + IL5)`` (Nin, Herranz & Torra (2008, rank swapping) §2.2); options as in :func:`il_components`."""
    return float(100.0 * 0.2 * il_components(original, masked, **options).sum())


# ----------------------------------------------------------------------------- robust near zero
# IL1..IL3 divide by the original values, means and covariances: near zero they explode. Measured
# on 200 x 4 independent standard normal attributes masked by adding noise of sd 0.3: IL1 117.5 %,
# IL2 124.6 %, IL3 163.6 % (IL4 11.8 %, IL5 3.7 %); shifting every attribute by +10 brings IL1 to
# 2.4 % and IL2 to 0.2 % for the same noise, while IL3 stays at 163.6 % (the covariances of
# independent attributes are near zero wherever the data lie). The measures below divide by the
# original attributes' standard deviations instead, so they depend neither on where the values
# lie nor on their units (tests/test_report.py::test_il_s_*).


def il1s(original, masked) -> float:
    """IL1s of Yancey, Winkler & Creecy (2002), as a fraction: the mean over records ``i`` and
    attributes ``j`` of ``|x_ij - x'_ij| / (sqrt(2) S_j)``, ``S_j`` the sample standard deviation
    of the original attribute ``j`` (``ddof=1``). It is :func:`il_components`'s IL1 under the
    rule ``il1="sd_sqrt2"``, computed by it (not again here)."""
    return float(il_components(original, masked, il1="sd_sqrt2")[0])


def il_s_components(original, masked, *, cov=None) -> np.ndarray:
    """The five parts of :func:`il_s`, as fractions: IL1s, IL2s, IL3s, IL4, IL5.

    * IL1s - :func:`il1s` (values, in units of ``sqrt(2) S_j``);
    * IL2s - mean over attributes of ``|mean_j - mean'_j| / S_j`` (the standardised mean
      difference instead of IL2's relative one);
    * IL3s - mean over the covariance entries ``i <= j`` of ``|v_ij - v'_ij| / (S_i S_j)`` (the
      covariance change in correlation units instead of IL3's relative one; on the diagonal it is
      IL4's ``|v_jj - v'_jj| / v_jj``);
    * IL4 - mean variation of the variances, as in :func:`il_components` (the variances of a
      usable original file are positive: no zero denominator);
    * IL5 - mean absolute error of the correlations, as in :func:`il_components` (NaN for a
      file of one attribute, which has no correlation).

    ``S_j`` is the original attribute's sample standard deviation (``ddof=1``; the same as
    IL1s's). Every part is invariant under ``x -> a x + b`` (``a > 0``) applied to an attribute in
    both files. A constant original attribute has no scale: ``ValueError``. ``cov``: as in
    :func:`il_components` (``ddof=1``).
    """
    x, y = prepare(original, masked)
    vx, vy = covariances(x, y, 1) if cov is None else cov
    single = x.shape[1] == 1  # IL5 compares correlations: undefined (NaN) for one attribute
    parts = il_components(x, y, il1="sd_sqrt2", cov=(vx, vy), corr_entries="upper" if single else "strict")
    if single:
        parts[4] = np.nan
    sd = np.sqrt(np.diag(vx))
    if not np.all(sd > 0):
        j = int(np.flatnonzero(~(sd > 0))[0])
        raise ValueError(f"attribute {j} of the original is constant: IL-s has no scale for it")
    il2s = float(np.mean(np.abs(x.mean(axis=0) - y.mean(axis=0)) / sd))
    i, j = np.triu_indices(x.shape[1])
    il3s = float(np.mean(np.abs(vx[i, j] - vy[i, j]) / (sd[i] * sd[j])))
    return np.array([parts[0], il2s, il3s, parts[3], parts[4]])


def il_s(original, masked) -> float:
    """IL-s, in percent: ``100 * (IL1s + IL2s + IL3s + IL4 + IL5) / 5`` (:func:`il_s_components`).

    The papers' IL with every part that divides by original values, means or covariances made
    relative to the attributes' standard deviations instead, so that it does not explode for
    attributes near zero (module comment above). 0 means no loss; not bounded by 100. The report
    of ``sdcrisk assess`` draws its risk-utility map against IL-s and keeps the papers' IL in its
    tables.
    """
    return float(100.0 * il_s_components(original, masked).mean())


__all__ = ["information_loss", "il_components", "mean_variation", "IL1_RULES", "ZERO_RULES",
           "ENTRIES", "IL5_RULES", "DEFAULTS", "il1s", "il_s_components", "il_s"]
