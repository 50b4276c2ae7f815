"""Render the replication reports as self-contained HTML pages, without re-running them.

Each ``reports/<name>.md`` written by a replication script becomes
``<name>.html`` through :func:`ubreg.render_markdown` (ubreg's own
autoescaping report templates), with figures drawn from the stored results
only: the .csv of every fold where the script writes one, else the tables of
the .md.  Nothing is fitted; the whole run takes a few seconds.

    python reports/render_html.py                   # -> reports/*.html
    python reports/render_html.py --out-dir /tmp/r  # elsewhere
"""
from __future__ import annotations

import argparse
import pathlib
import re

import matplotlib

matplotlib.use("Agg")            # files only, never a window

import pandas as pd  # noqa: E402
from matplotlib.ticker import NullLocator  # noqa: E402

from ubreg.reporting import render_markdown  # noqa: E402
from ubreg.reporting.figures import new_figure  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
METHOD_STYLE = {"GNNB": ("C0", "o"), "UNN": ("C2", "s"), "k-NN": ("C3", "^")}


def _panels(n: int, width: float = 3.3, height: float = 2.9, ncols: int = 3):
    """A Figure with ``n`` axes in rows of ``ncols`` (unused slots removed)."""
    nrows = -(-n // ncols)
    fig = new_figure(width * ncols, height * nrows + 0.5, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.remove()
    return fig, axes[:n]


# ---------------------------------------------------------------- GNNB

def gnnb_figures(csv: pathlib.Path):
    """Mean test accuracy (± 1 s.d. over folds) against k, per data set and method."""
    df = pd.read_csv(csv)
    stats = df.groupby(["dataset", "k", "method"])["accuracy"].agg(["mean", "std"]) * 100
    datasets = list(dict.fromkeys(df["dataset"]))          # the order of the run
    ks = sorted(df["k"].unique())
    fig, axes = _panels(len(datasets))
    for ax, name in zip(axes, datasets):
        for i, (method, (colour, marker)) in enumerate(METHOD_STYLE.items()):
            s = stats.loc[name].xs(method, level="method")
            # methods side by side at each k, so that the error bars do not overlap
            ax.errorbar(s.index * 1.06 ** (i - 1), s["mean"], yerr=s["std"], color=colour,
                        marker=marker, capsize=2, label=method)
        ax.set_xscale("log")
        ax.xaxis.set_minor_locator(NullLocator())           # no 3×10¹-style minor labels
        ax.set_xticks(ks, labels=[str(k) for k in ks])
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("k")
        ax.set_ylabel("test accuracy, %")
    axes[0].legend(fontsize=8)
    return [("Test accuracy against k (mean ± 1 s.d. over the 5 folds): GNNB and UNN with the "
             "entropy family, k-NN with uniform votes; from gnnb_replication.csv.", fig)]


# ---------------------------------------------------------------- tempered

def tempered_figures(csv: pathlib.Path):
    """Mean test error against t, per data set and noise level; one figure per choice of μ."""
    df = pd.read_csv(csv)
    ts = df["t"].agg(["min", "max"])
    out = []
    for mu in dict.fromkeys(df["mu"]):
        part = df[df["mu"] == mu]
        # folds without a model have err = NaN: the mean is over the folds that gave one
        stats = part.groupby(["dataset", "noise", "t"])["err"].mean() * 100
        datasets = list(dict.fromkeys(part["dataset"]))
        fig, axes = _panels(len(datasets))
        for ax, name in zip(axes, datasets):
            for i, noise in enumerate(sorted(part["noise"].unique())):
                s = stats.loc[(name, noise)].dropna()
                ax.plot(s.index, s.values, marker="o", color=f"C{i}", label=f"noise η = {noise:g}")
            ax.axvline(1.0, color="0.6", lw=0.8, ls="--")      # t = 1 is AdaBoost
            ax.set_xlim(ts["min"] - 0.05, ts["max"] + 0.05)     # the whole grid, fitted or not
            ax.set_title(name, fontsize=10)
            ax.set_xlabel("t")
            ax.set_ylabel("test error, %")
        axes[0].legend(fontsize=8)
        what = "closed-form" if mu == "closed" else "exact"
        out.append((f"t-AdaBoost with the {what} μ_j: mean test error (unclipped H_J, over the "
                    "folds that gave a model) against t, for each training-label noise level; "
                    "the dashed line is t = 1 (AdaBoost); t without a point gave no model. "
                    "From tempered_replication.csv.", fig))
    return out


# ---------------------------------------------------------------- ULS flavours

def md_tables(text: str) -> list[tuple[str, pd.DataFrame]]:
    """Every pipe table of a Markdown text, with the last ``##`` heading above it."""
    out, heading, lines = [], "", text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("## "):
            heading = lines[i][3:].strip()
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines[i:j]]
            out.append((heading, pd.DataFrame(rows[2:], columns=rows[0])))
            i = j
            continue
        i += 1
    return out


def uls_figures(md: pathlib.Path):
    """Average rank per flavour (bars, best at the top), one panel per (l, r) setting."""
    tables = [(h, t) for h, t in md_tables(md.read_text(encoding="utf-8"))
              if "average rank" in t.columns and re.match(r"l = \d+, r = \d+", h)]
    fig, axes = _panels(len(tables), width=4.6, height=3.9, ncols=2)
    for ax, (setting, t) in zip(axes, tables):
        t = t.assign(rank=t["average rank"].astype(float)).sort_values("rank", ascending=False)
        colours = ["C1" if f.startswith("F*") else "C0" for f in t["flavour"]]
        ax.barh(t["flavour"], t["rank"], color=colours)
        ax.set_title(setting, fontsize=10)
        ax.set_xlabel("average rank over the 6 domains (1 = best)")
        ax.set_xlim(0, len(t))
    return [("Average rank of each ULS flavour by test error (lower is better), per setting "
             "(l literals, r rounds); F* and F*cv in orange. From the tables of uls_flavours.md.",
             fig)]


# ---------------------------------------------------------------- main

REPORTS = {
    "gnnb_replication": lambda: gnnb_figures(HERE / "gnnb_replication.csv"),
    "tempered_replication": lambda: tempered_figures(HERE / "tempered_replication.csv"),
    "uls_flavours": lambda: uls_figures(HERE / "uls_flavours.md"),
}


def main(argv=None) -> list[pathlib.Path]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", type=pathlib.Path, default=HERE,
                    help="folder for the .html files (default: reports/)")
    args = ap.parse_args(argv)
    written = []
    for name, figures in REPORTS.items():
        out = render_markdown(HERE / f"{name}.md", args.out_dir / f"{name}.html",
                              figures=figures())
        print(f"{out}  {out.stat().st_size / 1024:.0f} KB")
        written.append(out)
    return written


if __name__ == "__main__":
    main()
