"""The record factories of tests/generator (``gen_records``, ``probe_records``) importable from every test folder:
pytest puts only a test file's own folder on the path."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "generator"))
