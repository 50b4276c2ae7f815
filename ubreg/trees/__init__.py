"""The tree engine's shared layer: what every tree of the package computes alike.

Trees are grown by UDT (:mod:`ubreg.fitters.udt`: exact, binned, on Dask), by the
weak learners of ULS and U-Boost (:mod:`ubreg.learners`) and by U-Boost on Dask;
they share here

* :mod:`.columns`: predictors as the trees read them (numeric, categorical codes);
* :mod:`.criterion`: a family's split gain and leaf value (Kearns & Mansour 1999,
  eq. 104 of Nock & Nielsen 2009), with its compiled gains (:mod:`.gain_kernels`);
* :mod:`.builder`: rpart's two-class tree built level by level (node table, controls,
  the record of a split), whatever source finds the splits: presorted rows or
  histograms of codes, in memory or on Dask (:mod:`ubreg.fitters.udt`);
* :mod:`.model`: the fitted rpart-style tree a result holds, and predicts with
  (:mod:`.route`), with rpart's add-ons: surrogate splits (:mod:`.surrogates`) and
  cost-complexity pruning (:mod:`.prune`);
* :mod:`.heap`: the weak learners' trees in heap order (ULS, U-Boost, t-AdaBoost);
* :mod:`.histograms`: the compiled histograms of bin codes (every bin adds its rows
  in increasing row order, so a histogram is the same to the bit whichever grower,
  core or scheduler sums it) and the left sums of the split search;
* :mod:`.codes`: values to bin codes, and rows to the node they reach in a tree
  stored by node id or in heap order.

The compiled modules import numba; none of this is imported by ``import ubreg``.
"""
