"""R's anova of three or more glm fits, deviance tables as DataFrames, and their stars
(tests/fixtures/anova_models.R)."""
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.evaluate.deviance_table import NotNestedError

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "anova_models.json")
                     .read_text())


@pytest.fixture(scope="module")
def models(pima):
    rows = pima.dropna(subset=["glucose", "mass", "age", "pedigree"])
    return [ubreg.fit(f"diabetes ~ {f}", rows) for f in FIXTURE["formulas"]]


def _as_r(reference: dict) -> pd.DataFrame:
    return pd.DataFrame({k: np.array([np.nan if x is None else x for x in v], float)
                         for k, v in reference.items()})


def _stars(text: str, names: list[str]) -> list[str]:
    """The star column of each printed row of ``names`` (what follows the p-value)."""
    lines = {ln.split()[0]: ln for ln in text.splitlines() if ln.split()}
    return [lines[n].split()[-1] if lines[n].split()[-1] in ("***", "**", "*", ".")
            else "" for n in names]


@pytest.mark.parametrize("order, key", [([0, 1, 2], "increasing"), ([2, 0, 1], "shuffled")])
def test_three_models_are_rs_anova_in_the_order_given(models, order, key):
    table = ubreg.anova(*[models[i] for i in order])
    assert isinstance(table, pd.DataFrame) and list(table.index) == ["1", "2", "3"]
    ref = _as_r(FIXTURE[key])
    assert list(table.columns) == list(ref.columns)
    np.testing.assert_allclose(table.to_numpy(), ref.to_numpy(), rtol=1e-6, equal_nan=True)
    assert [f"Model {i + 1}: diabetes ~ {FIXTURE['formulas'][j]}"
            for i, j in enumerate(order)] == [ln for ln in str(table).splitlines()
                                              if ln.startswith("Model ")]


def test_stars_and_legend_as_r_prints_them(models):
    text = str(ubreg.anova(*models))
    assert _stars(text, ["1", "2", "3"]) == FIXTURE["increasing_stars"]
    assert "Signif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1" in text
    drop = ubreg.drop1(models[2], test="Chisq")
    assert _stars(str(drop), FIXTURE["drop1_rows"]) == FIXTURE["drop1_stars"]
    assert "Signif. codes" not in str(ubreg.drop1(models[2]))      # no test, no stars


def test_deviance_tables_are_dataframes(models):
    drop = ubreg.drop1(models[2], test="Chisq")
    ref = _as_r(FIXTURE["drop1"])
    assert list(drop.index) == FIXTURE["drop1_rows"]
    np.testing.assert_allclose(drop["Pr(>Chi)"].to_numpy(), ref["Pr(>Chi)"].to_numpy(),
                               rtol=1e-6, equal_nan=True)
    np.testing.assert_allclose(drop.loc["mass", "LRT"], ref["LRT"][2], rtol=1e-6)
    part = drop[["Df", "LRT"]]
    assert type(part) is pd.DataFrame and "Single term" not in repr(part)
    assert ubreg.anova(models[2])["Resid. Dev"].iloc[-1] == pytest.approx(716.296590469469)
    two = ubreg.anova(models[0], models[2])
    assert two["Pr(>Chi)"].iloc[1] == pytest.approx(two.lr_pvalue)


def test_other_families_give_the_deviances_without_a_test(pima):
    rows = pima.dropna(subset=["glucose", "mass", "age"])
    fits = [ubreg.fit(f, rows, family="matsushita") for f in
            ("diabetes ~ glucose", "diabetes ~ glucose + mass", "diabetes ~ glucose + mass + age")]
    table = ubreg.anova(*fits)
    assert "Pr(>Chi)" not in table and "not a likelihood" in str(table)
    np.testing.assert_allclose(table["Deviance"].iloc[1:],
                               [fits[0].deviance - fits[1].deviance,
                                fits[1].deviance - fits[2].deviance])


def test_consecutive_models_must_be_nested(models, pima):
    rows = pima.dropna(subset=["glucose", "mass", "age", "pedigree"])
    other = ubreg.fit("diabetes ~ age + pedigree", rows)
    with pytest.raises(NotNestedError, match="not nested"):
        ubreg.anova(models[0], models[1], other)
