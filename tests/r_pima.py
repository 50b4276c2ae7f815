"""The Pima data as the R fixture scripts read them (glm_links.R, glm_control.R,
car_anova.R): tests/fixtures/data/pima_indians_diabetes2.csv, the complete cases of
glucose, mass, pedigree and age, with the columns those scripts add."""
import pathlib

import numpy as np
import pandas as pd

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def r_pima() -> pd.DataFrame:
    """``d`` of the R scripts: ``y`` (diabetes == "pos"), ``agegrp`` (age ≤ 30, ≤ 45,
    older), the prior weights ``w_frac``, ``mass2`` = 2 mass (aliased) and the offset
    ``off`` = log(age)/10."""
    d = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")
    d = d.dropna(subset=["glucose", "mass", "pedigree", "age"]).reset_index(drop=True)
    d["y"] = (d["diabetes"] == "pos").astype(int)
    d["agegrp"] = pd.Categorical(np.where(d["age"] <= 30, "young",
                                          np.where(d["age"] <= 45, "mid", "old")),
                                 ["young", "mid", "old"])
    d["w_frac"] = np.array([0, 0.5, 1, 1.5, 2.5, 0.25, 1])[np.arange(len(d)) % 7]
    d["mass2"] = 2 * d["mass"]
    d["off"] = np.log(d["age"]) / 10
    return d
