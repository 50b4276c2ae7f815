# %% [markdown]
# # Trees and boosting
#
# ubreg grows decision trees with any permissible φ as the split criterion (UDT, paper 000
# Algorithm 3: gini gives CART, entropy C4.5, matsushita Kearns–Mansour), boosts weak
# learners with ULS, U-Boost or tempered t-AdaBoost, and leverages nearest neighbours
# (GNNB).

# %%
import matplotlib

matplotlib.use("Agg")

import ubreg

pima = ubreg.datasets.load_pima().dropna(subset=["glucose", "mass", "age", "pedigree"])
formula = "diabetes ~ pregnant + glucose + mass + pedigree + age"
print("methods:", sorted(ubreg.METHODS))
models = {"uls · linear": ubreg.fit(formula, pima, family="matsushita")}

# %% [markdown]
# ## A UDT tree
#
# `method="udt"` grows the tree top-down; `cp`, `min_split`, `min_leaf` and `max_depth` are
# rpart's controls; by default the tree is rpart's (misclassification cost-complexity), and
# `risk="surrogate"` prunes by the surrogate risk of its leaves (Theorem 4) instead.

# %%
tree = ubreg.fit(formula, pima, family="matsushita", method="udt", cp=0.02, xval=5)
print(tree.summary())
models["udt · matsushita"] = tree
ubreg.plots.tree(tree)          # a figure sized to the tree

# %% [markdown]
# ## Boosting stumps with ULS
#
# With `learner="stumps"` ULS picks, at each round, the stump of largest |edge| under the
# current weights and solves its leveraging coefficient from eq. (70).  The surrogate risk
# falls at every round.

# %%
stumps = ubreg.fit(formula, pima, family="entropy", method="uls", learner="stumps",
                   rounds=60)
print(stumps.summary())
models["uls · stumps"] = stumps
ubreg.plots.risk_path(stumps)

# %% [markdown]
# ## U-Boost and a cross-validated number of iterations
#
# U-Boost (paper 003) fits regression trees to the Newton working response of a loss U.
# `ubreg.cv_risk` refits it on K folds and gives the held-out U-risk against the number of
# iterations, with a ±1 SE band, drawn by `ubreg.plots.cv_risk`.

# %%
boost = ubreg.fit(formula, pima, method="uboost", mstop=60, depth=2)
models["uboost · logistic"] = boost
ubreg.plots.cv_risk(ubreg.cv_risk(boost, folds=5, seed=1))

# %% [markdown]
# ## Tempered boosting (t-AdaBoost)
#
# `method="tboost"` (paper 004) boosts small trees under the tempered exponential loss;
# `t` is the temperature (t = 1 is AdaBoost).  Its risk path is that loss,
# Π Z_j^(2−t), after each round.

# %%
tb = ubreg.fit(formula, pima, method="tboost", family=ubreg.TemperedExponential(0.5),
               rounds=20)
print(tb.summary())
models["tboost · t = 0.5"] = tb
ubreg.plots.risk_path(tb)

# %% [markdown]
# ## Leveraged nearest neighbours (GNNB)
#
# `method="gnnb"` (paper 002) learns a leveraging coefficient per training example for its
# k nearest neighbours; `k` is the neighbourhood size.  Its calibration is drawn below.

# %%
nn = ubreg.fit(formula, pima, method="gnnb", k=10)
print(nn.summary())
models["gnnb · k = 10"] = nn
ubreg.plots.calibration(nn)

# %% [markdown]
# ## Side by side
#
# `ubreg.compare` shows every fitted model; models without coefficients contribute their
# statistics and training metrics (AIC and BIC only for the linear fits).

# %%
ubreg.compare(models)
