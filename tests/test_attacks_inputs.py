"""Every attack leaves its input arrays unchanged: :func:`sdcrisk.validation.prepare` hands a
column-major writable input to the attack without copying it (``sdcrisk assess`` passes such
per-attack arrays), so an attack that wrote into its inputs would change the caller's data."""

import numpy as np
import pytest

from sdcrisk.attacks import ATTACKS, run_attack
from sdcrisk.validation import prepare


def _pair(n=300, m=4, seed=0):
    rng = np.random.default_rng(seed)
    x = np.round(rng.lognormal(3.0, 0.6, (n, m)), 1)  # tied values
    y = x + np.round(rng.normal(0.0, 0.5, (n, m)), 1)
    y[:20] = x[:20]  # some records unchanged
    return np.asfortranarray(x), np.asfortranarray(y)


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_an_attack_does_not_write_into_its_inputs(name):
    x, y = _pair()
    x0, y0 = x.copy(), y.copy()
    truth = np.arange(x.shape[0])
    run_attack(name, x, y, np.arange(x.shape[1]), 2, np.random.default_rng(1), truth=truth)
    assert np.array_equal(x, x0) and np.array_equal(y, y0)


def test_prepare_copies_only_where_a_copy_could_differ():
    x, y = _pair(50)
    same = prepare(x, y)
    assert same[0] is x and same[1] is y  # every column of column-major writable arrays
    assert prepare(x, y, [1, 0])[0].base is not x and not np.shares_memory(prepare(x, y, [0, 1])[0], x)
    c = np.ascontiguousarray(x)
    assert not np.shares_memory(prepare(c, c)[0], c)  # row-major: the copy is column-major
    ro = x.copy(order="F")
    ro.flags.writeable = False
    assert not np.shares_memory(prepare(ro, ro)[0], ro)  # read-only (a mapped file): copied
