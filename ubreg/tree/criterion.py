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
its ``phi``.  The closed forms are specialisations of the generic formula for
the exact family classes only (a subclass goes the generic way).
"""
from __future__ import annotations

import numpy as np

__all__ = ["Criterion", "make_criterion", "misclass_risk"]

_TINY = np.finfo(np.float64).tiny


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
    def weight_part(self, lw, rw):
        """Part of the gain that depends on the child weights only (shared by
        every feature when weights are unit), or None."""
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

    def __init__(self, family, scale=1.0):
        super().__init__(family)
        self.scale = scale

    def node_term(self, wy, w):
        wy = np.asarray(wy, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        val = _xlogx(w) - _xlogx(wy) - _xlogx(w - wy)
        return np.where(w > 0, np.maximum(val, 0.0), 0.0) * self.scale

    def weight_part(self, lw, rw):
        out = _xlogx(lw)
        out += _xlogx(rw)
        return out

    def gain(self, lwy, lw, rwy, rw, wpart, out, tmp, tmp2):
        if wpart is None:
            wpart = self.weight_part(lw, rw)
        # gain = Σ_children (wy ln wy + wn ln wn) − (lw ln lw + rw ln rw)
        _xlogx(lwy, out=out)
        np.subtract(lw, lwy, out=tmp)
        out += _xlogx(tmp, out=tmp2)
        out += _xlogx(rwy, out=tmp2)
        np.subtract(rw, rwy, out=tmp)
        out += _xlogx(tmp, out=tmp2)
        out -= wpart
        if self.scale != 1.0:
            out *= self.scale
        return out


class _Sqrt(Criterion):
    """T = c·√(wy·wn): Matsushita / Kearns–Mansour (c = 1) and μ (c = 1 − μ)."""

    kind = "sqrt"

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
    """The criterion of ``family``: a closed form for gini, entropy,
    entropy2, matsushita and mu (exact classes), else the generic φ route."""
    from ..families.closed import Entropy, Entropy2, Gini, Matsushita, Mu

    kind = type(family)
    if kind is Gini:
        return _Gini(family)
    if kind is Entropy:
        return _Entropy(family)
    if kind is Entropy2:
        return _Entropy(family, scale=1.0 / np.log(2.0))
    if kind is Matsushita:
        return _Sqrt(family, 1.0)
    if kind is Mu:
        return _Sqrt(family, 1.0 - family.mu)
    return Criterion(family)
