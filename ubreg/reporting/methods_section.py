"""The report's opening and closing for its reader: a methods paragraph in plain words (the
data, the models, how they were compared, what the intervals mean) and a reference list
by author and year."""
from __future__ import annotations

from ..evaluate.compare import model_label
from ..evaluate.deviance_table import is_likelihood
from .blocks import Section
from .model_section import coefficient_models, odds_ratio_models

__all__ = ["methods_section", "references_section", "REFERENCES"]

#: the works the report cites, by author and year
REFERENCES = {
    "Breiman et al. 1984": "Breiman, L., Friedman, J. H., Olshen, R. A. and Stone, C. J. "
                           "(1984). Classification and Regression Trees. Wadsworth.",
    "Eguchi & Copas 2001": "Eguchi, S. and Copas, J. (2001). Recent developments in "
                           "discriminant analysis from an information geometric point of "
                           "view. Journal of the Korean Statistical Society 30, 247–264.",
    "Nock & Nielsen 2008": "Nock, R. and Nielsen, F. (2008). On the efficient minimization "
                           "of classification calibrated surrogates. Advances in Neural "
                           "Information Processing Systems 21.",
    "Nock & Nielsen 2009": "Nock, R. and Nielsen, F. (2009). Intrinsic geometries in "
                           "learning. In Emerging Trends in Visual Computing, Lecture Notes "
                           "in Computer Science 5416, 175–215. Springer.",
    "Nock et al. 2014": "Nock, R., Bel Haj Ali, W., D'Ambrosio, R., Nielsen, F. and Barlaud, "
                        "M. (2014). Gentle nearest neighbors boosting over proper scoring "
                        "rules. IEEE Transactions on Pattern Analysis and Machine "
                        "Intelligence.",
    "Nock, Amid & Warmuth 2023": "Nock, R., Amid, E. and Warmuth, M. K. (2023). Boosting "
                                 "with tempered exponential measures. Advances in Neural "
                                 "Information Processing Systems 36.",
}

#: each method in plain words, and the works it follows
_METHODS = {
    "uls": ("a linear model fitted by minimising the family's proper scoring rule "
            "(entropy is logistic regression, gini the linear probability model)",
            ("Nock & Nielsen 2008", "Nock & Nielsen 2009")),
    "udt": ("a classification tree, grown by the family's impurity and pruned by "
            "cross-validated cost-complexity", ("Breiman et al. 1984", "Nock & Nielsen 2009")),
    "uboost": ("boosted regression trees minimising a U-loss (U-Boost)",
               ("Eguchi & Copas 2001",)),
    "tboost": ("boosted trees with tempered weights (t-AdaBoost)",
               ("Nock, Amid & Warmuth 2023",)),
    "gnnb": ("boosted nearest-neighbour rules (GNNB)", ("Nock et al. 2014",)),
    "ols": ("a linear model learnt on-line", ("Nock & Nielsen 2009",)),
}


def _method(result) -> str:
    return model_label(result).split(" · ", 1)[0]


def _cv_text(cvs: dict) -> str:
    present = [c for c in cvs.values() if c is not None]
    if not present:
        return ("The models were not cross-validated: they are compared on the rows they "
                "were fitted to, which favours the more flexible ones.")
    first = present[0]
    return (f"They were compared by {first.n_folds}-fold cross-validation: each model was "
            "fitted on part of the rows and scored on the rows it had not seen, by log loss "
            "and Brier score (lower is better); a model is 'within noise' of the best unless "
            "a paired test over the folds says otherwise.")


def _effects_text(results: dict) -> str:
    """What the effects and tests of the linear fits are, when there are some."""
    logistic = odds_ratio_models(results)
    if not logistic:
        return ""
    text = ("Each logistic fit's effects are given as odds ratios and, on the probability "
            "scale, as average marginal effects (the change in the predicted probability, "
            "averaged over the rows of the fit).")
    if any(is_likelihood(m) for m in coefficient_models(results).values()):
        text += (" Where the loss is the binomial likelihood, each term is tested by a "
                 "likelihood-ratio test: the model refitted without it, the rise in deviance "
                 "compared with a χ² distribution.")
    return text + " "


def methods_section(results: dict, cvs: dict, training) -> Section:
    """The ``methods`` section: what was done, in plain words, with references."""
    section = Section("methods", "Methods")
    rows = f"{len(training)} rows" if training is not None else "the rows given"
    by_method: dict[str, list[str]] = {}         # one description for a method's models
    for name, m in results.items():
        by_method.setdefault(_method(m), []).append(str(name))
    kinds = []
    for method, names in by_method.items():
        words, cites = _METHODS.get(method, ("a fitted classifier", ()))
        cited = f" ({'; '.join(cites)})" if cites else ""
        each = "each " if len(names) > 1 else ""
        kinds.append(f"{', '.join(names)}: {each}{words}{cited}")
    count = len(results)
    fitted = (f"{count} models of the probability of the positive class were fitted"
              if count != 1 else "1 model of the probability of the positive class was fitted")
    section.text(f"The data are {rows}; rows missing a model variable were left out of the "
                 "linear fits. "
                 f"{fitted}: " + "; ".join(kinds) + ". " + _cv_text(cvs) + " "
                 + _effects_text(results) +
                 "Intervals are 95% confidence intervals: profile likelihood for the odds "
                 "ratios of the logistic fits, Wald (from the model's standard errors) "
                 "elsewhere, Wilson for the observed frequencies of the calibration plots; "
                 "'±' gives one standard error. Results follow; the details of each model, "
                 "including quantities internal to its fitting, are at the end.")
    return section


def references_section(results: dict) -> Section:
    """The ``references`` section: the works cited, by author and year."""
    cited = {c for m in results.values() for c in _METHODS.get(_method(m), ("", ()))[1]}
    cited.add("Nock & Nielsen 2009")            # the margins' figure cites it
    section = Section("references", "References")
    for key in sorted(cited):
        section.text(REFERENCES[key])
    return section
