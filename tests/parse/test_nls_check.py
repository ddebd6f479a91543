"""Session NLS formats that would make SQL_REDO lose information are refused when the
configuration is read; an unsigned year and region names are warned about."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from extractor.config import config_from_mapping
from extractor.errors import ConfigError
from extractor.nls import NlsSettings
from extractor.parse.nls_check import check_nls


def test_the_defaults_lose_nothing() -> None:
    findings = check_nls(NlsSettings())
    assert findings.refused == () and findings.warned == ()


@pytest.mark.parametrize(
    ("setting", "model", "lost"),
    [
        ("date_format", "DD-MON-RR", "four-digit year"),
        ("date_format", "DD.MM.YYYY", "hour of the day"),
        ("date_format", "YYYY-MM-DD HH:MI:SS", "hour of the day"),
        ("date_format", "YYYY-MM-DD HH24:MI", "no minutes or no seconds"),
        ("date_format", "YYYY-MM HH24:MI:SS", "no month or no day"),
        ("timestamp_format", "SYYYY-MM-DD HH24:MI:SS.FF3", "fewer than all fraction digits"),
        ("timestamp_tz_format", "SYYYY-MM-DD HH24:MI:SS.FF9", "no time zone"),
        ("timestamp_tz_format", "SYYYY-MM-DD HH24:MI:SS.FF9 TZH", "without minutes"),
        ("timestamp_tz_format", "SYYYY-MM-DD HH24:MI:SS.FF9 QQ", "not supported"),
    ],
)
def test_a_format_that_loses_part_of_a_value_is_refused(
    setting: str, model: str, lost: str, tmp_path: Path
) -> None:
    nls = NlsSettings(**{setting: model})
    refused = check_nls(nls).refused
    assert any(lost in reason and model in reason for reason in refused), refused
    key = NlsSettings().to_json()
    raw = {"source": {"kind": "sim"}, "tables": ["APP.*"], "nls": {**key, **nls.to_json()}}
    with pytest.raises(ConfigError, match=lost):
        config_from_mapping(raw, base_dir=tmp_path)


@pytest.mark.parametrize(
    "nls",
    [
        NlsSettings(date_format="DD-MON-YYYY HH.MI.SS AM"),
        NlsSettings(timestamp_format="YYYY-MM-DD HH24:MI:SS.FF"),
        NlsSettings(timestamp_tz_format="SYYYY-MM-DD HH24:MI:SS.FF TZR"),
        NlsSettings(time_zone="-05:30"),
        NlsSettings(time_zone="UTC"),
    ],
)
def test_formats_that_keep_every_part_are_taken(nls: NlsSettings) -> None:
    assert check_nls(nls).refused == ()
    assert not any("TIME_ZONE" in w for w in check_nls(nls).warned)


def test_an_unsigned_year_and_region_names_are_warned_about(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    nls = NlsSettings(
        date_format="YYYY-MM-DD HH24:MI:SS",
        timestamp_tz_format="SYYYY-MM-DD HH24:MI:SS.FF9 TZR TZD",
        time_zone="Europe/Paris",
    )
    raw = {"source": {"kind": "sim"}, "tables": ["APP.*"], "nls": nls.to_json()}
    with caplog.at_level(logging.WARNING):
        config = config_from_mapping(raw, base_dir=tmp_path)
    assert config.nls == nls
    assert "BC year without its sign" in caplog.text
    assert "region names" in caplog.text
    assert "TIME_ZONE 'Europe/Paris' is a region" in caplog.text
    assert len(check_nls(nls).warned) == 3
