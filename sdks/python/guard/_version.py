# guard-sdk 1.1.0 shipped with contract 1.6.0; contract 1.7.0 is additive, so this is a minor
# release (1.2.0), and so is contract 1.8.0's paging (1.3.0). The major number names the contract
# generation, not how far the SDK moved.
from __future__ import annotations

__version__ = "1.3.0"

PACKAGE_NAME = "guard-sdk"
