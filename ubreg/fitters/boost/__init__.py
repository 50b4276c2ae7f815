"""Boosting on arrays: ULS with weak learners (stumps, rules, trees; adaptive losses,
paper 000 §7) and U-Boost (paper 003 §4.4) with its U functions."""
