"""Parse benchmark: our SQL_REDO parser against sqlglot (Oracle dialect) and a bare
regular-expression tokenizer, on the same generated statements.

    .venv/bin/python bench/parse_bench.py [--statements 5000] [--seed 1]

Statements are INSERT / UPDATE / DELETE on a generated table of 10-20 columns with
mixed types (numbers, strings with doubled quotes, some long strings, dates,
timestamps, RAW, NULLs), rendered as LogMiner renders them. The relaxed-quote line reads the
same statements with their apostrophes undoubled (``O'Neil``, as LogMiner sometimes writes
them) through the recovery (``parse_relaxed`` with the table's dictionary), against the bare
tokenizer on those statements.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sqlglot

from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import RedoParseError
from extractor.nls import NlsSettings
from extractor.parse import implementation, parse_redo, typed_row
from extractor.parse.relaxed_quotes import parse_relaxed
from extractor.parse.value_typing import parse_typed

# The bare tokenizer: one findall of quoted strings, identifiers, words, numbers, symbols.
BARE_TOKEN = re.compile(
    r"'(?:[^']+|'')*'|\"(?:[^\"]+|\"\")*\"|[A-Za-z_][\w$#]*|\d+(?:\.\d+)?|\|\||\S"
)

_TYPES = ("NUMBER", "NUMBER(10,2)", "VARCHAR2", "LONGTEXT", "DATE", "TIMESTAMP(6)", "RAW")


@dataclass(frozen=True)
class BenchResult:
    statements: int
    total_bytes: int
    ours_per_s: float
    ours_typed_per_s: float
    bare_tokenizer_per_s: float
    sqlglot_per_s: float
    sqlglot_statements: int
    sqlglot_failures: int
    relaxed_statements: int = 0
    relaxed_per_s: float = 0.0
    relaxed_bare_tokenizer_per_s: float = 0.0
    implementation: str = ""  # of "ours": compiled, or pure Python (and why)
    python_per_s: float = 0.0  # parse_redo, pure-Python reference
    python_typed_per_s: float = 0.0  # parse + typed_row, pure-Python reference
    two_steps_per_s: float = 0.0  # compiled parse_redo, then typed_row (no one-pass path)
    one_pass_declined: int = 0  # statements parse_typed left to parse_redo + typed_row

    @property
    def vs_sqlglot(self) -> float:
        return self.ours_per_s / self.sqlglot_per_s if self.sqlglot_per_s else float("inf")

    @property
    def vs_bare_tokenizer(self) -> float:
        return self.ours_per_s / self.bare_tokenizer_per_s

    @property
    def typed_vs_bare_tokenizer(self) -> float:
        return self.ours_typed_per_s / self.bare_tokenizer_per_s

    @property
    def typed_vs_python(self) -> float:
        return self.ours_typed_per_s / self.python_typed_per_s if self.python_typed_per_s else 0.0

    @property
    def relaxed_vs_bare_tokenizer(self) -> float:
        if not self.relaxed_bare_tokenizer_per_s:
            return 0.0
        return self.relaxed_per_s / self.relaxed_bare_tokenizer_per_s


def generate_table(rng: random.Random) -> TableDef:
    count = rng.randint(10, 20)
    columns = [ColumnDef("ID", 1, "NUMBER", data_precision=12, data_scale=0)]
    for i in range(2, count + 1):
        kind = rng.choice(_TYPES)
        name = f"COL_{i}"
        if kind == "NUMBER(10,2)":
            columns.append(ColumnDef(name, i, "NUMBER", data_precision=10, data_scale=2))
        elif kind == "LONGTEXT":
            columns.append(ColumnDef(name, i, "VARCHAR2", data_length=4000))
        else:
            columns.append(ColumnDef(name, i, kind))
    return TableDef("BENCH", "WIDE_TABLE", tuple(columns), primary_key=("ID",))


def _literal(column: ColumnDef, rng: random.Random) -> str:
    if column.name != "ID" and rng.random() < 0.1:
        return "NULL"
    if column.data_type == "NUMBER":
        if column.data_scale == 2:
            return f"'{rng.randint(-(10**7), 10**7) / 100:.2f}'"
        return f"'{rng.randint(0, 10**12)}'"
    if column.data_type == "VARCHAR2":
        words = ["alpha", "O'Neil", "beta, gamma", "x = y", "(paren)", "and", "naïve", "ÆØÅ"]
        size = rng.randint(200, 2000) if column.data_length == 4000 else rng.randint(1, 6)
        text = " ".join(rng.choice(words) for _ in range(size // 6 + 1))[: max(size, 1)]
        return "'" + text.replace("'", "''") + "'"
    if column.data_type == "DATE":
        return (
            f"TO_DATE('20{rng.randint(10, 29)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)} "
            f"0{rng.randint(0, 9)}:1{rng.randint(0, 9)}:2{rng.randint(0, 9)}', "
            "'YYYY-MM-DD HH24:MI:SS')"
        )
    if column.data_type == "TIMESTAMP(6)":
        return (
            f"TO_TIMESTAMP('2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)} "
            f"1{rng.randint(0, 9)}:3{rng.randint(0, 9)}:00.{rng.randint(0, 999999):06d}000')"
        )
    return f"HEXTORAW('{rng.randbytes(rng.randint(1, 16)).hex()}')"


def generate_statements(count: int, seed: int = 1) -> tuple[TableDef, list[str]]:
    rng = random.Random(seed)
    table = generate_table(rng)
    head = '"BENCH"."WIDE_TABLE"'
    statements: list[str] = []
    for _ in range(count):
        row = [(c.name, _literal(c, rng)) for c in table.columns]
        kind = rng.random()
        rowid = "".join(rng.choice("ABCDEFGHabcdefgh0123456789+/") for _ in range(18))
        where = " and ".join(f'"{c}" IS NULL' if v == "NULL" else f'"{c}" = {v}' for c, v in row)
        if kind < 0.5:
            cols = ",".join(f'"{c}"' for c, _ in row)
            vals = ",".join(v for _, v in row)
            statements.append(f"insert into {head}({cols}) values ({vals});")
        elif kind < 0.85:
            changed = rng.sample(row[1:], k=rng.randint(1, 3))
            sets = ", ".join(f'"{c}" = {v}' for c, v in changed)
            statements.append(f"update {head} set {sets} where {where} and ROWID = '{rowid}';")
        else:
            statements.append(f"delete from {head} where {where} and ROWID = '{rowid}';")
    return table, statements


Contender = tuple[Callable[[str], object], Sequence[str], bool]  # work, statements, pure Python


def _rates(contenders: dict[str, Contender], rounds: int) -> dict[str, float]:
    """Statements per second of each contender, best of ``rounds``. Rounds interleave the
    contenders so that a load change on a shared machine hits them all alike."""
    best = dict.fromkeys(contenders, float("inf"))
    for _ in range(rounds):
        for name, (work, statements, pure) in contenders.items():
            with implementation.pure_python() if pure else contextlib.nullcontext():
                start = time.perf_counter()
                for sql in statements:
                    work(sql)
                best[name] = min(best[name], time.perf_counter() - start)
    return {
        name: len(contenders[name][1]) / seconds if seconds > 0 else float("inf")
        for name, seconds in best.items()
    }


def run_bench(
    statements: int = 5000, seed: int = 1, sqlglot_statements: int = 200, rounds: int = 5
) -> BenchResult:
    table, texts = generate_statements(statements, seed)
    nls = NlsSettings()
    sample = texts[: max(1, min(sqlglot_statements, len(texts)))]
    failures = 0

    def glot(sql: str) -> None:
        nonlocal failures
        try:
            sqlglot.parse_one(sql, read="oracle")
        except sqlglot.errors.SqlglotError:
            failures += 1

    relaxed = [t.replace("''", "'") for t in texts if "''" in t]

    def recover(sql: str) -> None:
        # ambiguous statements are refused: that is part of the work measured
        with contextlib.suppress(RedoParseError):
            parse_relaxed(sql, table)

    def typed(sql: str) -> object:
        # as the change builder types a statement: in one pass when the compiled code reads
        # it, else parse_redo then typed_row
        return parse_typed(sql, table, nls) or typed_row(parse_redo(sql), table, nls)

    def two_steps(sql: str) -> object:
        return typed_row(parse_redo(sql), table, nls)

    rates = _rates(
        {
            "ours": (parse_redo, texts, False),
            "typed": (typed, texts, False),
            "two_steps": (two_steps, texts, False),
            "python": (parse_redo, texts, True),
            "python_typed": (typed, texts, True),
            "bare": (BARE_TOKEN.findall, texts, False),
            "sqlglot": (glot, sample, False),
            "relaxed": (recover, relaxed, False),
            "relaxed_bare": (BARE_TOKEN.findall, relaxed, False),
        },
        rounds,
    )
    return BenchResult(
        statements=len(texts),
        total_bytes=sum(len(t.encode()) for t in texts),
        ours_per_s=rates["ours"],
        ours_typed_per_s=rates["typed"],
        bare_tokenizer_per_s=rates["bare"],
        sqlglot_per_s=rates["sqlglot"],
        sqlglot_statements=len(sample),
        sqlglot_failures=failures // rounds,
        relaxed_statements=len(relaxed),
        relaxed_per_s=rates["relaxed"],
        relaxed_bare_tokenizer_per_s=rates["relaxed_bare"],
        implementation=implementation.active(),
        python_per_s=rates["python"],
        python_typed_per_s=rates["python_typed"],
        two_steps_per_s=rates["two_steps"],
        one_pass_declined=sum(parse_typed(sql, table, nls) is None for sql in texts),
    )


def report(result: BenchResult) -> str:
    lines = [
        f"statements: {result.statements} ({result.total_bytes / result.statements:.0f} B avg)",
        f"implementation:            {result.implementation}",
        f"ours (parse_redo):         {result.ours_per_s:12,.0f} statements/s",
        f"ours (parse + type):       {result.ours_typed_per_s:12,.0f} statements/s "
        f"(in one pass, as the change builder; {result.one_pass_declined} declined)",
        f"ours (parse, then type):   {result.two_steps_per_s:12,.0f} statements/s "
        "(parse_redo, then typed_row)",
        f"pure Python (parse_redo):  {result.python_per_s:12,.0f} statements/s",
        f"pure Python (+ typed_row): {result.python_typed_per_s:12,.0f} statements/s",
        f"bare regex tokenizer:      {result.bare_tokenizer_per_s:12,.0f} statements/s",
        f"sqlglot (oracle dialect):  {result.sqlglot_per_s:12,.0f} statements/s "
        f"({result.sqlglot_statements} statements, {result.sqlglot_failures} failed to parse)",
        f"ours / sqlglot:            {result.vs_sqlglot:12.1f}x   (target >= 50x)",
        f"ours / bare tokenizer:     {result.vs_bare_tokenizer:12.2f}x   (target >= 0.5x)",
        f"ours typed / bare tokenizer: {result.typed_vs_bare_tokenizer:10.2f}x   (target >= 3x)",
        f"ours typed / pure Python:  {result.typed_vs_python:12.2f}x",
        f"relaxed quotes:            {result.relaxed_per_s:12,.0f} statements/s "
        f"({result.relaxed_statements} statements with undoubled apostrophes)",
        f"relaxed / bare tokenizer:  {result.relaxed_vs_bare_tokenizer:12.3f}x   (target >= 0.3x)",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--statements", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sqlglot-statements", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = run_bench(args.statements, args.seed, args.sqlglot_statements, args.rounds)
    if args.json:
        print(
            json.dumps(
                {
                    **asdict(result),
                    "vs_sqlglot": result.vs_sqlglot,
                    "vs_bare_tokenizer": result.vs_bare_tokenizer,
                    "relaxed_vs_bare_tokenizer": result.relaxed_vs_bare_tokenizer,
                    "typed_vs_bare_tokenizer": result.typed_vs_bare_tokenizer,
                    "typed_vs_python": result.typed_vs_python,
                }
            )
        )
    else:
        print(report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
