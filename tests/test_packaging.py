"""What a wheel of rolebook holds: every code folder as a package, its data files, the
licence; checked from pyproject.toml, without building (a build is CI's first step).
And what a team checks first: the version, printed and in the changelog."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
ROLEBOOK = str(Path(sys.executable).parent / "rolebook")
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


#: keep-a-changelog: `## [Unreleased]` first, then `## [X.Y.Z] - YYYY-MM-DD`, newest first,
#: each with its kinds of change as `###` headings
_RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$")
_KINDS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")


def test_the_changelog_keeps_a_changelog_and_its_newest_version_is_pyprojects() -> None:
    lines = (PROJECT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
    versions = [line for line in lines if line.startswith("## ")]
    assert versions[0] == "## [Unreleased]"
    found = [_RELEASE.match(line) for line in versions[1:]]
    bad = [v for v, f in zip(versions[1:], found, strict=True) if not f]
    assert not bad, f"not `## [X.Y.Z] - YYYY-MM-DD`: {bad}"
    releases = [(m.group(1), m.group(2)) for m in found if m]
    assert releases[0][0] == PYPROJECT["project"]["version"]
    numbers = [tuple(int(n) for n in v.split(".")) for v, _ in releases]
    assert numbers == sorted(numbers, reverse=True) and len(set(numbers)) == len(numbers)
    dates = [d for _, d in releases]
    assert dates == sorted(dates, reverse=True)
    kinds = [line[4:] for line in lines if line.startswith("### ")]
    assert kinds and set(kinds) <= set(_KINDS)


def test_the_version_printed_is_the_installed_one_and_pyprojects() -> None:
    from importlib.metadata import version

    from rolebook import __version__

    assert __version__ == version("rolebook") == PYPROJECT["project"]["version"]
    for flag in ("--version", "-V"):
        done = subprocess.run([ROLEBOOK, flag], capture_output=True, text=True)
        assert (done.returncode, done.stdout, done.stderr) == (0, f"rolebook {__version__}\n", "")
    through_typer = subprocess.run([ROLEBOOK, "--root", str(PROJECT), "--version"], capture_output=True, text=True)
    assert (through_typer.returncode, through_typer.stdout) == (0, f"rolebook {__version__}\n")


def test_version_is_answered_without_typer() -> None:
    code = (
        "import sys; from rolebook.agents.main import main; main(['--version']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'click', 'rich')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"
