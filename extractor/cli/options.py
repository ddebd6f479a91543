"""Options shared by the pipeline commands."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractor.config import CONFIG_FILE_NAME, OracdcConfig, load_config


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        default=Path(CONFIG_FILE_NAME),
        help=f"configuration file (default ./{CONFIG_FILE_NAME})",
    )


def config_of(args: argparse.Namespace) -> OracdcConfig:
    return load_config(args.config)
