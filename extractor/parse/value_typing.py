"""Literal -> Python value for its Oracle column, as fixed by ``extractor.spark_types``.

One converter per column is chosen once (cached) from the column's Oracle type; each
takes the literal's verbatim text and the session NLS settings. NULL is None everywhere;
``Unsupported Type`` is :data:`UNSUPPORTED` everywhere (never None, so the extractor can
quarantine it).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Context, Decimal, InvalidOperation, localcontext
from functools import lru_cache
from typing import NamedTuple

from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import DatetimeFormatError, UnsupportedTypeError, ValueTypingError
from extractor.nls import NlsSettings
from extractor.parse import implementation
from extractor.parse import redo_grammar as g
from extractor.parse.literals import UNSUPPORTED, Literal, concat_terms, unquote
from extractor.parse.oracle_datetime_format import ParsedDatetime, parse_datetime, zone_from_text
from extractor.parse.redo_statement import ParsedRedo
from extractor.spark_types import (
    BINARY_TYPES,
    DEFAULT_TIMESTAMP_PRECISION,
    SPARK_MAX_TIMESTAMP_PRECISION,
    STRING_TYPES,
    TIMESTAMP_TYPE,
    landed_decimal_scale,
    spark_type,
)
from extractor.values import (
    canonical_decimal_text,
    interval_ds_text,
    interval_ym_text,
    rounded_to_scale,
    timestamp_text,
)

Converter = Callable[[str, NlsSettings], object]


class TypedRow(NamedTuple):
    """The typed ``new`` and ``old`` images of one parsed statement."""

    new: dict[str, object]
    old: dict[str, object]


def typed_value(literal: Literal, column: ColumnDef, nls: NlsSettings) -> object:
    """The Python value of ``literal`` in ``column`` (see the spark_types docstring)."""
    try:
        converter = _converter(column)
    except UnsupportedTypeError as error:
        raise ValueTypingError(
            str(error), column=column.name, data_type=column.data_type, literal=literal.text
        ) from None
    return _convert(literal.text, column, converter, nls)


def _convert(text: str, column: ColumnDef, converter: Converter, nls: NlsSettings) -> object:
    if text == "NULL" or text == "IS NULL":
        return None
    if text == "Unsupported Type":
        return UNSUPPORTED
    try:
        return converter(text, nls)
    except ValueTypingError:
        raise
    except (ValueError, ArithmeticError, IndexError) as error:
        raise ValueTypingError(
            str(error), column=column.name, data_type=column.data_type, literal=text
        ) from None


def typed_row(parsed: ParsedRedo, table: TableDef, nls: NlsSettings) -> TypedRow:
    """Both images of ``parsed`` typed for ``table``; a column the dictionary does not
    know (e.g. LogMiner's ``COL 1`` on a dictionary mismatch) is a ValueTypingError."""
    columns = _columns_by_name(table)
    specs = None if implementation.compiled is None else _fast_specs(table, nls)  # once a row
    return TypedRow(
        _typed(parsed.new, columns, table, nls, specs),
        _typed(parsed.old, columns, table, nls, specs),
    )


# parse_typed's result: the typed new and old images, and the WHERE clause's ROWID.
TypedStatement = tuple[dict[str, object], dict[str, object], str | None]


def parse_typed(sql: str, table: TableDef, nls: NlsSettings) -> TypedStatement | None:
    """``sql`` parsed and typed for ``table`` in one pass by the compiled code, each value
    typed where it stands: exactly ``typed_row(parse_redo(sql, table), table, nls)`` and the
    statement's ROWID. None when the extension is not built or declines: the statement is
    not one of its shapes, names a column ``table`` does not have, or a value raised. The
    caller then runs ``parse_redo`` and ``typed_row``, which recover or raise."""
    compiled = implementation.compiled
    if compiled is None:
        return None
    _, _, specs, columns = _compiled_typing(table, nls)
    typed: TypedStatement | None = compiled.parse_typed(sql, specs, _typed_one, columns, table, nls)
    return typed


_Typer = tuple[ColumnDef, Converter | None]


def _typed(
    literals: Mapping[str, Literal],
    columns: Mapping[str, _Typer],
    table: TableDef,
    nls: NlsSettings,
    specs: dict[str, _Spec] | None,
) -> dict[str, object]:
    """One image typed: by the compiled typer when built (``specs``), which calls the
    reference for what it declines; by the reference otherwise."""
    if not literals:
        return {}
    compiled = implementation.compiled
    if compiled is not None and specs is not None and type(literals) is dict:
        typed: dict[str, object] = compiled.typed_image(
            literals, specs, _typed_one, columns, table, nls
        )
        return typed
    return {
        name: _typed_one(name, literal, columns, table, nls) for name, literal in literals.items()
    }


def _typed_one(
    name: str, literal: Literal, columns: Mapping[str, _Typer], table: TableDef, nls: NlsSettings
) -> object:
    """The reference typing of one literal (the compiled typer calls it for what it declines)."""
    typer = columns.get(name)
    if typer is None:
        raise ValueTypingError(
            f"{table.qualified_name} has no such column in the dictionary",
            column=name,
            data_type="?",
            literal=literal.text,
        )
    column, converter = typer
    if converter is None:
        return typed_value(literal, column, nls)  # raises: type not replicated
    return _convert(literal.text, column, converter, nls)


_TABLE_COLUMNS: dict[int, tuple[TableDef, dict[str, _Typer]]] = {}


def _columns_by_name(table: TableDef) -> dict[str, _Typer]:
    cached = _TABLE_COLUMNS.get(id(table))
    if cached is not None and cached[0] is table:
        return cached[1]
    by_name = {c.name: (c, _converter_or_none(c)) for c in table.columns}
    if len(_TABLE_COLUMNS) > 4096:
        _TABLE_COLUMNS.clear()
    _TABLE_COLUMNS[id(table)] = (table, by_name)
    return by_name


# --- the compiled typer's column specs (kind, a, b); see _compiled.c ------------------

_K_FALLBACK, _K_STRING, _K_NUMBER_TEXT, _K_DECIMAL, _K_DOUBLE, _K_SINGLE = 0, 1, 2, 3, 4, 5
_K_DATE, _K_TIMESTAMP, _K_TIMESTAMP_TZ, _K_BYTES = 6, 7, 8, 9
_K_NULL_ONLY = 10  # any kind _compiled.c does not read: NULL, IS NULL, Unsupported Type only
_FALLBACK_SPEC = (_K_FALLBACK, 0, 0)
_NULL_ONLY_SPEC = (_K_NULL_ONLY, 0, 0)
# The session formats _compiled.c reads, as its flags: _NLS_DEFAULT, and _SIGNED_YEAR for
# SYYYY (one character before the year: a space for an AD year; a '-' is left to the
# reference, which refuses a BC date). Today's defaults and the YYYY ones before them
# (replay bundles recorded then).
_NLS_DEFAULT, _SIGNED_YEAR = 1, 2


def _format_flags(*models: str) -> dict[str, int]:
    flags = {model: _NLS_DEFAULT for model in models}
    flags.update({f"S{model}": _NLS_DEFAULT | _SIGNED_YEAR for model in models})
    return flags


_DATE_FORMAT_FLAGS = _format_flags("YYYY-MM-DD HH24:MI:SS")
_TIMESTAMP_FORMAT_FLAGS = _format_flags("YYYY-MM-DD HH24:MI:SS.FF9", "YYYY-MM-DD HH24:MI:SS.FF")
_TZ_FORMAT_FLAGS = _format_flags(
    "YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM", "YYYY-MM-DD HH24:MI:SS.FF TZH:TZM"
)
_Spec = tuple[int, int, int]
# Per table and NLS settings: (table, nls, the specs by column name, _columns_by_name).
_CompiledTyping = tuple[TableDef, NlsSettings, dict[str, _Spec], dict[str, _Typer]]
_TABLE_SPECS: dict[int, _CompiledTyping] = {}


def _compiled_typing(table: TableDef, nls: NlsSettings) -> _CompiledTyping:
    cached = _TABLE_SPECS.get(id(table))
    if cached is not None and cached[0] is table and (cached[1] is nls or cached[1] == nls):
        return cached
    specs = {c.name: _fast_spec(c, nls) for c in table.columns}
    if len(_TABLE_SPECS) > 4096:
        _TABLE_SPECS.clear()
    typing = _TABLE_SPECS[id(table)] = (table, nls, specs, _columns_by_name(table))
    return typing


def _fast_specs(table: TableDef, nls: NlsSettings) -> dict[str, _Spec]:
    return _compiled_typing(table, nls)[2]


def _fast_spec(column: ColumnDef, nls: NlsSettings) -> _Spec:
    """What the compiled typer may read for ``column`` under ``nls``; it follows
    ``_converter`` (the reference) and leaves everything else to it. A column the reference
    converts but the compiled typer does not still has its NULL and 'Unsupported Type'
    read there (``_K_NULL_ONLY``: ``_convert`` reads them before any converter)."""
    spec = _fast_value_spec(column, nls)
    if spec == _FALLBACK_SPEC and _converter_or_none(column) is not None:
        return _NULL_ONLY_SPEC
    return spec


def _fast_value_spec(column: ColumnDef, nls: NlsSettings) -> _Spec:
    try:
        spark = spark_type(column)
    except UnsupportedTypeError:
        return _FALLBACK_SPEC
    data_type = column.data_type.upper().strip()
    plain_numbers = int(nls.numeric_characters[:1] in ("", "."))
    if column.landed_as is not None:
        return _FALLBACK_SPEC  # number_as: the reference converter rounds or converts
    if data_type == "NUMBER":
        if spark == "STRING":
            return (_K_NUMBER_TEXT, plain_numbers, 0)
        digits = 38 if column.data_precision is None else column.data_precision
        scale = column.data_scale or 0
        if 0 <= scale < digits <= 38 or (-84 <= scale < 0 and digits - scale <= 38):
            return (_K_DECIMAL, digits << 8 | (scale & 0xFF), plain_numbers)
        return _FALLBACK_SPEC
    if data_type == "FLOAT":
        return (_K_NUMBER_TEXT, plain_numbers, 0)
    if data_type == "BINARY_DOUBLE":
        return (_K_DOUBLE, plain_numbers, 0)
    if data_type == "BINARY_FLOAT":
        return (_K_SINGLE, plain_numbers, 0)
    if data_type == "DATE":
        return (_K_DATE, 0, _DATE_FORMAT_FLAGS.get(nls.date_format, 0))
    timestamp = TIMESTAMP_TYPE.match(data_type)
    if timestamp:
        precision = int(timestamp.group(1)) if timestamp.group(1) else DEFAULT_TIMESTAMP_PRECISION
        if timestamp.group(3):
            return _FALLBACK_SPEC  # WITH LOCAL TIME ZONE: the session zone, when no offset
        if timestamp.group(2):
            return (_K_TIMESTAMP_TZ, precision, _TZ_FORMAT_FLAGS.get(nls.timestamp_tz_format, 0))
        return (_K_TIMESTAMP, precision, _TIMESTAMP_FORMAT_FLAGS.get(nls.timestamp_format, 0))
    if data_type in STRING_TYPES:
        return (_K_STRING, 0, 0)
    if data_type in BINARY_TYPES:
        return (_K_BYTES, 0, 0)
    return _FALLBACK_SPEC


def _converter_or_none(column: ColumnDef) -> Converter | None:
    try:
        return _converter(column)
    except UnsupportedTypeError:
        return None


# --- choosing a converter -------------------------------------------------------------


@lru_cache(maxsize=4096)
def _converter(column: ColumnDef) -> Converter:
    data_type = column.data_type.upper().strip()
    spark = spark_type(column)  # raises UnsupportedTypeError for types we do not replicate
    scale = landed_decimal_scale(column)
    if scale is not None:
        return _rounding_converter(scale)
    if data_type in ("NUMBER", "FLOAT") and spark == "DOUBLE":
        return _number_to_double
    if data_type == "NUMBER":
        if spark == "STRING":
            return _to_number_text
        return _decimal_converter(column.data_precision, column.data_scale or 0)
    if data_type == "FLOAT":
        return _to_number_text
    if data_type == "BINARY_DOUBLE":
        return _to_double
    if data_type == "BINARY_FLOAT":
        return _to_single
    if data_type == "DATE":
        return _to_date
    timestamp = TIMESTAMP_TYPE.match(data_type)
    if timestamp:
        precision = int(timestamp.group(1)) if timestamp.group(1) else DEFAULT_TIMESTAMP_PRECISION
        if timestamp.group(3):
            return _timestamp_tz_converter(precision, local=True)
        if timestamp.group(2):
            return _timestamp_tz_converter(precision, local=False)
        return _timestamp_converter(precision)
    if data_type.startswith("INTERVAL YEAR"):
        return _to_interval_ym
    if data_type.startswith("INTERVAL DAY"):
        return _to_interval_ds
    if data_type in STRING_TYPES:
        return _to_string
    if data_type in BINARY_TYPES:
        return _to_bytes
    raise UnsupportedTypeError(f"Oracle type {column.data_type!r} has no converter")


# --- literal shapes -------------------------------------------------------------------

_CALL = re.compile(r"([A-Za-z_][\w$]*)\s*\(\s*(.*?)\s*\)\s*", re.S)
_ARGUMENT = re.compile(rf"({g.STRING})|({g.NUMBER})")


def _call(text: str) -> tuple[str, list[str]] | None:
    """``NAME('a', 'b')`` -> (``NAME``, [``a``, ``b``]); None when not a function call."""
    match = _CALL.fullmatch(text)
    if match is None:
        return None
    args = [unquote(s) if s else n for s, n in _ARGUMENT.findall(match.group(2))]
    return match.group(1).upper(), args


def _scalar_text(text: str, accepted: tuple[str, ...]) -> tuple[str, str]:
    """(function name or '' for a bare literal, the first argument / the literal's text)."""
    first = text[0]
    if first == "'":
        if "||" in text and not _is_one_string(text):
            raise ValueError("a concatenation is not a single value here")
        return "", unquote(text)
    if first.isdigit() or first in "+-.":
        return "", text
    call = _call(text)
    if call is None or call[0] not in accepted or not call[1]:
        raise ValueError(f"expected a quoted value or one of {', '.join(accepted)}")
    return call[0], call[1][0]


_ONE_STRING = re.compile(g.STRING)


def _is_one_string(text: str) -> bool:
    return _ONE_STRING.fullmatch(text) is not None


# --- numbers --------------------------------------------------------------------------


def _decimal_text(text: str, nls: NlsSettings) -> Decimal:
    _, raw = _scalar_text(text, ())
    decimal_char = nls.numeric_characters[:1]
    if decimal_char and decimal_char != ".":
        raw = raw.replace(decimal_char, ".")
    try:
        value = Decimal(raw.strip())
    except InvalidOperation:
        raise ValueError(f"{raw!r} is not a number") from None
    if not value.is_finite():
        raise ValueError(f"{raw!r} is not a finite number")
    return value


# Oracle numbers have up to 40 significant digits; the default context (28) would round.
_EXACT = Context(prec=200)


def _to_number_text(text: str, nls: NlsSettings) -> str:
    value = _decimal_text(text, nls)
    with localcontext(_EXACT):
        return canonical_decimal_text(value)


def _decimal_converter(precision: int | None, scale: int) -> Converter:
    digits = 38 if precision is None else precision
    limit = Decimal(10) ** (digits - scale)
    quantum = Decimal(1).scaleb(-max(scale, 0))
    step = Decimal(10) ** (-scale) if scale < 0 else None

    def to_decimal(text: str, nls: NlsSettings) -> Decimal:
        value = _decimal_text(text, nls)
        quantized = value.quantize(quantum, context=_EXACT)
        if quantized != value or (step is not None and _EXACT.remainder(quantized, step) != 0):
            raise ValueError(f"{value} has more digits after the point than scale {scale}")
        if quantized.copy_abs() >= limit:  # exact: abs() would round to 28 digits
            raise ValueError(f"{value} does not fit NUMBER({digits},{scale})")
        return quantized

    return to_decimal


def _rounding_converter(scale: int) -> Converter:
    """An unbounded NUMBER or FLOAT landing as DECIMAL(38,scale) (``number_as``): rounded
    as Oracle's ROUND rounds; more than 38 digits is a ValueError (the row is quarantined)."""

    def to_decimal(text: str, nls: NlsSettings) -> Decimal:
        return rounded_to_scale(_decimal_text(text, nls), scale)

    return to_decimal


def _number_to_double(text: str, nls: NlsSettings) -> float:
    """An unbounded NUMBER or FLOAT landing as DOUBLE (``number_as``): the nearest double."""
    return float(_decimal_text(text, nls))


def _binary_text(text: str, nls: NlsSettings) -> str:
    _, raw = _scalar_text(text, ("TO_BINARY_DOUBLE", "TO_BINARY_FLOAT"))
    decimal_char = nls.numeric_characters[:1]
    if decimal_char and decimal_char != ".":
        raw = raw.replace(decimal_char, ".")
    return raw


def _to_double(text: str, nls: NlsSettings) -> float:
    return float(_binary_text(text, nls))  # accepts Nan, NaN, Inf, -Inf, Infinity


def _to_single(text: str, nls: NlsSettings) -> float:
    """The BINARY_FLOAT value itself: the printed decimal rounded to single precision."""
    value: float = _SINGLE.unpack(_SINGLE.pack(float(_binary_text(text, nls))))[0]
    return value


_SINGLE = struct.Struct("<f")


# --- datetimes ------------------------------------------------------------------------


def _read_datetime(text: str, formats: Mapping[str, str]) -> ParsedDatetime:
    """Read ``NAME('<text>'[, '<format>'])`` for a NAME in ``formats`` (function name ->
    the NLS format it uses when it names none), or a bare quoted text under the first."""
    call = _call(text)
    if call is not None:
        name, args = call
        if name not in formats or not 1 <= len(args) <= 2:
            raise ValueError(f"expected {' or '.join(formats)}(...), found {name}")
        value, model = args[0], args[1] if len(args) == 2 else formats[name]
    elif text[0] == "'":
        value, model = unquote(text), next(iter(formats.values()))
    else:
        raise ValueError(f"expected {' or '.join(formats)}(...) or a quoted value")
    try:
        return parse_datetime(value, model)
    except DatetimeFormatError as error:
        raise ValueError(str(error)) from None


def _to_date(text: str, nls: NlsSettings) -> datetime:
    parsed = _read_datetime(text, {"TO_DATE": nls.date_format})
    if parsed.nanosecond:
        raise ValueError("a DATE has no fractional seconds")
    return parsed.to_datetime().replace(tzinfo=None)


def _timestamp_converter(precision: int) -> Converter:
    def to_timestamp(text: str, nls: NlsSettings) -> object:
        parsed = _read_datetime(text, {"TO_TIMESTAMP": nls.timestamp_format})
        _check_fraction(parsed.nanosecond, precision)
        moment = parsed.to_datetime().replace(tzinfo=None)
        if precision > SPARK_MAX_TIMESTAMP_PRECISION:
            return timestamp_text(moment, parsed.nanosecond, precision)
        return moment

    return to_timestamp


def _timestamp_tz_converter(precision: int, *, local: bool) -> Converter:
    def to_timestamp_tz(text: str, nls: NlsSettings) -> object:
        formats = {
            "TO_TIMESTAMP_TZ": nls.timestamp_tz_format,
            "TO_TIMESTAMP": nls.timestamp_format,
        }
        parsed = _read_datetime(text, formats)
        _check_fraction(parsed.nanosecond, precision)
        moment = parsed.to_datetime()
        if moment.tzinfo is None:
            if not local:
                raise ValueError("a TIMESTAMP WITH TIME ZONE value needs an offset or region")
            moment = moment.replace(tzinfo=zone_from_text(nls.time_zone))
        moment = moment.astimezone(UTC)
        if precision > SPARK_MAX_TIMESTAMP_PRECISION:
            return timestamp_text(moment, parsed.nanosecond, precision)
        return moment

    return to_timestamp_tz


def _check_fraction(nanosecond: int, precision: int) -> None:
    if nanosecond % 10 ** (9 - min(precision, 9)):
        raise ValueError(f"fraction .{nanosecond:09d} has more than {precision} digits")


# --- intervals ------------------------------------------------------------------------

_YM = re.compile(r"\s*([+-])?\s*(\d+)-(\d+)\s*")
_DS = re.compile(r"\s*([+-])?\s*(\d+)\s+(\d+):(\d+):(\d+)(?:\.(\d{0,9}))?\s*")


def _to_interval_ym(text: str, nls: NlsSettings) -> str:
    _, raw = _scalar_text(text, ("TO_YMINTERVAL",))
    match = _YM.fullmatch(raw)
    if match is None:
        raise ValueError(f"{raw!r} is not [+-]years-months")
    sign, years, months = match.groups()
    if int(months) > 11:
        raise ValueError(f"{raw!r}: months must be 0-11")
    total = int(years) * 12 + int(months)
    return interval_ym_text(-total if sign == "-" else total)


def _to_interval_ds(text: str, nls: NlsSettings) -> str:
    _, raw = _scalar_text(text, ("TO_DSINTERVAL",))
    match = _DS.fullmatch(raw)
    if match is None:
        raise ValueError(f"{raw!r} is not [+-]days hh:mi:ss[.fraction]")
    sign, days, hours, minutes, seconds, fraction = match.groups()
    if int(hours) > 23 or int(minutes) > 59 or int(seconds) > 59:
        raise ValueError(f"{raw!r}: time part out of range")
    total_seconds = ((int(days) * 24 + int(hours)) * 60 + int(minutes)) * 60 + int(seconds)
    nanos = total_seconds * 1_000_000_000 + int(((fraction or "") + "000000000")[:9])
    return interval_ds_text(-nanos if sign == "-" else nanos)


# --- strings and bytes ----------------------------------------------------------------


def _to_string(text: str, nls: NlsSettings) -> str | None:
    if text == "''":
        return None  # Oracle stores an empty string as NULL
    if "||" not in text:
        if text[0] == "'":
            return unquote(text)  # one string literal (as parse_redo delimits it)
        value = _string_term(text)
    else:
        value = "".join(_string_term(term) for term in concat_terms(text))
    return _join_surrogates(value) if _SURROGATE.search(value) else value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _join_surrogates(units: str) -> str:
    """UTF-16 surrogate halves (from UNISTR escapes, possibly split over concatenated
    pieces) -> the characters they encode; a lone half is an error."""
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le")


def _string_term(term: str) -> str:
    if term[:1] == "'":
        if not _is_one_string(term):
            raise ValueError(f"malformed string literal {term[:40]!r}")
        return unquote(term)
    call = _call(term)
    if call is None:
        raise ValueError(f"expected a string, UNISTR(...) or EMPTY_CLOB(), found {term[:40]!r}")
    name, args = call
    if name == "UNISTR" and len(args) == 1:
        return decode_unistr(args[0])
    if name in ("EMPTY_CLOB", "EMPTY_BLOB") and not args:
        return ""
    if name in ("TO_CLOB", "TO_NCLOB", "TO_CHAR", "TO_NCHAR") and len(args) == 1:
        return args[0]
    raise ValueError(f"{name}(...) is not a string value")


_UNISTR_ESCAPE = re.compile(r"\\(?:\\|([0-9A-Fa-f]{4}))")


def decode_unistr(body: str) -> str:
    """Oracle UNISTR: ``\\XXXX`` is one UTF-16 code unit, ``\\\\`` a backslash, anything
    else itself. Surrogate halves stay as they are (a pair may span two pieces of a
    ``||`` concatenation); ``_to_string`` joins them."""
    if "\\" not in body:
        return body

    def unit(match: re.Match[str]) -> str:
        return chr(int(match.group(1), 16)) if match.group(1) else "\\"

    if "\\" in _UNISTR_ESCAPE.sub("", body):
        raise ValueError(f"UNISTR body {body[:40]!r} has a malformed \\ escape")
    return _UNISTR_ESCAPE.sub(unit, body)  # surrogate halves are joined by the caller


def _to_bytes(text: str, nls: NlsSettings) -> bytes:
    terms = concat_terms(text) if "||" in text else [text]
    return b"".join(_bytes_term(term) for term in terms)


def _bytes_term(term: str) -> bytes:
    if term[:10].upper() == "HEXTORAW('" and term[-2:] == "')":
        return bytes.fromhex(term[10:-2])  # non-hex text (a quote too) raises ValueError
    if term[:1] == "'":
        return bytes.fromhex(unquote(term))
    call = _call(term)
    if call is None:
        raise ValueError("expected HEXTORAW(...), EMPTY_BLOB() or quoted hex")
    name, args = call
    if name == "HEXTORAW" and len(args) == 1:
        return bytes.fromhex(args[0])
    if name == "EMPTY_BLOB" and not args:
        return b""
    raise ValueError(f"{name}(...) is not a binary value")


__all__ = ["UNSUPPORTED", "TypedRow", "decode_unistr", "typed_row", "typed_value"]
