"""Makes the helpers at the top of tests/ (launchers) importable from every test directory, and
keeps the suite away from the books of the machine it runs on: $HUB_ENGINE_BOOKS points at an
empty directory (the tests that want a book build or name one; the packaged books stay
visible, and the tests of the search turn the book off)."""
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

_NO_BOOKS = tempfile.TemporaryDirectory(prefix="hub-engine-test-books-")
os.environ["HUB_ENGINE_BOOKS"] = _NO_BOOKS.name
