"""Connect failures that need more than a corrected DSN or password: a database that requires
Native Network Encryption refuses python-oracledb's thin mode (DPY-3001)."""

from __future__ import annotations

import oracledb
import oracledb.errors as oracledb_errors
import pytest

from extractor.errors import SourceConnectionError
from extractor.source.oracle import connect as oracle_connect

_NNE = "Native Network Encryption and Data Integrity"


def _nne_refused() -> oracledb.Error:
    """What thin mode raises when the server requires NNE (DPY-3001)."""
    return oracledb_errors._create_exception(  # type: ignore[no-any-return]
        oracledb_errors.ERR_FEATURE_NOT_SUPPORTED, feature=_NNE, driver_type="thick"
    )


def _nne_refused_inside_connect_failure() -> oracledb.Error:
    """The same, reported inside DPY-6005 (cannot connect), as some releases do."""
    return oracledb_errors._create_exception(  # type: ignore[no-any-return]
        oracledb_errors.ERR_CONNECTION_FAILED, cause=_nne_refused(), connection_id="x1"
    )


@pytest.mark.parametrize("error", [_nne_refused, _nne_refused_inside_connect_failure])
def test_a_database_requiring_native_network_encryption_names_thick_mode(
    monkeypatch: pytest.MonkeyPatch, error: object
) -> None:
    def refuse(**params: object) -> None:
        raise error()  # type: ignore[operator]

    monkeypatch.setattr(oracle_connect.oracledb, "connect", refuse)
    with pytest.raises(SourceConnectionError) as caught:
        oracle_connect.connect("db:1521/ORCL", "U", "pw", timeout_seconds=5)
    message = caught.value.one_line()
    assert "\n" not in message
    assert "Native Network Encryption" in message and "thin mode" in message
    assert "init_oracle_client" in message and "thick mode" in message
    assert "tcps" in message  # the thin-mode alternative: TLS instead of NNE
