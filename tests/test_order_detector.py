"""The order detector on its labelled set (tests/fixtures/orders, read its README): no
real lesson held back, and the planted orders of phrasings it was not fitted on caught."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "orders"))
import measure


def test_no_real_lesson_reads_as_an_order_and_held_out_orders_are_caught() -> None:
    held = measure.figures()["held-out"]
    assert held["lessons"] >= 400  # ours alone, when the workplace corpus is absent
    assert held["flagged"] <= held["lessons"] // 400  # at most 0.25%; 0 when measured
    assert held["caught"] >= 0.85 * held["orders"]  # 98% when measured


def test_the_hard_lessons_written_after_the_patterns_stay_lessons_and_the_fitted_orders_are_caught() -> None:
    fitted, unseen = measure.late("late.jsonl"), measure.late("late2.jsonl")
    assert fitted["caught"] == fitted["orders"] == 20 and fitted["flagged"] == 0
    assert unseen["flagged"] <= 2  # 0 of 20 when measured
    assert unseen["caught"] >= 3  # 4 of 20 when measured, the patterns never fitted to it
