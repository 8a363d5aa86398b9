"""Makes the book tests' helpers (book_helpers, and the end-to-end tests' e2e_helpers)
importable."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "e2e"))
