"""The scoreboard as a TV, a tablet and a phone show it: six players with 12-character names, every
score inside the viewport and no element over another (Debian's Chromium, Playwright by path)."""

from __future__ import annotations

import pytest
from browserkit import LiveTable, playwright_ready
from test_web_browser import chromium  # noqa: F401  (the same browser fixture)

pytestmark = pytest.mark.skipif(not playwright_ready(), reason="needs pip playwright and Debian's chromium")

NAMES = ["Annemarie-Lu", "Bartholomeus", "Christabella", "Dorotheaanne", "Evangelinaaa", "Fridolinxxxx"]
BOXES = """() => [...document.querySelectorAll('.player')].map((card) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {card: box(card), name: box(card.querySelector('.name')), score: box(card.querySelector('.score')),
          nameFits: card.querySelector('.name').scrollWidth <= card.querySelector('.name').clientWidth + 1};
})"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def _inside(a: list[float], b: list[float]) -> bool:
    return a[0] >= b[0] - 0.5 and a[1] >= b[1] - 0.5 and a[2] <= b[2] + 0.5 and a[3] <= b[3] + 0.5


@pytest.mark.parametrize("size", [(1920, 1080), (1024, 768), (390, 844)])
def test_six_long_names_every_score_visible_and_nothing_overlapping(tmp_path, chromium, size):  # noqa: F811
    width, height = size
    with LiveTable(tmp_path) as table:
        table.call(lambda: table.device.start_named("trottel", NAMES))
        page = chromium.new_page(viewport={"width": width, "height": height}, bypass_csp=True)
        page.goto(table.url + "/")
        page.wait_for_selector(f".player[data-name='{NAMES[-1]}']")
        cards = page.evaluate(BOXES)
        page.close()
    viewport = [0, 0, width, height]
    assert len(cards) == 6
    for i, c in enumerate(cards):
        assert _inside(c["score"], viewport), (size, i, c)  # every score on screen, no scrolling
        assert _inside(c["name"], c["card"]) and _inside(c["score"], c["card"])
        assert not _overlap(c["name"], c["score"]) and c["nameFits"]
        for other in cards[i + 1 :]:
            assert not _overlap(c["card"], other["card"])
