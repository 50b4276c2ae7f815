"""From design columns to the space where distances are taken.

* The intercept column is dropped (a constant adds nothing to a distance).
* Categorical predictors arrive as treatment-coded dummies (patsy).  With
  ``categorical="onehot"`` the reference level's indicator (1 − Σ dummies) is
  added back for every main-effect term of one categorical factor, so that any
  two different levels are at the same distance √2; dummies are not scaled.
  The reference indicator is placed just before the term's dummies, so a
  factor's indicators are adjacent, in level order, at the term's position.
  ``categorical="refuse"`` raises instead.
* Numeric columns are standardised with the training mean and standard
  deviation when ``standardize=True`` (the default), so that no predictor
  dominates the Euclidean distance by its unit; a constant column keeps
  scale 1.  The moments are taken, and the map applied, on each column
  divided by a power of two 2^e (e from its largest |value|): exact for
  ordinary values (the same bits as without it), and free of overflow and
  underflow at any magnitude (a column × 1e300 or × 1e-300 standardises to the
  same values as the column itself, up to rounding).
* Divide-and-conquer (paper 002, Section 6.4): the final columns are split
  into ``blocks`` contiguous blocks, and each example's block vector is scaled
  to unit L1 or L2 norm (a zero vector stays zero; the norm is taken on the
  vector over a power of two, so that it neither overflows nor underflows).  A factor's
  indicators are never split between blocks (a factor counts as one predictor); the cuts are
  the unit boundaries nearest to those of ``np.array_split`` over the columns,
  which they equal when there is no factor.
"""
from __future__ import annotations

import numpy as np

from ...errors import DataError

__all__ = ["Preprocessor"]

NORMS = ("l1", "l2")


class Preprocessor:
    """Fitted on training design columns; applies the same map to new rows."""

    def __init__(self, design, X: np.ndarray, *, standardize: bool = True,
                 categorical: str = "onehot", blocks: int = 1, norm: str | None = "l2"):
        if categorical not in ("onehot", "refuse"):
            raise ValueError(f"categorical must be 'onehot' or 'refuse', got {categorical!r}")
        di = design.design_info
        names = list(di.column_names)
        numeric = np.zeros(len(names), dtype=bool)
        unit_of = {}          # design column -> its unit (a categorical term's columns: one)
        self.ref_groups: list[tuple[list[int], str]] = []
        categorical_terms = []
        for term in di.terms:
            sl = di.term_name_slices[term.name()]
            cols = list(range(len(names)))[sl]
            kinds = [di.factor_infos[f].type for f in term.factors]
            if not term.factors:
                continue
            if all(kd == "numerical" for kd in kinds):
                numeric[cols] = True
                continue
            categorical_terms.append(term.name())
            unit_of.update({c: ("term", term.name()) for c in cols})
            if len(term.factors) == 1 and cols and _is_treatment(di, term):
                factor = term.factors[0]
                levels = list(di.factor_infos[factor].categories)
                self.ref_groups.append((cols, f"{factor.name()}{levels[0]}"))
        if categorical_terms and categorical == "refuse":
            raise DataError(f"categorical predictor(s) {categorical_terms} with categorical="
                            f"'refuse'; use categorical='onehot' to code them as indicators")
        keep = [i for i, nm in enumerate(names) if nm != "(Intercept)"]
        self.keep = np.asarray(keep, dtype=np.int64)
        # Final column order: the kept design columns, with each factor's
        # reference indicator (which raw() appends at position len(keep) + g)
        # moved just before the factor's dummies.  ``units`` are the sizes of
        # the column groups that blocks never split: a categorical term's
        # columns (with its reference indicator), or one numeric column.
        ref_at = {cols[0]: g for g, (cols, _) in enumerate(self.ref_groups)}
        perm, units, last_unit = [], [], None
        for pos, i in enumerate(keep):
            unit = unit_of.get(i, ("column", i))
            size = 1
            if i in ref_at:
                perm.append(len(keep) + ref_at[i])
                size = 2
            perm.append(pos)
            if unit == last_unit:
                units[-1] += size
            else:
                units.append(size)
            last_unit = unit
        self.perm = np.asarray(perm, dtype=np.int64)
        self.numeric = np.r_[numeric[self.keep], np.zeros(len(self.ref_groups), bool)][self.perm]
        raw_names = [names[i] for i in keep] + [nm for _, nm in self.ref_groups]
        self.column_names = [raw_names[j] for j in self.perm]
        Z = self.raw(X)
        if Z.shape[1] == 0:
            raise DataError("no predictors: method 'gnnb' needs at least one column to measure "
                            "distances")
        self.standardize = bool(standardize)
        self._fit_moments(Z)
        if not (isinstance(blocks, (int, np.integer)) and not isinstance(blocks, bool)
                and 1 <= blocks <= len(units)):
            raise ValueError(f"blocks must be an integer between 1 and the number of predictors "
                             f"({len(units)}; a factor's indicator columns count as one and are "
                             f"never split), got {blocks!r}")
        if blocks > 1 and norm not in NORMS:
            raise ValueError(f"norm must be 'l1' or 'l2' when blocks > 1, got {norm!r}")
        if blocks == 1 and norm is not None and norm not in NORMS:
            raise ValueError(f"norm must be 'l1', 'l2' or None, got {norm!r}")
        self.blocks = _split_units(units, int(blocks))
        self.norm = norm if blocks > 1 else None

    def _fit_moments(self, Z):
        """``mean``, ``scale`` (original units) and ``shift``: numeric column j is
        standardised as (Z_j/2^shift_j − mean_j/2^shift_j)/(scale_j/2^shift_j)."""
        self.mean = np.zeros(Z.shape[1])
        self.scale = np.ones(Z.shape[1])
        self.shift = np.zeros(Z.shape[1], dtype=np.int64)
        if not self.standardize:
            return
        num = np.flatnonzero(self.numeric)
        self.shift[num] = np.frexp(np.abs(Z[:, num]).max(axis=0, initial=0.0))[1]
        Zs = np.ldexp(Z[:, num], -self.shift[num])
        mean, sd = Zs.mean(axis=0), Zs.std(axis=0)
        self.mean[num] = np.ldexp(mean, self.shift[num])
        self.scale[num] = np.where(sd > 0, np.ldexp(sd, self.shift[num]), 1.0)

    def raw(self, X: np.ndarray) -> np.ndarray:
        """The predictor columns before standardisation: the design without its
        intercept, each factor's reference indicator added (in the final column order)."""
        Z = X[:, self.keep]
        if self.ref_groups:
            refs = [1.0 - X[:, cols].sum(axis=1) for cols, _ in self.ref_groups]
            Z = np.column_stack([Z, *refs])[:, self.perm]
        return Z

    def transform(self, X: np.ndarray) -> list[np.ndarray]:
        """One matrix per block (a single one without divide-and-conquer)."""
        Z = self.raw(np.asarray(X, dtype=np.float64))
        shift = getattr(self, "shift", None)       # None: pickled before the shift existed
        if shift is None:
            Z = (Z - self.mean) / self.scale
        else:                                      # (Z − mean)/scale, computed on Z / 2^shift
            Z = ((np.ldexp(Z, -shift) - np.ldexp(self.mean, -shift))
                 / np.ldexp(self.scale, -shift))
        out = []
        for cols in self.blocks:
            B = np.array(Z[:, cols], dtype=np.float64, order="C")
            if self.norm is not None:
                # each row over a power of two near its largest |value| first: the
                # same bits for ordinary rows, no overflow or underflow of the norm
                e = np.frexp(np.abs(B).max(axis=1, initial=0.0))[1]
                B = np.ldexp(B, -e[:, None])
                nrm = (np.abs(B).sum(axis=1) if self.norm == "l1"
                       else np.sqrt(np.einsum("ij,ij->i", B, B)))
                B /= np.where(nrm > 0, nrm, 1.0)[:, None]
            out.append(B)
        return out


def _split_units(units: list[int], blocks: int) -> list[np.ndarray]:
    """Column indices of ``blocks`` contiguous blocks made of whole units
    (sizes ``units``): cut b at the unit boundary nearest to np.array_split's
    b-th cut over the columns (the lower one on a tie), leaving every block at
    least one unit."""
    d, U = int(sum(units)), len(units)
    ends = np.cumsum(units)                     # column count after each unit
    base, extra = divmod(d, blocks)
    cuts, prev = [], 0                          # cuts as numbers of units
    for b in range(1, blocks):
        target = b * base + min(b, extra)
        lo, hi = prev + 1, U - (blocks - b)
        u = lo + int(np.argmin(np.abs(ends[lo - 1:hi] - target)))
        cuts.append(u)
        prev = u
    bounds = [0] + [int(ends[u - 1]) for u in cuts] + [d]
    return [np.arange(bounds[i], bounds[i + 1], dtype=np.int64) for i in range(blocks)]


def _is_treatment(di, term) -> bool:
    """True when the term's contrast is treatment coding (a zero row, unit rows)."""
    coding = di.term_codings[term]
    if len(coding) != 1:
        return False
    mats = coding[0].contrast_matrices
    if len(mats) != 1:
        return False
    M = np.asarray(next(iter(mats.values())).matrix)
    if M.shape[0] != M.shape[1] + 1:
        return False
    zero_rows = np.all(M == 0, axis=1)
    return (zero_rows.sum() == 1 and zero_rows[0]
            and np.array_equal(M[~zero_rows], np.eye(M.shape[1])))
