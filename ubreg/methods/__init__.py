"""Fitting methods: one module per method declares it (fitter, options, result class,
Dask backend); :mod:`ubreg.methods.registry` lists them; :func:`ubreg.fit` runs them."""
