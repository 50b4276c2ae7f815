"""The tree engine's shared layer: what every tree of the package computes alike.

Trees are grown by UDT (:mod:`ubreg.fitters.udt`: exact, binned, on Dask), by the
weak learners of ULS and U-Boost (:mod:`ubreg.learners`) and by U-Boost on Dask;
they share here

* :mod:`.histograms`: the compiled histograms of bin codes (every bin adds its rows
  in increasing row order, so a histogram is the same to the bit whichever grower,
  core or scheduler sums it) and the left sums of the split search;
* :mod:`.codes`: values to bin codes, and rows to the node they reach in a tree
  stored by node id or in heap order.

Both import numba; neither is imported by ``import ubreg``.
"""
