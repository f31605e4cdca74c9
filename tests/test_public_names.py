"""The public names keep working with the package split in two products over one engine:
``sdcrisk.assess`` is a package (``sdcrisk.assess.report``) and still the function
``sdcrisk.assess(original, masked, ...)`` (``from sdcrisk import assess``), whatever was imported
first; ``sdcrisk.masking.mask``, ``register``, ``register_attack``, ``LinkResult`` and the input
check ``prepare`` stay where users import them from. The import-order cases run in fresh interpreters."""

import subprocess
import sys

import pytest

# a DBRL run on 60 records whose masked file is the original plus small noise: every record links
_CALL = """
import numpy as np, pandas as pd
rng = np.random.Generator(np.random.PCG64(3))
x = pd.DataFrame(rng.normal(size=(60, 3)), columns=list("abc"))
y = x + rng.normal(scale=1e-3, size=x.shape)
r = ASSESS(x, y, attacks=["DBRL"], information_loss=False).set_index("measure")
assert r.loc["DBRL", "percent"] == 100.0 and r.loc["DBRL", "linked"] == 60, r
"""


def test_sdcrisk_assess_is_callable_after_a_submodule_import():
    """In this process (the submodule's import set ``sdcrisk.assess`` to the package)."""
    import sdcrisk
    import sdcrisk.assess.report
    from sdcrisk import assess

    assert assess is sdcrisk.assess and sdcrisk.assess.report is sdcrisk.assess.report
    exec(_CALL.replace("ASSESS", "assess"), {"assess": assess})


@pytest.mark.slow  # fresh interpreters
@pytest.mark.parametrize("first", ["import sdcrisk.assess.report", "import sdcrisk.assess.jobs", "import sdcrisk.cli",
                                   "import sdcrisk.assess", "pass"])
def test_sdcrisk_assess_is_callable_whatever_was_imported_first(first):
    code = f"{first}\nimport sdcrisk\nfrom sdcrisk import assess\nimport sdcrisk.assess.report\n" \
           "assert assess is sdcrisk.assess and callable(assess)\n" + _CALL.replace("ASSESS", "sdcrisk.assess")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)


@pytest.mark.slow  # a fresh interpreter
def test_the_function_form_and_the_package_form_agree():
    code = ("import sdcrisk\nimport sdcrisk.assess.report as report\n"
            "assert sdcrisk.assess.report is report\n" + _CALL.replace("ASSESS", "sdcrisk.assess.assess"))
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)


def test_import_sdcrisk_and_the_assess_package_stay_light():
    """``import sdcrisk`` and ``import sdcrisk.assess`` (what an attack worker's ``python -m``
    loads first) import no numerical library; the call does."""
    code = ("import sys\nimport sdcrisk\nimport sdcrisk.assess\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'numba') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_engine_names_keep_their_paths():
    import numpy as np

    from sdcrisk.attacks import ATTACKS, register_attack
    from sdcrisk.linkage import LinkResult, prepare
    from sdcrisk.masking import METHODS, mask, register
    from sdcrisk.validation import prepare as prepare_here

    assert prepare is prepare_here
    assert callable(register) and callable(register_attack) and "DBRL" in ATTACKS and "additive_noise" in METHODS
    x = np.random.Generator(np.random.PCG64(0)).normal(size=(20, 2))
    masked = mask("additive_noise", x, np.random.Generator(np.random.PCG64(1)), a=0.1)
    assert masked.shape == x.shape and not np.array_equal(masked, x)
    links = LinkResult(links=np.arange(5))
    assert links.n_correct == 5
