"""``python -m claim_evidence`` is the ``claim-evidence`` command."""

import sys

from .cli import main

sys.exit(main())
