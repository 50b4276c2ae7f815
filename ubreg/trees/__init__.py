"""The tree engine: every tree of the package, composed of a criterion, a source and a builder.

Trees are grown by UDT (rpart's trees: exact, binned, on Dask), by the weak learners
of ULS, U-Boost and t-AdaBoost, and by U-Boost on Dask.  Each is a *criterion* (what
a split gains and a leaf is worth), a *source* (where the rows are and how a level's
candidates are summed) and a *builder* (the order in which nodes grow, and the node
table), as scikit-learn composes Criterion × Splitter × TreeBuilder:

========================  ===========================================================
builder                   used with
========================  ===========================================================
:mod:`.builder`           rpart's trees (two classes, K classes, priors), level by level
                          (or depth first), node table in rpart's numbering; two-class
                          sources: presorted rows or histograms of codes, in memory or
                          summed over a Dask frame's partitions
                          (:mod:`ubreg.fitters.udt.grow`, :mod:`ubreg.fitters.udt.hist`),
                          criterion :mod:`.criterion` (a family's closed forms); K-class
                          sources: presorted segments (:mod:`ubreg.fitters.udt.classlevel`)
                          or, depth first, one node's rows
                          (:mod:`ubreg.fitters.udt.classes`), criterion rpart's gini and
                          information (:mod:`.class_stats`)
:mod:`.heap_builder`      the boosting learners' shallow trees, level by level, in heap
                          order (a :class:`.weak_tree.WeakTree`); sources: the rows in
                          memory, partitioned by node (:mod:`.shallow`), or a Dask
                          frame's passes
                          (:mod:`ubreg.dask.boost_passes`); criterion a gain on k summed
                          statistics (:func:`.shallow.newton_gain`, :func:`.shallow.udt_gain`);
                          U-Boost's Newton trees run the same rules in one compiled call
                          (:mod:`._newton_grower`)
:mod:`.best_first`        t-AdaBoost's §3.3 tree, most-populated leaf first, on exact
                          within-node midpoints (its growth order defines its trees;
                          a :class:`.weak_tree.WeakTree` too)
========================  ===========================================================

rpart's trees of K classes carry every class's weight in the builder's node table
(:class:`.builder.ClassStats`) and are grown on the presorted segments of the two-class
source (:mod:`ubreg.fitters.udt.classlevel`).  Shared by all:

* :mod:`.columns`: predictors as the trees read them (numeric, categorical codes);
  :mod:`.binning`: the binned design the histogram sources search;
* :mod:`.criterion`: a family's split gain and leaf value (Kearns & Mansour 1999,
  eq. 104 of Nock & Nielsen 2009), with its compiled gains (:mod:`.gain_kernels`);
* :mod:`.predictor`: the one predictor of the fitted trees below, both kinds: rows
  descend a table of splits level by level (:func:`.predictor.descend`), what differs
  between the kinds given as data (:class:`.predictor.Splits`: the side of a tie,
  flipped sides, a factor's side table, the rule for missing values);
* :mod:`.model`: the fitted rpart-style tree a result holds, and predicts with
  (:mod:`.route` lays its node arrays and predictors out for the predictor), with
  rpart's add-ons: surrogate splits (:mod:`.surrogates`) and cost-complexity pruning
  (:mod:`.prune`);
* :mod:`.weak_tree`: the one fitted tree of the weak learners (ULS, U-Boost,
  t-AdaBoost, in memory and on Dask): a node table with explicit children and one
  routing rule (the predictor's), filled in heap order by :mod:`.heap_builder` and in
  growth order by :mod:`.best_first`;
* :mod:`.histograms`: the compiled histograms of bin codes (every bin adds its rows
  in increasing row order, so a histogram is the same to the bit whichever builder,
  core or scheduler sums it) and the left sums of the split search, split across the
  cores by :mod:`._level_kernels`;
* :mod:`.codes`: values to bin codes, and rows to the node they reach in a tree
  stored by node id (rpart's) or in a weak tree in heap order (by heap arithmetic,
  the fast path :mod:`.weak_tree` explains).

The compiled modules import numba; none of this is imported by ``import ubreg``.
"""
