"""Fitters: arrays in, a fresh fit object out.  They never hold statistics or HTML.

``uls`` (linear ULS), ``boost`` (ULS with weak learners, U-Boost), ``udt`` (trees),
``gnnb`` (boosted nearest neighbours), ``tboost`` (t-AdaBoost), ``online`` (the
q-norm walk of the on-line learner).
"""
