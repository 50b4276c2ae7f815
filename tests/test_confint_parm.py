"""R's ``confint(m, parm)`` and ``confint.default(m, parm)``: the rows asked for, by name,
the same numbers as the whole table (a profile computed for those coefficients only)."""
import numpy as np
import pytest

import ubreg


@pytest.fixture(scope="module")
def m():
    d = ubreg.datasets.load_pima().dropna(subset=["glucose", "mass", "age"])
    return ubreg.fit("diabetes ~ glucose + mass + age", d)


def test_profile_of_some_coefficients_equals_the_whole_table(m):
    fresh = ubreg.fit("diabetes ~ glucose + mass + age", m.provenance.data)
    some = fresh.confint(parm=["age", "mass"])           # before any full profile
    whole = m.confint()
    assert list(some.index) == ["age", "mass"]
    np.testing.assert_array_equal(some.to_numpy(), whole.loc[["age", "mass"]].to_numpy())
    assert list(m.confint(parm="glucose").index) == ["glucose"]     # from the cached table


def test_wald_rows(m):
    np.testing.assert_array_equal(m.conf_int(parm="mass").to_numpy(),
                                  m.conf_int().loc[["mass"]].to_numpy())
    assert list(m.confint(method="wald", parm=["age"]).index) == ["age"]


def test_bad_parm_is_named(m):
    with pytest.raises(ValueError, match="parm: no coefficient 'pressure'"):
        m.confint(parm="pressure")
    with pytest.raises(ValueError, match="the coefficients go in parm="):
        m.confint("mass")
