"""``python -m claim_evidence.chat`` runs the endpoint (see docs/chat.md)."""

import sys

from ._serve import main

sys.exit(main())
