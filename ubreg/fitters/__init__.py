"""Fitters: arrays in, a fresh fit object out.  They never hold statistics or HTML."""
