"""Arrow arrays of a landing column built from buffers the C extension fills in one pass.

``pyarrow.array(values, type)`` converts a Python list value by value (a ``Decimal`` through
its text, a ``datetime`` through its fields). For the column types a staging table has most,
``arrow_buffers`` in ``extractor/parse/_compiled.c`` writes the validity bitmap and the data
(and offsets) of the whole column instead, and the array is made from them without a copy.
It declines any list with a value it does not take as it is (a decimal with an exponent or
more digits than the type holds, a datetime in another zone, an int outside int64, …); the
caller then runs ``pyarrow.array``, which converts or refuses exactly as before. Both give
the same array (tests/land/test_arrow_buffers.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from extractor.parse import implementation

# The kinds of arrow_buffers (extractor/parse/_compiled.c).
_INT64, _DECIMAL128, _TIMESTAMP_US, _STRING, _BINARY = 1, 2, 3, 4, 5
# The zones of the timestamp types it fills: naive, and UTC (the staging tables' two).
_ZONES = (None, "UTC")


def _kind(arrow_type: pa.DataType) -> tuple[int, int, int] | None:
    """(kind, precision, scale) of ``arrow_type``, or None when the C code does not fill it."""
    if pa.types.is_int64(arrow_type):
        return _INT64, 0, 0
    if pa.types.is_decimal128(arrow_type) and 0 <= arrow_type.scale <= arrow_type.precision:
        return _DECIMAL128, arrow_type.precision, arrow_type.scale
    if pa.types.is_timestamp(arrow_type) and arrow_type.unit == "us" and arrow_type.tz in _ZONES:
        return _TIMESTAMP_US, 0, 0
    if pa.types.is_string(arrow_type):
        return _STRING, 0, 0
    if pa.types.is_binary(arrow_type):
        return _BINARY, 0, 0
    return None


def array_from_buffers(values: Sequence[object], arrow_type: pa.DataType) -> pa.Array | None:
    """``pyarrow.array(values, arrow_type)`` built from the C code's buffers, or None when the
    extension is not built, the type is not one it fills, ``values`` is not a list, or the C
    code declines them."""
    compiled = implementation.compiled
    kind = _kind(arrow_type)
    if compiled is None or kind is None or type(values) is not list:
        return None
    count = len(values)
    buffers: tuple[object, ...] | None = compiled.arrow_buffers(values, *kind)
    if buffers is None:
        return None
    null_count, *parts = buffers
    assert isinstance(null_count, int)
    return pa.Array.from_buffers(
        arrow_type,
        count,
        [None if part is None else pa.py_buffer(part) for part in parts],
        null_count=null_count,
    )
