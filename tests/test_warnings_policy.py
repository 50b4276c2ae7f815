"""ubreg.numerics.warnings: the one warnings policy (per-thread handlers, user's line)."""
import threading
import warnings

import pytest

from ubreg.numerics.warnings import (
    ignoring,
    raising,
    record_warnings,
    reissue_warnings,
    warn,
)


def test_warn_points_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn("look here", UserWarning)
    assert caught[0].filename == __file__ and str(caught[0].message) == "look here"


def test_ignoring_silences_only_its_category_in_its_thread():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ignoring(RuntimeWarning):
            warnings.warn("quiet", RuntimeWarning)
            warnings.warn("loud", UserWarning)
    assert [str(w.message) for w in caught] == ["loud"]


def test_handlers_do_not_cross_threads():
    """A thread silencing its warnings does not silence another's (catch_warnings would)."""
    inside, done = threading.Event(), threading.Event()

    def quiet_thread():
        with ignoring():
            inside.set()
            done.wait(5)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = threading.Thread(target=quiet_thread)
        t.start()
        inside.wait(5)
        warnings.warn("from the main thread", UserWarning)
        done.set()
        t.join()
    assert [str(w.message) for w in caught] == ["from the main thread"]


def test_raising_turns_warnings_into_the_warning_itself():
    with pytest.raises(RuntimeWarning, match="boom"), raising():
        warnings.warn("boom", RuntimeWarning)
    with warnings.catch_warnings(record=True) as caught:          # and leaves no trace
        warnings.simplefilter("always")
        warnings.warn("after", UserWarning)
    assert len(caught) == 1


def test_the_filters_in_force_still_apply_to_warnings_no_handler_takes():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        with ignoring(RuntimeWarning), pytest.raises(UserWarning, match="still an error"):
            warnings.warn("still an error", UserWarning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", UserWarning)
        with ignoring(RuntimeWarning):
            warnings.warn("still ignored", UserWarning)
    assert caught == []


def test_recorded_warnings_are_reissued_once_each_with_a_label():
    with record_warnings() as log:
        warnings.warn("a", UserWarning)
        warnings.warn("a", UserWarning)
        warnings.warn("b", RuntimeWarning)
    assert log == [(UserWarning, "a"), (UserWarning, "a"), (RuntimeWarning, "b")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reissue_warnings(log, "fold 2")
    assert [(w.category, str(w.message)) for w in caught] == [
        (UserWarning, "fold 2: a"), (RuntimeWarning, "fold 2: b")]
    assert all(w.filename == __file__ for w in caught)
