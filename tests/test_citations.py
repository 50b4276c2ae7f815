"""Every text ubreg shows or ships cites only what its users have: the papers and the
package's own documentation (docs/), never notes outside the project."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCES = sorted([*ROOT.glob("ubreg/**/*.py"), *ROOT.glob("ubreg/templates/**/*.html"),
                  ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("reports/*.md"),
                  *ROOT.glob("vignettes/*.py")])
CITATION = re.compile(r"docs/([a-z_]+\.md)(?: §(\d+(?:\.\d+)?))?")


def _headings(path: pathlib.Path) -> set[str]:
    """Section numbers of a docs page: '## 3. Title' gives '3', '### 2.6 Title' '2.6'."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#{2,4} (\d+(?:\.\d+)?)\.?\s", line)
        if m:
            found.add(m.group(1))
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_citation_of_notes_outside_the_project(path):
    text = path.read_text(encoding="utf-8")
    for outside in ("MATH.md", "TEMPERED.md", "../shared", "shared/papers"):
        assert outside not in text, f"{path.name} cites {outside}"


def test_every_docs_citation_names_an_existing_page_and_section():
    cited = 0
    for path in SOURCES:
        for m in CITATION.finditer(path.read_text(encoding="utf-8")):
            page = ROOT / "docs" / m.group(1)
            assert page.exists(), f"{path.name}: {m.group(0)} (no such page)"
            if m.group(2):
                assert m.group(2) in _headings(page), f"{path.name}: {m.group(0)} (no section)"
                cited += 1
    assert cited > 50
