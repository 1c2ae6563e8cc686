"""Packaging: every folder shipped in the wheel is a listed package, so `pip install` is quiet
(setuptools warns at length about each data folder that is not a listed package) and a regular,
non-editable install holds every command module, grammar and template."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]


def _package_folders(config: dict) -> set[str]:
    """Dotted names of every folder under the mapped package roots that holds a file."""
    names = set()
    for package, folder in config["package-dir"].items():
        base = ROOT / folder
        for path in [base, *(p for p in base.rglob("*") if p.is_dir())]:
            if path.name == "__pycache__" or not any(f.is_file() for f in path.iterdir()):
                continue
            rel = path.relative_to(base).parts
            names.add(".".join((package, *rel)))
    return names


def test_every_folder_with_files_is_a_listed_package():
    config = _config()
    assert _package_folders(config) <= set(config["packages"])


def _folder(config: dict, package: str) -> Path:
    """The source folder of a dotted package name, through the longest `package-dir` prefix."""
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in config["package-dir"]:
            return ROOT / config["package-dir"][prefix] / Path(*parts[cut:])
    raise AssertionError(f"no package-dir for {package}")


def test_every_data_folder_ships_its_files():
    config = _config()
    data = config["package-data"]
    for package in config["packages"]:
        folder = _folder(config, package)
        assert folder.is_dir(), package
        suffixes = {p.suffix for p in folder.iterdir() if p.is_file() and p.suffix != ".py"}
        for suffix in suffixes:
            assert f"*{suffix}" in data.get(package, []), (package, suffix)
