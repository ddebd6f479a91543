"""The ``oracdc`` command line: one module per sub-command under ``extractor.cli``.

Each command module exposes ``register(subparsers)`` which adds its parser and sets
``handler`` (a function taking the parsed arguments and returning an exit code).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from extractor import __version__, log_setup
from extractor.errors import OracdcError
from extractor.lakehouse import dbt_runner
from extractor.log_setup import FAILURE_LOGGER, configure_console, log_file
from extractor.parse import implementation

# Sub-command modules, in the order `oracdc --help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "extractor.cli.init",
    "extractor.cli.parse_redo",
    "extractor.cli.record",
    "extractor.cli.stream",
    "extractor.cli.check",
    "extractor.cli.snapshot",
    "extractor.cli.generate",
    "extractor.cli.sync",
    "extractor.cli.status",
    "extractor.cli.verify",
    "extractor.cli.compact",
    "extractor.cli.demo",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="oracdc",
        description="Change data capture from Oracle LogMiner into Spark, consolidated by dbt.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"oracdc {__version__} (SQL_REDO parser: {implementation.active()})",
    )
    parser.add_argument(
        "--debug", action="store_true", help="show tracebacks and debug logs on failure"
    )
    parser.add_argument(
        "--verbose", action="store_true", help="also show info logs and dbt's per-model lines"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    for command in subparsers.choices.values():  # also after the command: oracdc sync --debug
        for flag in ("--debug", "--verbose"):
            command.add_argument(flag, action="store_true", default=argparse.SUPPRESS,
                                 help=argparse.SUPPRESS)  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_console(debug=args.debug, verbose=args.verbose)
    dbt_runner.show_dbt_progress(args.verbose or args.debug)
    try:
        return _run(parser, args)
    finally:
        dbt_runner.show_dbt_progress(False)
        log_setup.reset()


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(handler(args))
    except OracdcError as error:
        if args.debug:
            raise
        logging.getLogger(FAILURE_LOGGER).info("failed: %s", error.one_line())
        print(f"oracdc {args.command}: error: {error.one_line()}{_log_hint()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"oracdc {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # an unexpected failure: one line, the traceback with --debug
        if args.debug:
            raise
        text = " ".join(str(error).split())[:500] or type(error).__name__
        logging.getLogger(FAILURE_LOGGER).error("unexpected error", exc_info=True)
        print(
            f"oracdc {args.command}: unexpected error: {type(error).__name__}: {text} "
            f"(rerun with --debug for the traceback, and report it){_log_hint()}",
            file=sys.stderr,
        )
        return 1


def _log_hint() -> str:
    path = log_file()
    return "" if path is None else f" [log: {path}]"


if __name__ == "__main__":
    sys.exit(main())
