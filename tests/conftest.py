"""Makes the helpers at the top of tests/ (launchers) importable from every test directory, and
keeps the suite away from the books and tables of the machine it runs on: $HUB_ENGINE_BOOKS and
$HUB_ENGINE_TABLES point at empty directories (the tests that want a book or larger tables build
or name them; the packaged books and tables stay visible, and the tests of the search turn the
book off). Without this, tables built on the machine change what `bb-size` announces."""
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

_NO_BOOKS = tempfile.TemporaryDirectory(prefix="hub-engine-test-books-")
os.environ["HUB_ENGINE_BOOKS"] = _NO_BOOKS.name
_NO_TABLES = tempfile.TemporaryDirectory(prefix="hub-engine-test-tables-")
os.environ["HUB_ENGINE_TABLES"] = _NO_TABLES.name
