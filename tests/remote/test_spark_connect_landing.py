"""Landing through Spark Connect: `oracdc snapshot` and `oracdc stream --once` in a separate
process with SPARK_REMOTE set, against a Spark Connect server this test starts on 127.0.0.1
(with its own metastore and warehouse) and stops."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pyspark
import pytest

pytestmark = pytest.mark.connect

SPARK_HOME = Path(pyspark.__file__).parent
ORACDC = [sys.executable, "-m", "extractor.cli.main"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def connect_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("connect-server")
    port = free_port()
    env = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_PID_DIR": str(home),
           "SPARK_LOG_DIR": str(home / "logs")}  # fmt: skip
    subprocess.run(
        [str(SPARK_HOME / "sbin" / "start-connect-server.sh"),
         "--conf", f"spark.connect.grpc.binding.port={port}",
         "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
         "--conf", "spark.sql.catalogImplementation=hive",
         "--conf", f"spark.sql.warehouse.dir={home / 'warehouse'}",
         "--conf", "spark.hadoop.javax.jdo.option.ConnectionURL="
                   f"jdbc:derby:;databaseName={home / 'metastore_db'};create=true",
         "--conf", f"spark.driver.extraJavaOptions=-Dderby.stream.error.file={home / 'derby.log'}",
         "--conf", "spark.ui.enabled=false"],
        check=True, env=env, cwd=home, capture_output=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(1)
        else:
            pytest.fail(f"Spark Connect server did not listen on {port}: see {home / 'logs'}")
        yield f"sc://127.0.0.1:{port}"
    finally:
        subprocess.run(
            [str(SPARK_HOME / "sbin" / "stop-connect-server.sh")],
            env=env, cwd=home, capture_output=True, check=False,
        )  # fmt: skip


def run(args: list[str], cwd: Path, url: str, *, command: list[str] = ORACDC) -> str:
    env = {**os.environ, "SPARK_REMOTE": url} if url else dict(os.environ)
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    done = subprocess.run(
        [*command, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_snapshot_and_stream_land_through_spark_connect(tmp_path: Path, connect_url: str) -> None:
    bundle = tmp_path / "bundle"
    run(["record", "--out", str(bundle), "--transactions", "80", "--seed", "3"], tmp_path, "")
    (tmp_path / "oracdc.yml").write_text(
        f"source: {{kind: replay, path: {bundle}}}\ntables: ['SIM.*']\n"
        "staging_schema: remote_staging\n",
        encoding="utf-8",
    )
    snapshot = run(["snapshot"], tmp_path, connect_url)
    stream = run(["stream", "--once"], tmp_path, connect_url)
    counted = run(
        ["-c", "from pyspark.sql import SparkSession; s = SparkSession.builder.getOrCreate(); "
         "print(s.sql('select count(*) from remote_staging.sim__orders_log').first()[0], "
         "s.sql(\"select count(*) from remote_staging.sim__orders_log where _op != 'r'\")"
         ".first()[0])"],
        tmp_path, connect_url, command=[sys.executable],
    )  # fmt: skip
    landed, changes = (int(n) for n in counted.split())
    assert "rows landed" in snapshot
    assert " 0 change rows" not in stream
    assert changes > 0
    assert landed > changes
