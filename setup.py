"""Build of the optional C extension and of the dbt package's copy; the rest is in pyproject.toml.

The extension (``extractor.parse._compiled``) is ``optional``: when no C compiler or no
Python headers are found, the build goes on without it and the pure-Python parser is used
(``oracdc --version`` says which one is active).

A built wheel carries the ``oracle_cdc`` dbt package (dbt_project.yml, profiles.yml,
macros/, models/ of the repository's root) as ``extractor/dbt_package``, where
``extractor.lakehouse.dbt_runner.dbt_package_dir`` finds it after a normal ``pip install``
(an editable install uses the repository's root itself).
"""

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
DBT_PACKAGE_FILES = ("dbt_project.yml", "profiles.yml")
DBT_PACKAGE_DIRECTORIES = ("macros", "models")


class BuildWithDbtPackage(build_py):
    """build_py, then the dbt package copied into the built ``extractor`` package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install finds the repository's root
        target = Path(self.build_lib) / "extractor" / "dbt_package"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for name in DBT_PACKAGE_FILES:
            shutil.copy2(ROOT / name, target / name)
        for name in DBT_PACKAGE_DIRECTORIES:
            shutil.copytree(ROOT / name, target / name)


setup(
    cmdclass={"build_py": BuildWithDbtPackage},
    ext_modules=[
        Extension(
            "extractor.parse._compiled",
            sources=["extractor/parse/_compiled.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ],
)
