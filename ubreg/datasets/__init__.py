"""Real data sets shipped with ubreg (sources and licenses in README.md here)."""
from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["load_pima"]


def load_pima() -> pd.DataFrame:
    """Pima Indians diabetes data (mlbench ``PimaIndiansDiabetes2``, GPL-2).

    768 rows; response ``diabetes`` ("neg"/"pos"); NA where the original
    data recorded an impossible zero.
    """
    with resources.files(__name__).joinpath("pima_indians_diabetes2.csv").open("rb") as fh:
        return pd.read_csv(fh)
