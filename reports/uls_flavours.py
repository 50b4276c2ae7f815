"""A small replication of Figure 15 of paper 000 (Section 7): 11 flavours of ULS.

Flavours (monomial rules "if conjunction of ≤ l literals then ±1 else ∓1",
r rounds, leveraging coefficients from eq. 70 to 1e-10):

* AdaBoost — ``Exponential()``;
* gini (26), mu (27, μ = 0.5), matsushita (28), entropy (29), power (107,
  v = 0.25; the paper does not give v, and v = 0.5 is Matsushita up to the
  scale of H);
* F* — per training fold, the family of least empirical risk in the bag
  {26, 27, 28, 29, 107} (``strategy="F*"``, ``select="train"``);
* F.1, F.2 — at each round the family of least empirical risk, bags
  1 = {26, 27, 28, 29} and 2 = {27, 28, 29, 107};
* E.1, E.2 — at each round the family of largest edge, same bags;
* F*cv (optional) — F* choosing the family by inner 5-fold CV error
  (``select="cv"``) instead of training risk; about 6x the cost of F*.

Each domain is evaluated by stratified K-fold cross-validation (seeded); per
domain the flavours are ranked by test error (average ranks for ties).  The
script prints and writes ``reports/uls_flavours.md``: the average rank and
test error per flavour for each (l, r), the per-domain errors, the number
of flavours each beats by a paired t-test over domains at level .1 (the
italic numbers of Figure 15), and the families the adaptive flavours picked.
The "## Assessment against the paper's conclusions" section of the output
file is written by hand: when the file is regenerated in place, that section
is carried over unchanged (and a reminder is printed to re-check it against
the new tables).

    # the published report (both settings, F*cv at l=2, r=10 only):
    python reports/uls_flavours.py --settings "2,10;3,100" --folds 10 --fstar-cv-settings 2,10
    python reports/uls_flavours.py                       # l=2,r=10 and l=3,r=100, 10 folds, no F*cv
    python reports/uls_flavours.py --settings 2,10 --folds 5
    python reports/uls_flavours.py --large               # adds satellite (6435 rows)
    python reports/uls_flavours.py --smoke               # tiny, for CI

Domains: binary data sets bundled in ``ubreg.datasets`` (pima, ionosphere, breast cancer,
mtcars ``am``, glass as window vs non-window) and scikit-learn's bundled
Wisconsin diagnostic breast-cancer data.  Rows with NA are dropped.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

HERE = Path(__file__).resolve().parent
OUT = HERE / "uls_flavours.md"

FLAVOURS = ["AdaBoost", "gini", "mu", "matsushita", "entropy", "power",
            "F*", "F.1", "F.2", "E.1", "E.2"]


def _families():
    import ubreg
    P = ubreg.Permissible
    fam = {"gini": P("gini"), "mu": P("mu", mu=0.5), "matsushita": P("matsushita"),
           "entropy": P("entropy"), "power": P("power", v=0.25)}
    bag1 = [fam[k] for k in ("gini", "mu", "matsushita", "entropy")]
    bag2 = [fam[k] for k in ("mu", "matsushita", "entropy", "power")]
    bagF = [fam[k] for k in ("gini", "mu", "matsushita", "entropy", "power")]
    out = {"AdaBoost": (ubreg.Exponential(), None)}
    out.update({k: (v, None) for k, v in fam.items()})
    out.update({"F*": (bagF, "F*"), "F.1": (bag1, "F."), "F.2": (bag2, "F."),
                "E.1": (bag1, "E."), "E.2": (bag2, "E."),
                "F*cv": (bagF, "F*")})
    return out


# ---------------------------------------------------------------------------
# domains
# ---------------------------------------------------------------------------
def _q(name: str) -> str:
    return name


def load_domains(large: bool = False) -> dict[str, tuple[pd.DataFrame, str]]:
    """name -> (data frame with a 0/1 column ``y``, formula)."""
    from ubreg.datasets import load
    out = {}
    pima = load("pima").dropna()
    pima["y"] = (pima.pop("diabetes") == "pos").astype(int)
    out["pima"] = pima
    ion = load("ionosphere").drop(columns=["v2"])
    ion["y"] = (ion.pop("Class") == "good").astype(int)
    out["ionosphere"] = ion
    bc = load("breast_cancer").dropna()
    bc["y"] = (bc.pop("Class") == "malignant").astype(int)
    out["breast_cancer"] = bc
    mt = load("mtcars").drop(columns=["model"])
    mt["y"] = mt.pop("am").astype(int)
    out["mtcars_am"] = mt
    gl = load("glass")
    gl["y"] = gl.pop("Type").isin([1, 2, 3]).astype(int)     # window vs non-window glass
    out["glass_window"] = gl
    from sklearn.datasets import load_breast_cancer
    wd = load_breast_cancer(as_frame=True).frame
    wd.columns = [c.replace(" ", "_") for c in wd.columns]
    wd["y"] = wd.pop("target").astype(int)
    out["wdbc_sklearn"] = wd
    if large:
        sat = load("satellite")
        sat["y"] = sat.pop("classes").isin(["grey soil", "damp grey soil",
                                            "very damp grey soil"]).astype(int)
        out["satellite_grey"] = sat
    return {k: (v.reset_index(drop=True), "y ~ .") for k, v in out.items()}


# ---------------------------------------------------------------------------
# the experiment
# ---------------------------------------------------------------------------
ADAPTIVE = ("F*", "F*cv", "F.1", "F.2", "E.1", "E.2")


def cv_errors(data: pd.DataFrame, formula: str, literals: int, rounds: int, folds: int,
              seed: int, flavours=FLAVOURS, picks: dict | None = None) -> pd.DataFrame:
    """Test error of each flavour on each fold (rows: folds, columns: flavours).

    If ``picks`` is a dict, ``picks[flavour]`` is set to a Counter of the
    families the adaptive flavours used: one count per fold for F*/F*cv (the
    family kept), one per boosting round over all folds for F./E..
    """
    import ubreg
    from ubreg.numerics.folds import stratified_folds
    fams = _families()
    fold = stratified_folds(data["y"].to_numpy(), folds, seed)
    out = pd.DataFrame(index=pd.RangeIndex(folds, name="fold"), columns=list(flavours),
                       dtype=float)
    for k in range(folds):
        train, test = data[fold != k], data[fold == k]
        for name in flavours:
            family, strategy = fams[name]
            kw = {"strategy": strategy} if strategy else {}
            if name == "F*cv":   # F* choosing by inner 5-fold CV error instead of training risk
                kw.update(select="cv", inner_folds=5, seed=seed + k)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")        # capped δ on separable folds
                m = ubreg.fit(formula, train, family=family, method="uls", learner="rules",
                              literals=literals, rounds=rounds, **kw)
            if picks is not None and name in ADAPTIVE:
                used = ([m.fit_info.family] if name.startswith("F*") else m.family_path)
                picks.setdefault(name, Counter()).update(f.name for f in used)
            pred = (m.predict(test, type="link").to_numpy() >= 0).astype(int)
            out.loc[k, name] = float(np.mean(pred != test["y"].to_numpy()))
    return out


def summarise(errors: dict[str, pd.DataFrame]) -> dict:
    """Ranks, average errors and paired t-test wins over domains."""
    mean = pd.DataFrame({d: e.mean() for d, e in errors.items()}).T      # domains × flavours
    ranks = mean.rank(axis=1, method="average")
    table = pd.DataFrame({"average rank": ranks.mean(), "average test error": mean.mean(),
                          "first on": (ranks == ranks.min(axis=1).to_numpy()[:, None]).sum(),
                          "last on": (ranks == ranks.max(axis=1).to_numpy()[:, None]).sum()})
    beats = {}
    for a in mean.columns:
        wins = 0
        for b in mean.columns:
            if a == b:
                continue
            diff = mean[a] - mean[b]
            if np.allclose(diff, 0):
                continue
            t, p = stats.ttest_rel(mean[a], mean[b])
            wins += int(p < 0.1 and t < 0)
        beats[a] = wins
    table["beats (t-test, .1)"] = pd.Series(beats)
    table = table.sort_values("average test error")
    return {"table": table, "mean": mean, "ranks": ranks}


def _md(df: pd.DataFrame, fmt="{:.4f}") -> str:
    cols = [df.index.name or ""] + [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    cols_fmt = [(lambda v: fmt.format(v)) if pd.api.types.is_float_dtype(df[c]) else str
                for c in df.columns]
    for i, idx in enumerate(df.index):
        cells = [f(df.iloc[i, j]) for j, f in enumerate(cols_fmt)]
        lines.append("| " + " | ".join([str(idx)] + cells) + " |")
    return "\n".join(lines)


def _place(t: pd.DataFrame, name: str) -> str:
    """'k of n by average rank (x.xx; tied places shown as a range) and j of n by error'."""
    r = t["average rank"]
    lo = int((r < r[name] - 1e-12).sum()) + 1
    hi = int((r <= r[name] + 1e-12).sum())
    e = t["average test error"]
    elo = int((e < e[name] - 1e-12).sum()) + 1
    ehi = int((e <= e[name] + 1e-12).sum())
    place = str(lo) if lo == hi else f"{lo}–{hi}"
    eplace = str(elo) if elo == ehi else f"{elo}–{ehi}"
    return (f"{place} of {len(t)} by average rank ({r[name]:.2f}) and {eplace} of {len(t)} "
            f"by average test error ({e[name]:.4f})")


def conclusions(res: dict) -> list[str]:
    t = res["table"]
    m = res["mean"]
    out = []
    best = t["average rank"].idxmin()
    out.append(f"Best average rank: {best} ({t.loc[best, 'average rank']:.2f}); "
               f"lowest average test error: {t.index[0]} ({t.iloc[0]['average test error']:.4f}).")
    for name in ("F*", "F*cv", "power", "F.1", "E.1"):
        if name in t.index:
            out.append(f"{name} places {_place(t, name)}; first on {t.loc[name, 'first on']}, "
                       f"last on {t.loc[name, 'last on']} of {len(m)} domains.")
    for other in ("entropy", "AdaBoost"):
        wins = int((m["matsushita"] < m[other]).sum())
        ties = int((m["matsushita"] == m[other]).sum())
        p = stats.ttest_rel(m["matsushita"], m[other]).pvalue if not np.allclose(
            m["matsushita"], m[other]) else 1.0
        out.append(f"matsushita vs {other}: lower error on {wins}, tie on {ties} of {len(m)} "
                   f"domains; mean error {m['matsushita'].mean():.4f} vs {m[other].mean():.4f} "
                   f"(paired t-test over domains p = {p:.2f}).")
    for bag in ("1", "2"):
        out.append(f"bag {bag}: F.{bag} average rank {t.loc['F.' + bag, 'average rank']:.2f}, "
                   f"E.{bag} {t.loc['E.' + bag, 'average rank']:.2f}.")
    same = [d for d in m.index if m.loc[d, "mu"] == m.loc[d, "matsushita"]]
    out.append(f"mu and matsushita have identical errors on {len(same)} of {len(m)} domains"
               + ("." if len(same) == len(m) else
                  f" (differ on {', '.join(d for d in m.index if d not in same)})."))
    return out


def _picks_md(picks: dict[str, dict[str, Counter]], domains) -> str:
    """Flavours × domains: the families used (F*: folds; F./E.: share of rounds)."""
    rows = {}
    for name in ADAPTIVE:
        if not any(name in picks[d] for d in domains):
            continue
        row = {}
        for d in domains:
            c = picks[d].get(name, Counter())
            tot = sum(c.values())
            if name.startswith("F*"):
                row[d] = ", ".join(f"{k} {v}" for k, v in c.most_common())
            else:
                row[d] = ", ".join(f"{k} {100 * v / tot:.0f}%" for k, v in c.most_common())
        rows[name] = row
    return _md(pd.DataFrame(rows).T.rename_axis("flavour"))


ASSESSMENT = "## Assessment against the paper's conclusions"


def _kept_assessment(path: Path) -> str | None:
    """The hand-written Assessment section of an existing report, if any."""
    if not path.exists():
        return None
    text = path.read_text()
    i = text.find(ASSESSMENT)
    if i < 0:
        return None
    j = re.search(r"^## ", text[i + len(ASSESSMENT):], flags=re.M)
    return (text[i:] if j is None else text[i:i + len(ASSESSMENT) + j.start()]).rstrip()


def _pairs(text: str) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in s.split(",")) for s in text.split(";") if s.strip()]


def main(argv=None):
    ap = argparse.ArgumentParser(description="ULS flavours (paper 000, Figure 15), reduced")
    ap.add_argument("--settings", default="2,10;3,100",
                    help="';'-separated l,r pairs (literals, rounds); default '2,10;3,100'")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--domains", default=None, help="comma-separated subset of domains")
    ap.add_argument("--large", action="store_true", help="add satellite (6435 rows)")
    ap.add_argument("--smoke", action="store_true", help="2 domains, 3 folds, l=2, r=5")
    ap.add_argument("--fstar-cv", action="store_true",
                    help="add flavour F*cv (F* choosing by inner 5-fold CV error; slow) "
                         "at every setting")
    ap.add_argument("--fstar-cv-settings", default="",
                    help="';'-separated l,r pairs at which to add F*cv, e.g. '2,10'")
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args(argv)
    settings = _pairs(a.settings)
    domains = load_domains(a.large)
    if a.smoke:
        settings, a.folds = [(2, 5)], 3
        domains = {k: domains[k] for k in ("breast_cancer", "mtcars_am")}
    cv_at = set(settings) if a.fstar_cv else set(_pairs(a.fstar_cv_settings))
    if cv_at - set(settings):
        ap.error(f"--fstar-cv-settings {sorted(cv_at - set(settings))} not among --settings")
    if a.domains:
        domains = {k: domains[k] for k in a.domains.split(",")}
    started = time.perf_counter()
    import shlex
    args = shlex.join(argv if argv is not None else sys.argv[1:])
    head = [f"Stratified {a.folds}-fold cross-validation (seed {a.seed}), monomial rules, "
             f"{len(domains)} domains: " + ", ".join(
                 f"{k} ({len(v[0])} rows)" for k, v in domains.items()) + ".\n",
             "Flavours: AdaBoost = Exponential(); mu with μ = 0.5; power (107) with v = 0.25; "
             "F* = family of least training risk in {26, 27, 28, 29, 107} per training fold; "
             "bags 1 = {26, 27, 28, 29}, 2 = {27, 28, 29, 107}. Gini renormalises H to "
             "[−1, 1] when an adaptive flavour picks it."
             + (" F*cv = F* choosing the family by inner 5-fold CV error (`select=\"cv\"`), "
                "run at " + ", ".join(f"(l = {l}, r = {r})" for l, r in settings
                                     if (l, r) in cv_at) + " only." if cv_at else "") + "\n"]
    body, times = [], []
    for literals, rounds in settings:
        errs, picks = {}, {}
        t_set = time.perf_counter()
        flavours = FLAVOURS + (["F*cv"] if (literals, rounds) in cv_at else [])
        for name, (data, formula) in domains.items():
            t0 = time.perf_counter()
            picks[name] = {}
            errs[name] = cv_errors(data, formula, literals, rounds, a.folds, a.seed, flavours,
                                   picks=picks[name])
            print(f"l={literals} r={rounds} {name}: {time.perf_counter() - t0:.1f}s", flush=True)
        times.append(((literals, rounds), time.perf_counter() - t_set))
        res = summarise(errs)
        print(res["table"].to_string(float_format=lambda v: f"{v:.4f}"))
        body.append(f"\n## l = {literals}, r = {rounds}\n")
        body.append("Flavours ordered by average test error (as Figure 15):\n")
        body.append(_md(res["table"].rename_axis("flavour")))
        body.append("\nTest error per domain (mean over folds):\n")
        body.append(_md(res["mean"].rename_axis("domain")))
        body.append("\nFamilies used by the adaptive flavours (F*, F*cv: family kept, "
                    f"number of the {a.folds} training folds; F., E.: share of all boosting "
                    "rounds over the folds):\n")
        body.append(_picks_md(picks, list(domains)))
        body.append("\nWhat the numbers say:\n")
        body += [f"- {c}" for c in conclusions(res)]
    total = time.perf_counter() - started
    timing = "; ".join(f"l = {l}, r = {r}: {s:.0f} s" for (l, r), s in times)
    parts = ["# ULS flavours: a reduced replication of Figure 15 (paper 000, §7)\n",
             f"Generated in one run by `python reports/uls_flavours.py {args}`".rstrip()
             + f" ({total:.0f} s in all — {timing}).\n"] + head
    kept = _kept_assessment(Path(a.out))
    if kept:
        parts.append("\n" + kept)
        print(f"kept the hand-written Assessment section of {a.out}: re-check it against "
              "the new tables", flush=True)
    parts += body
    Path(a.out).write_text("\n".join(parts) + "\n")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
