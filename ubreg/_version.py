"""The version of ubreg: the one place it is written (setup.cfg reads it too)."""
__version__ = "0.1.0"
