"""The analysis commands: ubreg fit --save, predict, anova and compare."""
import pickle

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.cli import main


@pytest.fixture()
def csv(tmp_path, pima):
    path = tmp_path / "pima.csv"
    pima.to_csv(path, index=False)
    return path


def test_fit_save_then_predict_gives_the_models_predictions(csv, tmp_path, capsys, pima):
    saved, out = tmp_path / "m.pkl", tmp_path / "pred.csv"
    assert main(["fit", "diabetes ~ glucose + mass", str(csv), "--save", str(saved)]) == 0
    assert main(["predict", str(saved), str(csv), "-o", str(out)]) == 0
    assert "768 predictions (response)" in capsys.readouterr().out
    model = ubreg.fit("diabetes ~ glucose + mass", pima)
    got = pd.read_csv(out)["response"].to_numpy()
    np.testing.assert_allclose(got, model.predict(pima).to_numpy(), rtol=1e-12,
                               equal_nan=True)
    assert main(["predict", str(saved), str(csv), "-o", str(out), "--type", "class"]) == 0
    assert set(pd.read_csv(out)["class"].dropna()) <= {"neg", "pos"}


def test_predict_refuses_what_is_not_a_model(tmp_path, csv, capsys):
    bad = tmp_path / "x.pkl"
    bad.write_bytes(pickle.dumps({"not": "a model"}))
    assert main(["predict", str(bad), str(csv), "-o", str(tmp_path / "o.csv")]) == 2
    assert "not a ubreg model" in capsys.readouterr().err
    assert main(["predict", str(tmp_path / "none.pkl"), str(csv), "-o", "o.csv"]) == 2
    assert "cannot load the model" in capsys.readouterr().err


def test_predict_names_a_model_saved_by_a_version_whose_classes_are_gone(tmp_path, csv,
                                                                           capsys):
    """A pickle naming a module or class this version no longer has (a model saved by an
    older ubreg: the weak learners' ``ubreg.trees.heap.Tree`` is gone) gets the advice to
    refit, not a traceback."""
    old = tmp_path / "old.pkl"
    # protocol 0: the class is named by module and name, as in the pickles of that version
    old.write_bytes(b"cubreg.trees.heap\nTree\n(tR.")
    assert main(["predict", str(old), str(csv), "-o", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert "ubreg.trees.heap" in err and "refit" in err and "Traceback" not in err


def test_arguments_in_the_other_order_get_the_working_spelling(csv, capsys):
    """``ubreg fit`` takes the formula first (R's glm(formula, data)), ``compare`` and
    ``anova`` the data first (then several formulas): swapped, the error says which."""
    assert main(["fit", str(csv), "diabetes ~ glucose + mass"]) == 2
    err = capsys.readouterr().err
    assert "is a formula" in err and "ubreg fit 'diabetes ~ glucose + mass'" in err
    assert main(["anova", "diabetes ~ glucose", str(csv), "diabetes ~ glucose + mass"]) == 2
    err = capsys.readouterr().err
    assert "is a formula" in err and "ubreg anova" in err and "the data first" in err


def test_anova_of_formulas_is_ubreg_anova_on_the_same_rows(csv, capsys, pima):
    formulas = ["diabetes ~ glucose", "diabetes ~ glucose + mass",
                "diabetes ~ glucose + mass + age"]
    assert main(["anova", str(csv), *formulas]) == 0
    rows = pima.dropna(subset=["glucose", "mass", "age", "diabetes"])
    expected = ubreg.anova(*[ubreg.fit(f, rows) for f in formulas])
    assert str(expected) in capsys.readouterr().out


@pytest.mark.slow
def test_compare_each_formula_by_each_method(csv, tmp_path, capsys):
    report = tmp_path / "cmp.html"
    assert main(["compare", str(csv), "diabetes ~ glucose + mass", "diabetes ~ glucose + age",
                 "--method", "uls", "--method", "udt", "--folds", "3",
                 "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "4 models, 3-fold CV (seed 1) on the same rows and folds" in out
    for label in ("diabetes ~ glucose + mass · uls", "diabetes ~ glucose + age · udt"):
        assert label in out and label in report.read_text(encoding="utf-8")


def test_help_lists_the_families_and_methods(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(name in text for name in ubreg.families.FAMILIES)
    assert all(name in text for name in ubreg.METHODS)
