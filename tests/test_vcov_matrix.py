"""``vcov=`` takes a covariance matrix wherever it takes a kind (R's ``coeftest(m, vcov =
V)``, ``coefci``): the same numbers as the kind it was computed as; a matrix that does not
fit the model is refused by name."""
import numpy as np
import pandas as pd
import pytest

import ubreg


@pytest.fixture(scope="module")
def m():
    d = ubreg.datasets.load_pima().dropna(subset=["glucose", "mass", "age"])
    return ubreg.fit("diabetes ~ glucose + mass + age", d)


def test_a_matrix_gives_the_numbers_of_its_kind(m):
    V = m.vcov("HC3")
    pd.testing.assert_frame_equal(m.coef_table(vcov=V), m.coef_table(vcov="HC3"))
    pd.testing.assert_frame_equal(m.conf_int(vcov=V.to_numpy()), m.conf_int(vcov="HC3"))
    s, ref = m.summary(vcov=V), m.summary(vcov="HC3")
    pd.testing.assert_frame_equal(s.frame(), ref.frame(), check_like=False,
                                  check_flags=False, check_exact=True)
    assert "as given" in str(s) and s.frame().attrs["covariance"] == "as given (a vcov= matrix)"
    nd = ubreg.datasets.load_pima().dropna(subset=["glucose", "mass", "age"]).head(4)
    pd.testing.assert_frame_equal(m.predict(nd, se_fit=True, vcov=V),
                                  m.predict(nd, se_fit=True, vcov="HC3"))


def test_a_dataframe_is_read_by_its_labels(m):
    V = m.vcov("HC0")
    shuffled = V.iloc[::-1, ::-1]
    pd.testing.assert_frame_equal(m.coef_table(vcov=shuffled), m.coef_table(vcov="HC0"))


@pytest.mark.parametrize("bad, message", [
    (np.eye(3), r"vcov is \(3, 3\); the model has 4 coefficients"),
    (pd.DataFrame(np.eye(4), index=list("abcd"), columns=list("abcd")),
     "no row or column '\\(Intercept\\)'"),
    (np.triu(np.ones((4, 4))), "not symmetric"),
])
def test_a_matrix_that_does_not_fit_is_refused(m, bad, message):
    with pytest.raises(ValueError, match=message):
        m.summary(vcov=bad)


def test_matrix_and_cluster_are_exclusive(m):
    with pytest.raises(ValueError, match="not both"):
        m.vcov(np.eye(4), cluster="age")
