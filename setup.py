"""Build of the optional C extension; everything else is in pyproject.toml.

The extension (``extractor.parse._compiled``) is ``optional``: when no C compiler or no
Python headers are found, the build goes on without it and the pure-Python parser is used
(``oracdc --version`` says which one is active).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "extractor.parse._compiled",
            sources=["extractor/parse/_compiled.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
