"""Numerical pieces shared across methods (resource limits, ...)."""
