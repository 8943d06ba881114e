"""`python -m slotstream.cli`: the `slotstream` command."""

import sys

from slotstream.cli import main

sys.exit(main())
