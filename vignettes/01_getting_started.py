# %% [markdown]
# # Getting started with ubreg
#
# ubreg fits classifiers by minimising a *balanced convex loss* built from a permissible
# function φ (Nock & Nielsen), with the ergonomics of R's `glm`: a formula, a fitted
# object, `summary()`, `predict()`.  This vignette fits linear separators with ULS
# (`method="uls"`, paper 000 Algorithm 1) on the bundled Pima Indians diabetes data.
#
# Run it as a script (`python vignettes/01_getting_started.py`) or render it to HTML with
# `ubreg.render_vignette("vignettes/01_getting_started.py")`.

# %%
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import ubreg

pima = ubreg.datasets.load_pima()
print(pima.shape)
print(pima.head())

# %% [markdown]
# ## Logistic regression is ULS with the entropy family
#
# With `family=ubreg.Permissible("entropy")` the ULS optimum is the logistic-regression
# maximum-likelihood estimate, so the summary reads exactly like R's `summary.glm`.
# Rows with a missing value in a model variable are dropped and counted.

# %%
formula = "diabetes ~ pregnant + glucose + pressure + mass + pedigree + age"
logit = ubreg.fit(formula, pima, family=ubreg.Permissible("entropy"), method="uls")
print(logit.summary())

# %% [markdown]
# ## Inference
#
# `coef_table()` is the tidy table; `vcov("robust")` the HC0 sandwich, which stays valid
# when the posterior model is wrong, for every family.

# %%
logit.coef_table()

# %%
robust = logit.coef_table(cov="robust")
print(robust[["estimate", "std_error", "p"]].round(4))
print(logit.conf_int(level=0.9))

# %% [markdown]
# ## Another family: Matsushita
#
# The Matsushita loss −z + √(1 + z²) gives a different posterior link.  The coefficients
# are on another scale, but the ranking of the rows — and so the AUC — is nearly the same.

# %%
mats = ubreg.fit(formula, pima, family="matsushita")
print(mats.summary())

# %% [markdown]
# ## Prediction
#
# `predict` takes new data through the stored design: posteriors (`type="response"`), link
# values or class labels.  Rows with missing predictors give NaN, aligned with the input.

# %%
new = pima.iloc[:6]
print(logit.predict(new, type="response").round(3))
print(logit.predict(new, type="class"))
print(ubreg.evaluate.metrics.metrics_of(logit))

# %% [markdown]
# ## Diagnostics
#
# Every plot is a function `(result, ax=None) -> ax` in `ubreg.plots`.

# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), layout="constrained")
ubreg.plots.calibration(logit, ax=axes[0], strategy="quantile")
ubreg.plots.margins(logit, ax=axes[1])
ubreg.plots.coefficients(logit, ax=axes[2])

# %% [markdown]
# ## A nested model test
#
# With the entropy family, `ubreg.anova` is the likelihood-ratio test of R's
# `anova(m0, m1, test = "Chisq")`; it also reports the robust Wald test of the added terms.

# %%
complete = pima.dropna(subset=["pressure", "mass"])    # both models on the same rows
small = ubreg.fit("diabetes ~ pregnant + glucose + mass + pedigree", complete)
large = ubreg.fit(formula, complete)
print(ubreg.anova(small, large))
