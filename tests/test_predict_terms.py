"""predict(type="terms") of linear fits: R's predict.glm(type = "terms") and its
"constant" (tests/fixtures/predict_terms.R)."""
import json
import pathlib

import numpy as np
import pytest

import ubreg

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
REF = json.loads((FIXTURES / "predict_terms.json").read_text())
FORMULAS = {
    "factor_poly": ("y ~ glucose + poly(age, 2) + I(pregnant > 3) + glucose:mass", {}),
    "no_intercept": ("y ~ glucose + mass - 1", {}),
    "exclude": ("y ~ glucose + pressure", {"na_action": "exclude"}),
    "weighted_offset": ("y ~ glucose + mass + offset(0.01 * age)", {"weights": "w"}),
}


@pytest.fixture(scope="module")
def data(pima):
    return pima.assign(y=(pima["diabetes"] == "pos").astype(int), w=pima["pregnant"] + 1)


def _check(frame, ref):
    assert list(frame.columns) == ref["columns"]
    values = np.array([[np.nan if x is None else x for x in col] for col in ref["values"]]).T
    np.testing.assert_allclose(frame.to_numpy(), values, rtol=1e-6, atol=1e-9, equal_nan=True)
    if ref["constant"] != {}:                   # R drops it when na.exclude pads the rows
        assert frame.attrs["constant"] == pytest.approx(ref["constant"], rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("case", sorted(FORMULAS))
def test_terms_are_rs(data, case):
    formula, options = FORMULAS[case]
    m = ubreg.fit(formula, data, **options)
    _check(m.predict(type="terms"), REF["cases"][case]["training"])
    new = data.iloc[REF["newdata_rows"]]
    _check(m.predict(new, type="terms"), REF["cases"][case]["newdata"])


def test_terms_and_constant_add_up_to_the_link(data):
    m = ubreg.fit("y ~ glucose + poly(age, 2) + I(pregnant > 3) + mass", data)
    terms = m.predict(type="terms")
    np.testing.assert_allclose(terms.sum(axis=1) + terms.attrs["constant"],
                               m.predict(type="link"), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="terms"):
        m.predict(type="terms", se_fit=True)
