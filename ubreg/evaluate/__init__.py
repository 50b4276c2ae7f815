"""Evaluating fitted models: metrics, comparison, cross-validation, deviance tables."""
