"""Issue 27 §2, reports and text: what a user's name contains cannot hide or disguise
itself in a summary, a print or a report.  Invisible characters outside Cc/Cf, names
that differ only in Unicode normalisation, a family name with a bidirectional override,
``repr`` of a fit, and very long names in udt's text summary."""
import unicodedata
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.summary.render import shown_names, visible_text

RLO = "\u202e"


@pytest.mark.parametrize("ch", ["\u034f", "\u3164", "\u115f", "\u1160", "\uffa0", "\u180e",
                                "\ufe0f", "\u2800", "\u00a0", "\u2003", "\U000e0100"])
def test_invisible_characters_are_shown_as_escapes(ch):
    """U+034F (combining grapheme joiner, Mn) and U+3164 (Hangul filler, Lo) draw nothing,
    a no-break or em space looks like a space: none is Cc/Cf."""
    assert visible_text(f"a{ch}b") == f"a<U+{ord(ch):04X}>b"


def test_ordinary_text_is_unchanged():
    for text in ["age", "âge", "年齢", "x 1", "Größe", "e\u0301", "ا"]:
        assert visible_text(text) == text


def test_normalisation_twins_are_shown_apart():
    nfc, nfd = "caf\u00e9", "cafe\u0301"
    assert unicodedata.normalize("NFC", nfd) == nfc
    a, b = shown_names([nfc, nfd])
    assert a != b
    assert unicodedata.normalize("NFC", a) != unicodedata.normalize("NFC", b)


def _fit(formula, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ubreg.fit(formula, data, **kw)


@pytest.fixture
def data():
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"x": rng.normal(size=200), "z": rng.normal(size=200)})
    d["y"] = (d.x + rng.normal(size=200) > 0).astype(int)
    return d


@pytest.mark.slow
def test_a_family_name_with_an_override_is_escaped_in_summary_and_print(data):
    fam = ubreg.families.CustomPermissible(lambda p: -np.sqrt(p * (1 - p)),
                                           name=f"mine{RLO}evil")
    m = _fit("y ~ x", data, family=fam)
    for text in (str(m.summary()), repr(m), str(m)):
        assert RLO not in text
    assert "<U+202E>" in str(m.summary())


def test_repr_escapes_names(data):
    d = data.rename(columns={"x": f"x{RLO}1"})
    m = _fit(f"y ~ `x{RLO}1`", d)
    assert RLO not in repr(m)
    assert "<U+202E>" in repr(m)


def test_udt_text_summary_shortens_a_long_name(data):
    long = "v" * 5000
    d = data.rename(columns={"x": long})
    m = _fit(f"y ~ {long} + z", d, method="udt", cp=0.0, xval=0)
    for text in (str(m.summary()), repr(m)):
        assert long not in text
        assert max(len(line) for line in text.splitlines()) < 400
