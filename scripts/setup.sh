#!/usr/bin/env bash
# Create (or refresh) the project's virtual environment in .venv with everything it needs.
# Idempotent: a second run only reinstalls when pyproject.toml changed.
set -euo pipefail
cd "$(dirname "$0")/.."

python_bin="${PYTHON:-python3}"
if ! "$python_bin" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info < (3, 14) else 1)'; then
  echo "setup: error: Python 3.11-3.13 is needed (found $("$python_bin" --version 2>&1));" \
       "set PYTHON=/path/to/python3.11" >&2
  exit 1
fi
if ! command -v java >/dev/null 2>&1; then
  echo "setup: error: Java 17 or newer is needed by Spark; install it (Debian: apt-get install openjdk-17-jre-headless)" >&2
  exit 1
fi

stamp=.venv/.oracdc-installed
compiled_source=extractor/parse/_compiled.c
if [ -f "$stamp" ] && [ "$stamp" -nt pyproject.toml ] && [ "$stamp" -nt setup.py ] \
   && [ "$stamp" -nt "$compiled_source" ]; then
  exit 0
fi
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$python_bin" -m venv .venv
fi
echo "setup: installing oracdc and its dependencies into .venv (first time: about 3 minutes)"
.venv/bin/python -m pip install --quiet --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
# Build warnings (setuptools' notes for package maintainers) are not for this console.
PYTHONWARNINGS=ignore::UserWarning .venv/bin/python -m pip install --quiet --editable '.[dev]' 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c 'import extractor, pyspark, dbt.version, oracledb' || {
  echo "setup: error: the installation is incomplete; rerun with: .venv/bin/pip install -e '.[dev]'" >&2
  exit 1
}
# The C extension of the parser is optional: without a C compiler the pure-Python parser runs.
echo "setup: SQL_REDO parser: $(.venv/bin/python -c 'from extractor.parse import implementation; print(implementation.active())')"
touch "$stamp"
echo "setup: done"
