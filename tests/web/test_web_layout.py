"""The scoreboard as a TV, a tablet (both ways round) and a phone show it: six players with long
names, every score inside the viewport, no element over another, each name whole or shortened as
the panel shortens it and never broken; on a TV the cards take the height and the story lines read
from across the room (Debian's Chromium, Playwright by path)."""

from __future__ import annotations

import pytest
from browserkit import LiveTable, playwright_ready
from test_web_browser import chromium  # noqa: F401  (the same browser fixture)

pytestmark = pytest.mark.skipif(not playwright_ready(), reason="needs pip playwright and Debian's chromium")

NAMES = ["Annemarie-Lu", "Bartholomeus", "Christabella", "Dorotheaanne", "Evangelinaaa", "Fridolinxxxx"]
LONGEST = ["Christophoros-Alexis", "Christophoros-Andre", "Bartholomeus Gottlie", "Annemarie-Luisabeth", "Fridolin"]
BOXES = """() => [...document.querySelectorAll('.player')].map((card) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const name = card.querySelector('.name'), style = getComputedStyle(name);
  const lines = Math.round(name.getBoundingClientRect().height / parseFloat(style.lineHeight));
  return {card: box(card), name: box(name), score: box(card.querySelector('.score')),
          nameFits: name.scrollWidth <= name.clientWidth + 1, shown: name.textContent, lines: lines,
          nameSize: parseFloat(style.fontSize), whole: card.dataset.name};
})"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def _inside(a: list[float], b: list[float]) -> bool:
    return a[0] >= b[0] - 0.5 and a[1] >= b[1] - 0.5 and a[2] <= b[2] + 0.5 and a[3] <= b[3] + 0.5


@pytest.mark.parametrize("names", [NAMES, LONGEST])
@pytest.mark.parametrize("size", [(1920, 1080), (1024, 768), (768, 1024), (390, 844)])
def test_six_long_names_every_score_visible_and_nothing_overlapping(tmp_path, chromium, size, names):  # noqa: F811
    """Before, a portrait tablet broke "Christophe|r" mid-word, at the smallest type of any size."""
    width, height = size
    with LiveTable(tmp_path) as table:
        table.call(lambda: table.device.start_named("trottel", names))
        short = {p["name"]: p["short"] for p in table.call(lambda: table.device.snapshot())["players"]}
        page = chromium.new_page(viewport={"width": width, "height": height}, bypass_csp=True)
        page.goto(table.url + "/")
        page.wait_for_selector(f".player[data-name='{names[-1]}']")
        cards = page.evaluate(BOXES)
        page.close()
    viewport = [0, 0, width, height]
    assert len(cards) == len(names)
    for i, c in enumerate(cards):
        assert _inside(c["score"], viewport), (size, i, c)  # every score on screen, no scrolling
        assert _inside(c["name"], c["card"]) and _inside(c["score"], c["card"])
        assert not _overlap(c["name"], c["score"]) and c["nameFits"]
        assert c["shown"] in (c["whole"], short[c["whole"]]) and c["lines"] == 1, (size, c)  # whole, one line
        assert c["nameSize"] >= 20, (size, c)  # legible at arm's length
        for other in cards[i + 1 :]:
            assert not _overlap(c["card"], other["card"])


TV = """() => {
  const cards = [...document.querySelectorAll('.player')].map((c) => c.getBoundingClientRect());
  const line = document.querySelector('#lines li'), style = getComputedStyle(line);
  const rgb = style.color.match(/\\d+/g).map(Number);
  return {bottom: Math.max(...cards.map((r) => r.bottom)), top: Math.min(...cards.map((r) => r.top)),
          score: parseFloat(getComputedStyle(document.querySelector('.player .score')).fontSize),
          line: parseFloat(style.fontSize), grey: Math.min(...rgb), page: document.documentElement.scrollHeight};
}"""


def test_on_a_tv_the_scores_take_the_height_and_the_story_lines_read_from_across_the_room(tmp_path, chromium):  # noqa: F811
    """Before, the story lines under the cards were 25.6 px grey while half the screen stayed empty.
    At 3 m a 1080-line TV of 40-65 inches shows a 45 px line about 20-30 mm tall."""
    with LiveTable(tmp_path) as table:
        table.call(lambda: table.device.start_named("arschbombe", ["Ann", "Ben", "Cy", "Dee"]))
        for button in ("ok", "ok"):  # a jump: the story lines say what it brought
            table.press(button)
        page = chromium.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
        page.goto(table.url + "/")
        page.wait_for_selector("#lines li")
        tv = page.evaluate(TV)
        page.close()
    assert tv["page"] <= 1080  # no scrolling
    assert tv["bottom"] - tv["top"] >= 0.5 * 1080  # the cards take half the height and more
    assert tv["score"] >= 0.1 * 1080
    assert tv["line"] >= 40 and tv["grey"] >= 200  # near-white, not the dim grey of the small screens
