"""Summaries of fitted models (text, HTML, DataFrame) and the rendering they share."""
