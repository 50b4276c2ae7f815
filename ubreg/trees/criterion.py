"""The split criterion of UDT (Algorithm 3, eq. 104) and the node risks.

For a node with weighted positives ``wy`` and weight ``w`` (p = wy/w) the
*node term* is

    T(wy, w) = w·(−φ(p)) − w·a_φ  ≥ 0,

zero at pure nodes.  T/b_φ is the node's share of the tree's balanced convex
surrogate (Theorem 4): ε_φ(S, H) = Σ_leaves T(S_k)/b_φ, so a split of a node
improves the surrogate by (T(node) − T(left) − T(right))/b_φ, which is −A_φ of
eq. (104).  (The constant −w·a_φ cancels between a node and its children; it
makes T vanish at pure nodes.)

The splitter needs T(left) + T(right) at every candidate cut.  For speed it
maximises a *gain* g with T(left) + T(right) = offset(node) − g, where offset
is constant over the cuts of one node: gini (CART) uses the classical proxy
Σ wy²/w, entropy (C4.5) and the square-root families (Kearns–Mansour,
Matsushita, μ) have closed forms, and any other permissible family goes through
its ``phi``.  The closed form is the one the family declares
(``family.impurity_form``: −φ(p) − a_φ = c·g(p) for a standard g); a family
that declares none goes the generic way.

On large levels of large trees the square-root and entropy gains run in
compiled one-pass kernels (:mod:`ubreg.trees.gain_kernels`) that give numpy's
values bit for bit (:meth:`Criterion.plan_kernels`, :meth:`Criterion.kernels`);
with unit weights the whole search of a numeric predictor does
(:mod:`ubreg.fitters.udt.fused`, gini included).
"""
from __future__ import annotations

import sys

import numpy as np

__all__ = ["Criterion", "make_criterion", "misclass_risk"]

_TINY = np.finfo(np.float64).tiny

#: levels of fewer cuts stay in numpy (a kernel call costs a few microseconds)
JIT_MIN_CUTS = 1 << 12
#: cut evaluations (cuts × predictors × levels) from which a tree with unit
#: weights is searched by the fused kernel (:mod:`ubreg.fitters.udt.fused`),
#: loading numba if need be: it saves about 8 ns a cut on one core at 10^6 rows
#: (gini, depth 8: 1.1 s against numpy's 2.4 s for 1.6·10^8 cuts), numba's
#: start-up costs about 0.4 s of CPU
FUSED_WORK = 5e7
#: the criteria the fused kernel computes
FUSED_KINDS = ("gini", "sqrt", "entropy")


def _flat64(*arrays):
    """All arrays 1-D, C-contiguous float64 (the kernels' one compiled signature)."""
    for a in arrays:
        if a.dtype != np.float64 or a.ndim != 1 or not a.flags.c_contiguous:
            return False
    return True


def _xlogx(v, out=None):
    """v·ln v with 0·ln 0 = 0 (v ≥ 0; tiny negative rounding noise maps to ~0).

    ``out`` must not be ``v`` itself.
    """
    if out is None:
        return v * np.log(np.maximum(v, _TINY))
    t = np.maximum(v, _TINY, out=out)
    np.log(t, out=t)
    np.multiply(t, v, out=t)
    return t


def misclass_risk(wy, w):
    """Weighted misclassification of a node predicting its majority class:
    min(w·p, w·(1 − p)), rpart's node risk with 0/1 loss and default priors."""
    wy = np.asarray(wy, dtype=np.float64)
    return np.minimum(wy, np.asarray(w, dtype=np.float64) - wy)


class Criterion:
    """Node term T(wy, w) = w(−φ(wy/w) − a_φ) and the split gain of a family.

    Parameters
    ----------
    family : PermissibleFamily
        Supplies ``phi``, ``a`` and ``b``.
    """

    #: name of the closed form used, or "generic"
    kind = "generic"
    #: cut evaluations (cuts × predictors × levels) from which a tree's gains
    #: in the compiled kernels repay numba's start-up, about 0.4 s of CPU once
    #: per process (import 0.15 s, LLVM 0.25 s) and 100 MB; None: no kernel
    jit_work: float | None = None
    #: large levels use the kernels even before numba is loaded (set per tree
    #: by :meth:`plan_kernels`)
    compiled = False

    def __init__(self, family):
        self.family = family
        self.a = float(family.a)
        self.b = float(family.b)

    # ---- node level ---------------------------------------------------------
    def node_term(self, wy, w):
        """T(wy, w) = w(−φ(p) − a_φ), vectorised; 0 where w = 0."""
        wy = np.asarray(wy, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.clip(np.where(w > 0, wy / np.where(w > 0, w, 1.0), 0.5), 0.0, 1.0)
        val = w * (-np.asarray(self.family.phi(p), dtype=np.float64) - self.a)
        return np.where(w > 0, np.maximum(val, 0.0), 0.0)

    def surrogate_risk(self, wy, w):
        """The node's surrogate risk T/b_φ = Σ_{i in node} w_i F_φ(y*_i ∇φ(p)) (Theorem 4)."""
        return self.node_term(wy, w) / self.b

    # ---- split level ----------------------------------------------------------
    def plan_kernels(self, work, unit):
        """Decide whether the tree about to grow (about ``work`` cut
        evaluations; weights ``unit`` or not) runs its large levels in the
        compiled kernels even if that loads numba: when they repay numba's
        start-up (the fused split search of :mod:`.fused` from
        :data:`FUSED_WORK` cuts, unit weights and a closed form; the gain
        kernels from ``jit_work``).  Returns the decision."""
        fused = bool(unit) and self.kind in FUSED_KINDS and work >= FUSED_WORK
        self.compiled = fused or (self.jit_work is not None and work >= self.jit_work)
        return self.compiled

    def kernels(self, m):
        """:mod:`ubreg.trees.gain_kernels` if a level of ``m`` cuts should use them,
        else None: when the tree was planned so (:meth:`plan_kernels`) or numba
        is loaded anyway.  Both routes give the same gains bit for bit, so the
        choice changes the time only."""
        if m >= JIT_MIN_CUTS and (self.compiled or "numba" in sys.modules):
            from . import gain_kernels as _kernels
            return _kernels
        return None

    def weight_part(self, lw, rw):
        """Part of the gain that depends on the child weights only, or None.

        The splitter calls it once per level when weights are unit (``lw``,
        ``rw`` are then row counts) and passes the result as ``wpart`` to every
        predictor's gain; with other weights ``wpart`` is None."""
        return None

    def offset(self, twy, tw):
        """offset(node) with T(left) + T(right) = offset − gain."""
        return np.zeros_like(np.asarray(twy, dtype=np.float64))

    #: the splitter maximises ``raw_sign`` × :meth:`raw_gain` (−1 saves a negation)
    raw_sign = 1

    def raw_gain(self, lwy, lw, rwy, rw, wpart, out, tmp, tmp2):
        """``raw_sign`` × gain, written to ``out``."""
        return self.gain(lwy, lw, rwy, rw, wpart, out, tmp, tmp2)

    def gain(self, lwy, lw, rwy, rw, wpart, out, tmp, tmp2):
        """Gain at every cut; written to ``out`` (``tmp``, ``tmp2`` are scratch).

        All arrays are float64 of one length; ``lw``, ``rw`` > 0 except at
        cuts the caller masks out afterwards.
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            tl = self.node_term(lwy, lw)
            tr = self.node_term(rwy, rw)
        np.add(tl, tr, out=out)
        np.negative(out, out=out)
        return out


class _Gini(Criterion):
    """T = wy(w − wy)/w = wy − wy²/w: gain Σ wy²/w, offset Σ wy (CART)."""

    kind = "gini"

    def node_term(self, wy, w):
        wy = np.asarray(wy, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            val = wy * (w - wy) / w
        return np.where(w > 0, np.maximum(val, 0.0), 0.0)

    def weight_part(self, lw, rw):
        with np.errstate(divide="ignore"):
            return 1.0 / lw, 1.0 / rw

    def offset(self, twy, tw):
        return np.asarray(twy, dtype=np.float64).copy()

    def gain(self, lwy, lw, rwy, rw, wpart, out, tmp, tmp2):
        if wpart is None:
            wpart = self.weight_part(lw, rw)
        inv_l, inv_r = wpart
        np.multiply(lwy, lwy, out=out)
        out *= inv_l
        np.multiply(rwy, rwy, out=tmp)
        tmp *= inv_r
        out += tmp
        return out


class _Entropy(Criterion):
    """T = w ln w − wy ln wy − wn ln wn (natural log; C4.5), scaled by ``scale``."""

    kind = "entropy"
    #: the kernel saves about 13 ns a cut at 10^6 rows (2.1 s of 2.7 s for 20
    #: predictors at depth 8), less on smaller, cache-resident levels: even
    #: at 4·10^7 cuts (10^5 rows, unbounded depth) it only breaks even
    jit_work = 6e7

    def __init__(self, family, scale=1.0):
        super().__init__(family)
        self.scale = scale

    def plan_kernels(self, work, unit):
        # the kernels read v·ln v of row counts from a table: unit weights only
        self.compiled = bool(unit) and work >= min(self.jit_work, FUSED_WORK)
        return self.compiled

    def node_term(self, wy, w):
        wy = np.asarray(wy, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        val = _xlogx(w) - _xlogx(wy) - _xlogx(w - wy)
        return np.where(w > 0, np.maximum(val, 0.0), 0.0) * self.scale

    def weight_part(self, lw, rw):
        # unit weights only (the splitter's shared per-level part): every
        # argument of v·ln v in a gain is then a row count ≤ max(lw, rw), and
        # large levels read them from a table of k·ln k (numpy's values; 8
        # bytes a row, built once per tree)
        part = _xlogx(lw)
        part += _xlogx(rw)
        table = None
        if lw.shape[0] and self.kernels(lw.shape[0]) is not None:
            table = self._table(int(max(lw.max(), rw.max())))
        return part, table

    def _table(self, top):
        """k·ln k for k = 0..``top`` (at least), computed by :func:`_xlogx`."""
        t = getattr(self, "_xlogx_table", None)
        if t is None or t.shape[0] <= top:
            t = self._xlogx_table = _xlogx(np.arange(top + 1, dtype=np.float64))
        return t

    def gain(self, lwy, lw, rwy, rw, wpart, out, tmp, tmp2):
        if wpart is None:                    # any weights
            part, table = _xlogx(lw), None
            part += _xlogx(rw)
        else:
            part, table = wpart
        k = self.kernels(out.shape[0]) if table is not None else None
        if k is not None and _flat64(lwy, lw, rwy, rw, part, out):
            k.entropy_gain_unit(lwy, lw, rwy, rw, part, table, out)
        else:
            # gain = Σ_children (wy ln wy + wn ln wn) − (lw ln lw + rw ln rw)
            _xlogx(lwy, out=out)
            np.subtract(lw, lwy, out=tmp)
            out += _xlogx(tmp, out=tmp2)
            out += _xlogx(rwy, out=tmp2)
            np.subtract(rw, rwy, out=tmp)
            out += _xlogx(tmp, out=tmp2)
            out -= part
        if self.scale != 1.0:
            out *= self.scale
        return out


class _Sqrt(Criterion):
    """T = c·√(wy·wn): Matsushita / Kearns–Mansour (c = 1) and μ (c = 1 − μ)."""

    kind = "sqrt"
    #: the kernel saves about 4 ns a cut at 10^6 rows (0.64 s of 1.04 s for 20
    #: predictors at depth 8)
    jit_work = 1e8

    def __init__(self, family, scale):
        super().__init__(family)
        self.scale = scale

    def node_term(self, wy, w):
        wy = np.asarray(wy, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        return self.scale * np.sqrt(np.maximum(wy * (w - wy), 0.0))

    def weight_part(self, lw, rw):
        # unit weights: the sums are exact integers, wy·wn ≥ 0 needs no guard
        return True

    raw_sign = -1

    def gain(self, lwy, lw, rwy, rw, wpart, out, tmp, tmp2):
        self.raw_gain(lwy, lw, rwy, rw, wpart, out, tmp, tmp2)
        np.negative(out, out=out)
        return out

    def raw_gain(self, lwy, lw, rwy, rw, wpart, out, tmp, tmp2):
        """T(left) + T(right) = c(√(wy·wn)_L + √(wy·wn)_R), to be minimised."""
        exact = wpart is True
        k = self.kernels(out.shape[0])
        if k is not None and _flat64(lwy, lw, rwy, rw, out):
            # one pass instead of seven, same operations in the same order
            (k.sqrt_gain_exact if exact else k.sqrt_gain_clip)(lwy, lw, rwy, rw, out)
        else:
            np.subtract(lw, lwy, out=out)
            out *= lwy
            if not exact:
                np.maximum(out, 0.0, out=out)
            np.sqrt(out, out=out)
            np.subtract(rw, rwy, out=tmp)
            tmp *= rwy
            if not exact:
                np.maximum(tmp, 0.0, out=tmp)
            np.sqrt(tmp, out=tmp)
            out += tmp
        if self.scale != 1.0:
            out *= self.scale
        return out


def make_criterion(family) -> Criterion:
    """The criterion of ``family``: the closed form its ``impurity_form`` names
    (gini: CART's proxy; entropy: C4.5, scaled; sqrt: Kearns–Mansour, scaled),
    else the generic φ route."""
    form = family.impurity_form
    if form is None:
        return Criterion(family)
    shape, c = form
    if shape == "gini" and c == 1.0:
        return _Gini(family)
    if shape == "entropy":
        return _Entropy(family, scale=c)
    if shape == "sqrt":
        return _Sqrt(family, c)
    return Criterion(family)
