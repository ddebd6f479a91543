"""A local Spark Thrift Server for the thrift-target test: own metastore, free port, 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).resolve().parent
THRIFT_SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class ThriftServer:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)


def start_thrift_server(data_dir: Path, *, timeout: float = 300.0) -> ThriftServer:
    """Start HiveThriftServer2 with its catalog under ``data_dir``; wait until it listens."""
    data_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = {
        "spark.master": "local[2]",
        "spark.sql.warehouse.dir": str(data_dir / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={data_dir / 'metastore_db'};create=true"
        ),
        "spark.driver.extraJavaOptions": f"-Dderby.stream.error.file={data_dir / 'derby.log'}",
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.enabled": "false",
    }
    command = [str(SPARK_HOME / "bin" / "spark-submit"), "--driver-memory", "1g"]
    for key, value in conf.items():
        command += ["--conf", f"{key}={value}"]
    command += [
        "--class",
        THRIFT_SERVER_CLASS,
        "spark-internal",
        "--hiveconf",
        f"hive.server2.thrift.port={port}",
        "--hiveconf",
        "hive.server2.thrift.bind.host=127.0.0.1",
    ]
    log = data_dir / "thrift-server.log"
    env = {**os.environ, "SPARK_HOME": str(SPARK_HOME)}
    env.pop("SPARK_REMOTE", None)
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            command, cwd=data_dir, env=env, stdout=log_file, stderr=subprocess.STDOUT
        )
    server = ThriftServer(process, port, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"thrift server exited ({process.returncode}); see {log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server
        except OSError:
            time.sleep(1)
    server.stop()
    raise TimeoutError(f"thrift server not listening on {port} after {timeout} s; see {log}")
