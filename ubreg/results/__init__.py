"""Fitted models: numbers and how to predict, behind one :class:`~ubreg.results.base.Result`."""
