"""The project runs with nothing beside it (issue 28 §5): no test, report, benchmark,
vignette or package module reads the reference folder beside the repository or any
absolute path; the data sets they use ship in ``ubreg.datasets`` with their provenance
and licences."""
import hashlib
import re
from pathlib import Path

import pytest

import ubreg.datasets as datasets

ROOT = Path(__file__).resolve().parents[1]
#: a path outside the repository: the shared reference folder, or an absolute /work path
OUTSIDE = re.compile(r"""shared["']?\s*/\s*["']?data|["']/work/|parent\s*/\s*["']shared""")


def _sources():
    for folder in ("ubreg", "tests", "reports", "benchmarks", "vignettes"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name != Path(__file__).name:
                yield path


@pytest.mark.slow
def test_nothing_reads_outside_the_repository():
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in _sources()
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if OUTSIDE.search(line)]
    assert hits == []


@pytest.mark.parametrize("name", sorted(datasets.DATASETS))
def test_bundled_data_sets_are_the_documented_files(name):
    """Each file's sha256 (of the uncompressed CSV) is the one its README section states."""
    import gzip
    from importlib import resources
    file, response = datasets.DATASETS[name]
    raw = resources.files(datasets).joinpath(file).read_bytes()
    raw = gzip.decompress(raw) if file.endswith(".gz") else raw
    readme = (ROOT / "ubreg" / "datasets" / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"## {file.removesuffix('.gz')}")[1].split("\n## ")[0]
    assert f"sha256: `{hashlib.sha256(raw).hexdigest()}`" in section
    assert response in datasets.load(name).columns
