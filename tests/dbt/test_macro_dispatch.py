"""The package's dispatch layout (docs/dbt.md "Public macros"): every dispatched macro has a
Spark implementation, and its default either is portable SQL or stops the compile naming the
macro and the adapter."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

MACROS = Path(__file__).resolve().parents[2] / "macros"
# Defaults that are plain SQL or Jinja any adapter runs.
PORTABLE = {"latest_value", "soft_deletes_enabled", "test_unique_combination"}


def _macro_sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(MACROS.rglob("*.sql")))


def _dispatched() -> list[str]:
    return sorted(set(re.findall(r"adapter\.dispatch\('(\w+)', 'oracle_cdc'\)", _macro_sources())))


def _body(name: str) -> str:
    match = re.search(
        r"\{% macro " + name + r"\(.*?\{%-? endmacro %\}", _macro_sources(), flags=re.DOTALL
    )
    assert match is not None, f"{name} is not defined"
    return match.group(0)


def test_the_package_dispatches_its_public_macros() -> None:
    assert {"consolidate", "history", "bucket_expression", "is_carried"} <= set(_dispatched())


@pytest.mark.parametrize("name", _dispatched())
def test_every_dispatched_macro_has_a_default_and_a_spark_implementation(name: str) -> None:
    default = _body(f"default__{name}")
    if name in PORTABLE:
        assert "_adapter_not_supported" not in default
    else:
        assert f"oracle_cdc._adapter_not_supported('{name}')" in default
        _body(f"spark__{name}")


def test_the_default_of_a_spark_only_macro_names_the_macro_and_the_adapter() -> None:
    raised: list[str] = []

    class Exceptions:
        @staticmethod
        def raise_compiler_error(message: str) -> None:
            raised.append(message)

    class Adapter:
        @staticmethod
        def type() -> str:
            return "postgres"

    source = (MACROS / "internal" / "_adapter_not_supported.sql").read_text(encoding="utf-8")
    # Jinja does not export macros whose names start with _: call it from the template
    call = "{{ _adapter_not_supported('consolidate') }}"
    jinja2.Environment().from_string(source + call).render(exceptions=Exceptions, adapter=Adapter)
    assert raised == [
        "oracle_cdc.consolidate is implemented for Spark only, not for adapter 'postgres'; "
        "define postgres__consolidate in your project to support it"
    ]
