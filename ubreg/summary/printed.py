"""``print(m)``: what R's ``print`` shows of a fit, short of its summary.

A linear fit prints as ``print.glm``: the call, the coefficients (R's
``format(coef, digits = 4)``, laid out as ``print.default`` lays out a named
vector), the degrees of freedom, the null and residual deviance and AIC
(``signif(·, 4)``).  A tree prints as ``print.rpart`` (the node listing); the
other results print the call and their main numbers.  Each result class chooses
its form (``Result.print_lines``: a new result prints the generic form until it
says otherwise); ``str(m)`` and ``repr(m)`` give it.
"""
from __future__ import annotations

import numpy as np

from .render import shown_call
from .rformat import format_r, named_vector_lines, signif
from .tree_listing import listing

__all__ = ["framed", "glm_lines", "tree_lines", "uboost_lines", "ulsboost_lines", "tboost_lines",
           "gnnb_lines", "generic_lines"]


def _r_number(x: float) -> str:
    """``format(signif(x, 4))``, as print.glm writes deviances and AIC."""
    return format_r([signif(float(x), 4)], 7)[0]


def _head(result) -> list[str]:
    return ["", f"Call:  {shown_call(result.call)}"]


def _dropped(result) -> list[str]:
    n = int(result.n_dropped)
    if not n:
        return []
    return [f"  ({n} observation{'s' if n != 1 else ''} deleted due to missingness)"]


def glm_lines(result) -> list[str]:
    """``print.glm`` of a linear fit (a result with coefficients and a likelihood).

    For a family whose deviance is not a likelihood (every family but
    entropy) the deviances are labelled risks, as the summary labels them.
    """
    fam = result.family
    likelihood = bool(getattr(fam, "likelihood_deviance", False))
    lines = _head(result) + [f"Family: {fam.describe()};  method: {result.method}", ""]
    coef = result.coef
    if len(coef):
        lines.append("Coefficients:")
        lines += named_vector_lines(list(coef.index), format_r(coef.to_numpy(dtype=float), 4))
    else:
        lines += ["No coefficients", ""]
    lines += ["", f"Degrees of Freedom: {result.df_null:g} Total (i.e. Null);  "
                  f"{result.df_resid:g} Residual"]
    lines += _dropped(result)
    null, resid = ("Deviance", "Deviance") if likelihood else ("Risk", "Risk")
    lines.append(f"Null {null}:\t    {_r_number(result.null_deviance)} ")
    aic = _r_number(result.aic) if np.isfinite(result.aic) else "NA"
    lines.append(f"Residual {resid}: {_r_number(result.deviance)} \tAIC: {aic}")
    if not likelihood:
        lines.append("(risks 2 Σ w D_φ(y‖p̂), not a binomial deviance; "
                     + ("AIC of the binomial likelihood)" if np.isfinite(result.aic) else
                        "no AIC: the loss is not a likelihood)"))
    return lines


def tree_lines(result) -> list[str]:
    """``print.rpart``: the call, the criterion and the node listing."""
    tree = result.tree
    risk = "misclassification" if tree.risk == "misclass" else "surrogate risk"
    lines = _head(result) + [f"Split criterion: {result.family.describe()};  cost-complexity "
                             f"by {risk} (cp = {tree.controls.get('cp', float('nan')):g}); "
                             f"{result.n_leaves} leaves", ""]
    text = listing(tree, labels=result.class_labels)
    return lines + text.rstrip("\n").split("\n")


def _risk_line(r, label: str, start: str) -> str:
    risk = r.risk_path
    return (f"{label}: {risk.iloc[0]:.4g} ({start}) -> {risk.iloc[-1]:.4g};  "
            f"training error: {r.training_error:.4g}")


def _u_loss(r) -> str:
    """The loss boosted: U(z) = ... and the family it came from."""
    boosted = f"U(z) = {r.U.formula}"
    return boosted if r.family is r.U or r.family == r.U else \
        f"{boosted} (family {r.family.describe()})"


def uboost_lines(r) -> list[str]:
    learner = {"stumps": "regression stumps", "linear": "componentwise linear",
               "trees": f"regression trees of depth <= {r.options.get('depth')}"}[r.learner]
    return [f"U-Boost (paper 003): {_u_loss(r)}; {learner}",
            f"mstop = {r.mstop}, nu = {r.nu:g}; n = {r.nobs:g}",
            _risk_line(r, "Training U-risk", "m = 0")]


def ulsboost_lines(r) -> list[str]:
    learner = {"stumps": "decision stumps", "rules": "monomial rules",
               "trees": "UDT trees (leaves as features)"}[r.learner]
    kind = "totally corrective" if r.options.get("corrective") else "classic"
    return [f"ULS boosting (paper 000 §7): {learner};  family: {r.family.describe()}",
            f"Rounds: {r.rounds} ({kind}); n = {r.nobs:g}",
            _risk_line(r, "Training surrogate risk", "H = 0")]


def tboost_lines(r) -> list[str]:
    ystar = 2.0 * r.y - 1.0
    err = float(np.sum(r.weights * (ystar * r.eta <= 0)) / np.sum(r.weights))
    learner = f"{r.learner} {r.options.get('learner_desc', '')}".strip()
    return [f"t-AdaBoost (paper 004): t = {r.t:g};  {learner}",
            f"Rounds: {r.rounds}" + (f" (stopped: {r.stopped})" if r.stopped else "")
            + f"; n = {r.nobs:g}",
            f"Training error: {err:.4g}"]


def gnnb_lines(r) -> list[str]:
    name = {"unn": "UNN", "gnnb": "GNNB"}.get(r.method, r.method)
    return [f"{name} (paper 002): family: {r.family.describe()};  k = {r.k}, T = {r.T}, "
            f"{len(r.classes)} classes ({', '.join(map(str, r.classes[:6]))}"
            f"{', ...' if len(r.classes) > 6 else ''})",
            f"n = {r.nobs:g};  training accuracy: {r.training_accuracy:.4g}"]


def generic_lines(r) -> list[str]:
    family = r.family.describe() if hasattr(r.family, "describe") else str(r.family)
    return [f"Method: {r.method};  family: {family};  n = {r.nobs:g}"]


def framed(result, body: list[str]) -> list[str]:
    """``print(m)`` of a result other than a linear fit or a tree: the call, ``body``
    (its main numbers) and the rows dropped."""
    return _head(result) + [""] + body + _dropped(result)
