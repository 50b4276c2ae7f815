"""What the documentation says about the methods is what the code does: the README
sections that messages point to exist, and the documented defaults are the code's."""
import inspect
import pathlib
import pickle
import re
import warnings

import numpy as np

import ubreg
from ubreg.families.tempered import Tempered
from ubreg.fitters.tboost import learners as tlearners
from ubreg.methods import tboost as tmethod

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
HEADINGS = {line.lstrip("#").strip() for line in README.splitlines() if line.startswith("#")}


def _readme_rows(marker):
    return [line for line in README.splitlines() if line.startswith("|") and marker in line]


def test_pickle_version_warning_names_a_readme_section():
    m = ubreg.fit("diabetes ~ glucose", ubreg.datasets.load_pima())
    state = m.__getstate__()
    state["ubreg_version"] = "0.0.0"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        type(m).__new__(type(m)).__setstate__(state)
    [w] = [w for w in caught if "pickled by ubreg" in str(w.message)]
    named = re.findall(r'README(?:\.md)?, "([^"]+)"', str(w.message))
    assert named, str(w.message)
    assert set(named) <= HEADINGS
    import ubreg._pickling as pk
    assert set(re.findall(r'README(?:\.md)?, "([^"]+)"', pk.__doc__)) <= HEADINGS
    # and the section says what the message relies on
    section = README.split(f"### {named[0]}", 1)[1].split("\n#", 1)[0]
    assert "pickle" in section and "trust" in section and "version" in section
    pickle.dumps(m)


def _default_t(text):
    found = re.findall(r"default `?t ?= ?([0-9.]+)`?", text)
    assert found, text
    return {float(x) for x in found}


def test_tempered_default_t_is_the_code_default_in_readme_and_docstrings():
    default = inspect.signature(Tempered.__init__).parameters["t"].default
    loss_default = inspect.signature(ubreg.TemperedExponential.__init__).parameters["t"].default
    assert default == loss_default == tmethod.DEFAULT_T == 0.5
    [family_row] = _readme_rows('`"tempered", t=t`')
    assert _default_t(family_row) == {default}
    [tboost_row] = _readme_rows('`"tboost"`')
    assert _default_t(tboost_row) == {default}
    doc = " ".join(tmethod.OPTIONS["t"].help.split())
    assert "default t = 0.5" in doc
    import ubreg.families as families
    for text in (Tempered.__doc__, families.Permissible.__doc__ or "", families.__doc__ or ""):
        said = {float(v) for v in re.findall(r"(?:default|takes) t = ([0-9.]+)|t : float, "
                                             r"default ([0-9.]+)", text) for v in v if v}
        assert said <= {default}, said


def test_tboost_thresholds_are_documented_as_within_node_midpoints():
    """§3.3 trees cut at the midpoint of two consecutive distinct values of the rows
    in the node (not of the whole column): said in tboost's option table (its
    schema) and in the README row."""
    doc = " ".join(tmethod.OPTIONS["learner"].help.split())
    assert "midpoint" in doc and "in the node" in doc
    [tboost_row] = _readme_rows('`"tboost"`')
    assert "midpoints" in tboost_row and "node" in tboost_row
    # x0 separates two groups (mixed: every split must be admissible); x1 takes the
    # values 0..9 on the left and k + 0.5 on the right, so a within-node midpoint of
    # the left node, k + 0.5, is no midpoint of the column's values (k + 0.25)
    k = np.arange(10.0)
    X = np.column_stack([np.r_[np.full(10, -1.0), np.full(10, 1.0)], np.r_[k, k + 0.5]])
    ystar = np.array([-1, -1, -1, -1, 1, -1, -1, 1, -1, -1,
                      1, 1, -1, 1, 1, 1, -1, 1, 1, 1], dtype=float)
    tree = tlearners.fit_tempered_tree(X, ystar, np.full(20, 20 ** -0.5), 0.5, depth=2)
    checked = []

    def walk(node, rows):
        if tree.left[node] < 0:
            return
        j, thr = tree.feature[node], tree.threshold[node]
        vals = np.unique(X[rows, j])                  # the node's distinct values
        k = np.searchsorted(vals, thr)                # vals[k-1] <= thr < vals[k]
        assert thr == 0.5 * (vals[k - 1] + vals[k])
        everywhere = np.unique(X[:, j])               # all rows' values: another cut
        g = np.searchsorted(everywhere, thr)
        checked.append(thr != 0.5 * (everywhere[g - 1] + everywhere[g]))
        go = X[rows, j] <= thr
        walk(tree.left[node], rows[go])
        walk(tree.right[node], rows[~go])

    walk(0, np.arange(20))
    assert len(checked) >= 3 and any(checked)     # some cut is not a global midpoint


def test_the_formulas_page_lists_every_function_a_formula_may_call():
    from ubreg.design.allowlist import R_ALTERNATIVES
    from ubreg.design.rfunctions import CONSTANTS, FUNCTIONS
    page = (ROOT / "docs" / "formulas.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`([A-Za-z][\w.]*)\(", page)) | set(re.findall(r"`([\w.]+)`", page))
    missing = [name for name in FUNCTIONS if name not in listed]
    assert not missing, f"docs/formulas.md does not list these functions: {missing}"
    assert not [c for c in CONSTANTS if c not in listed]
    # a function with an alternative in the refusal is one a formula may not call
    assert not set(R_ALTERNATIVES) & set(FUNCTIONS)
