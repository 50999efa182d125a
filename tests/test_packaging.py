"""What a wheel of rolebook holds: every code folder as a package, its data files, the
licence; checked from pyproject.toml, without building (a build is CI's first step)."""

from __future__ import annotations

import tomllib
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_code_folder_is_a_listed_package_and_every_listed_package_a_folder() -> None:
    setuptools = PYPROJECT["tool"]["setuptools"]
    mapped = {name: PROJECT / folder for name, folder in setuptools["package-dir"].items()}
    listed = set(setuptools["packages"])
    assert listed == set(mapped), "packages and package-dir must name the same packages"
    for name, folder in mapped.items():
        assert (folder / "__init__.py").is_file(), f"{name}: {folder} is not a package"
    folders = {
        p.parent
        for top in ("notebook", "rules", "agents")
        for p in (PROJECT / top).rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert folders == set(mapped.values()), "a code folder is missing from pyproject's packages"


def test_the_licence_the_metadata_names_is_in_the_wheel() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    for name in project["license-files"]:
        assert "MIT License" in (PROJECT / name).read_text(encoding="utf-8")
    versions = [c for c in project["classifiers"] if c.startswith("Programming Language :: Python :: 3.")]
    assert "Programming Language :: Python :: 3.11" in versions  # requires-python's floor
