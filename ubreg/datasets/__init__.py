"""Real data sets shipped with ubreg, exported from R packages (sources, licences, changes
and checksums in README.md here; all GPL-2 or part of R).

``load(name)`` reads one by name (:data:`DATASETS`); ``load_pima()`` is the one the
examples use.  Responses keep the R data set's own column name and level order.
"""
from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["DATASETS", "load", "load_pima"]

#: name → (file, response column)
DATASETS = {
    "pima": ("pima_indians_diabetes2.csv", "diabetes"),
    "ionosphere": ("ionosphere.csv", "Class"),
    "breast_cancer": ("breast_cancer.csv", "Class"),
    "glass": ("glass.csv", "Type"),
    "mtcars": ("mtcars.csv", "am"),
    "satellite": ("satellite.csv.gz", "classes"),
    "letter_recognition": ("letter_recognition.csv.gz", "lettr"),
}


def load(name: str) -> pd.DataFrame:
    """The data set ``name`` (a key of :data:`DATASETS`) as a new DataFrame.

    Missing values are NaN (empty fields of the file); the response column is named as in
    R (``DATASETS[name][1]``)."""
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; available: {sorted(DATASETS)}")
    file = DATASETS[name][0]
    with resources.files(__name__).joinpath(file).open("rb") as fh:
        return pd.read_csv(fh, compression="gzip" if file.endswith(".gz") else None)


def load_pima() -> pd.DataFrame:
    """Pima Indians diabetes data (mlbench ``PimaIndiansDiabetes2``, GPL-2).

    768 rows; response ``diabetes`` ("neg"/"pos"); NA where the original
    data recorded an impossible zero.
    """
    return load("pima")
