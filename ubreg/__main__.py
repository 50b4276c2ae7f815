"""``python -m ubreg`` is the ``ubreg`` command."""
import sys

from .cli import main

sys.exit(main())
