"""Build the compiled core. Everything else lives in pyproject.toml."""
import platform

from Cython.Build import cythonize
from setuptools import Extension, setup

ARGS = ["-O3"]
if platform.machine() in ("x86_64", "AMD64"):
    ARGS.append("-mpopcnt")

EXTENSIONS = [
    Extension("hub_engine.core._core", ["hub_engine/core/_core.pyx"], extra_compile_args=ARGS),
]

setup(ext_modules=cythonize(EXTENSIONS, language_level=3, compiler_directives={
    "boundscheck": False, "wraparound": False, "cdivision": True, "initializedcheck": False,
}))
