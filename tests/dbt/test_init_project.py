"""``oracdc init``: the user's own project, and the dbt package a normal install carries."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from extractor.cli.main import main
from extractor.config import load_config
from extractor.dbt_gen.user_project import project_name, write_user_project
from extractor.errors import ConfigError, GenerationError
from extractor.lakehouse.dbt_runner import dbt_package_dir
from extractor.pipeline.sync import dbt_settings

REPO = Path(__file__).resolve().parents[2]


def test_init_writes_a_project_that_installs_the_package(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path / "my-proj"), "--no-deps"]) == 0
    project = tmp_path / "my-proj"
    dbt_project = yaml.safe_load((project / "dbt_project.yml").read_text(encoding="utf-8"))
    assert dbt_project["name"] == "my_proj"
    assert dbt_project["profile"] == "oracle_cdc"
    assert dbt_project["dispatch"] == [
        {"macro_namespace": "dbt", "search_order": ["my_proj", "oracle_cdc", "dbt"]}
    ]
    assert dbt_project["vars"] == {"oracle_cdc__staging_schema": "oracdc_staging"}
    packages = yaml.safe_load((project / "packages.yml").read_text(encoding="utf-8"))
    assert packages == {"packages": [{"local": str(REPO)}]}  # this checkout: editable install
    profiles = yaml.safe_load((project / "profiles.yml").read_text(encoding="utf-8"))
    assert set(profiles["oracle_cdc"]["outputs"]) == {"embedded", "connect", "thrift"}
    assert (project / "models" / "replica").is_dir() and (project / "models" / "views").is_dir()

    config = load_config(project / "oracdc.yml")  # the commented template loads as it is
    assert config.source["kind"] == "oracle"
    assert config.data_dir == project / "data"
    settings = dbt_settings(config)  # sync, run inside the project, uses the project
    assert settings.project_dir == project and settings.profiles_dir == project


def test_init_refuses_a_directory_that_holds_a_project_already(tmp_path: Path) -> None:
    (tmp_path / "dbt_project.yml").write_text("name: mine\n", encoding="utf-8")
    with pytest.raises(GenerationError, match=r"already holds dbt_project\.yml") as refused:
        write_user_project(tmp_path)
    assert refused.value.fix and "new directory" in refused.value.fix
    assert not (tmp_path / "oracdc.yml").exists()  # nothing written
    assert (tmp_path / "dbt_project.yml").read_text(encoding="utf-8") == "name: mine\n"


def test_packages_only_repoints_the_package_and_keeps_the_others(tmp_path: Path) -> None:
    write_user_project(tmp_path)
    (tmp_path / "packages.yml").write_text(
        "packages:\n  - local: /gone\n  - package: dbt-labs/dbt_utils\n    version: 1.3.0\n",
        encoding="utf-8",
    )
    assert main(["init", str(tmp_path), "--packages-only", "--no-deps"]) == 0
    text = (tmp_path / "packages.yml").read_text(encoding="utf-8")
    assert yaml.safe_load(text) == {
        "packages": [
            {"package": "dbt-labs/dbt_utils", "version": "1.3.0"},
            {"local": str(dbt_package_dir())},
        ]
    }


def test_packages_only_needs_a_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for directory in (tmp_path, tmp_path / "missing"):
        assert main(["init", str(directory), "--packages-only", "--no-deps"]) == 1
        assert "no dbt project in" in capsys.readouterr().err
    assert not (tmp_path / "packages.yml").exists()


def test_init_in_a_git_repository_adds_to_its_gitignore(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.pyc\ndata/", encoding="utf-8")
    write_user_project(tmp_path)
    lines = (tmp_path / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert lines == ["*.pyc", "data/", "target/", "dbt_packages/", "logs/"]
    write_user_project(tmp_path / "again")  # no .gitignore yet: written whole
    assert (tmp_path / "again" / ".gitignore").read_text(encoding="utf-8").splitlines() == [
        "data/",
        "target/",
        "dbt_packages/",
        "logs/",
    ]


@pytest.mark.parametrize(
    ("directory", "name"),
    [("myproj", "myproj"), ("My Project", "my_project"), ("2024", "project_2024"),
     ("oracle_cdc", "oracle_cdc_project"), ("dbt", "dbt_project"),
     ("dbt_spark", "dbt_spark_project"), ("---", "replicas")],
)  # fmt: skip
def test_project_names_are_dbt_names(tmp_path: Path, directory: str, name: str) -> None:
    assert project_name(tmp_path / directory) == name


def test_a_config_without_a_dbt_project_is_refused_with_the_way_out(tmp_path: Path) -> None:
    (tmp_path / "oracdc.yml").write_text("source: {kind: sim}\ntables: [SIM.*]\n", encoding="utf-8")
    expected = re.escape(f"no dbt_project.yml in {tmp_path}")
    with pytest.raises(ConfigError, match=expected) as refused:
        dbt_settings(load_config(tmp_path / "oracdc.yml"))
    assert refused.value.fix and "oracdc init" in refused.value.fix


def test_generate_outside_a_dbt_project_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dictionary = REPO / "tests" / "dbt" / "data" / "hr_dictionary.json"
    monkeypatch.chdir(tmp_path)
    assert main(["generate", "--dictionary", str(dictionary)]) != 0
    assert "no dbt project in" in capsys.readouterr().err
    assert not (tmp_path / "models").exists()


def test_a_built_wheel_carries_the_dbt_package(tmp_path: Path) -> None:
    """A normal ``pip install`` (not editable) finds the package inside ``extractor``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "wheel"), str(REPO)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    (wheel,) = (tmp_path / "wheel").glob("oracdc-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    shipped = site / "extractor" / "dbt_package"
    wanted = [REPO / "dbt_project.yml", REPO / "profiles.yml"]
    wanted += [p for d in ("macros", "models") for p in (REPO / d).rglob("*") if p.is_file()]
    for source in wanted:
        copy = shipped / source.relative_to(REPO)
        assert copy.read_bytes() == source.read_bytes(), copy

    found = subprocess.run(
        [sys.executable, "-c",
         "from extractor.lakehouse.dbt_runner import dbt_package_dir; print(dbt_package_dir())"],
        check=True, capture_output=True, text=True, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(site)},
    )  # fmt: skip
    assert found.stdout.strip() == str(shipped)
