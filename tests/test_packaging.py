"""Packaging: every subpackage and data folder is shipped by a non-editable install."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_every_subpackage_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "paperplay").rglob("__init__.py")}
    assert found <= listed, f"missing from pyproject packages: {sorted(found - listed)}"
    assert {"paperplay.templates", "paperplay.schemas"} <= listed


def test_every_template_and_schema_matches_the_package_data_globs():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]
    assert (ROOT / "templates").rglob("*.json") and "**/*.json" in globs["paperplay.templates"]
    assert all(p.suffix == ".json" for p in (ROOT / "schemas").glob("*.schema.json"))


def _wheel_files() -> set[str]:
    """The files a wheel holds, as pyproject's setuptools configuration lists them (packages, their
    package-dir, package-data; include-package-data is off)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert config.get("include-package-data") is False
    files = set()
    for package in config["packages"]:
        folder = ROOT / config.get("package-dir", {}).get(package, package.replace(".", "/"))
        globs = ["*.py", *config["package-data"].get(package, [])]
        files |= {f"{package.replace('.', '/')}/{p.relative_to(folder)}" for g in globs for p in folder.glob(g)}
    return files


def test_the_wheel_holds_what_users_run_and_no_lab_tool():
    files = _wheel_files()
    assert "paperplay/scan/reader.py" in files and "paperplay/scan/net.py" in files
    assert not [f for f in files if f.startswith("lab/") or f.split("/")[-1] in
                ("train.py", "evaluate.py", "synth.py", "netfit.py", "loadtest.py", "house.py")]
    assert not [p for p in (ROOT / "lab").glob("*.py") if (ROOT / "paperplay" / p.name).exists()]
    importing_lab = [str(p.relative_to(ROOT)) for p in (ROOT / "paperplay").rglob("*.py")
                     if "from lab" in (text := p.read_text(encoding="utf-8")) or "import lab" in text]
    assert not importing_lab, f"the package imports lab/: {importing_lab}"


def test_the_wheel_ships_exactly_the_weight_files_the_reader_names():
    files = _wheel_files()
    shipped = {f.split("/")[-1] for f in files if f.startswith("paperplay/scan/") and f.endswith(".npz")}
    named = {"digits.npz", "digits-2.npz", "digits-low.npz"}
    assert shipped == named
    source = (ROOT / "paperplay" / "scan" / "model.py").read_text(encoding="utf-8")
    assert all(f'"{name}"' in source for name in named) and "glob(" not in source


def test_every_module_of_the_package_stands_on_a_floor_of_the_layers_contract():
    """The import-linter layers contract (the house's floors, docs/contributing.md) names every top-level
    module and subpackage, so that a new one cannot sit outside the picture."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [layers] = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    named = {name.strip() for floor in layers["layers"] for name in floor.split("|")}
    package = ROOT / "paperplay"
    found = {f"paperplay.{p.stem}" for p in package.glob("*.py") if p.stem != "__init__"}
    found |= {f"paperplay.{p.parent.name}" for p in package.glob("*/__init__.py")}
    assert found == named, f"not on a floor: {sorted(found - named)}; no such module: {sorted(named - found)}"
