"""The wheel: built without warnings, holding the templates, the data and py.typed; the
version written once (ubreg/_version.py) and shown by ``ubreg --version``."""
import pathlib
import subprocess
import sys
import zipfile

import pytest

import ubreg

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_builds_without_warnings_and_holds_the_package_data(tmp_path):
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                          str(tmp_path), str(ROOT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "is absent from the `packages` configuration" not in out.stdout + out.stderr
    [wheel] = tmp_path.glob("ubreg-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {p.relative_to(ROOT).as_posix() for p in (ROOT / "ubreg" / "templates").rglob("*")
                 if p.is_file()}
    assert templates and templates <= names
    assert {"ubreg/py.typed", "ubreg/datasets/pima_indians_diabetes2.csv",
            "ubreg/datasets/README.md"} <= names
    assert not [n for n in names if "__pycache__" in n or n.startswith("tests/")]
    metadata = next(n for n in names if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert f"\nVersion: {ubreg.__version__}\n" in text


def test_version_is_written_once_and_shown_by_the_command_line(capsys):
    from ubreg.cli import main
    sources = [p for p in (ROOT / "ubreg").rglob("*.py")
               if f'"{ubreg.__version__}"' in p.read_text(encoding="utf-8")]
    assert [p.name for p in sources] == ["_version.py"]
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"ubreg {ubreg.__version__}"
