"""`python -m wv_engine.cli`: the wv-engine command line."""

import sys

from .entry import main

sys.exit(main())
