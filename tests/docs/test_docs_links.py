"""The README is a user guide that stays short, and every page it and docs/ link to is there: each
relative link (and picture) resolves to a file of the checkout, each ``#anchor`` to a heading of
its page, and none sends a reader outside the project."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
    return [a or b for a, b in LINK.findall(text)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves_to_a_file_and_a_heading_of_the_checkout(page):
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not ours to check here
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        inside = where.exists() and (where == ROOT or ROOT in where.parents)
        if not inside or (anchor and where.suffix == ".md" and anchor not in anchors(where)):
            broken.append(target)
    assert broken == []


def test_the_readme_is_a_short_guide_that_stays_inside_the_project():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 400
    assert "../shared" not in text
    assert all("../shared" not in p.read_text(encoding="utf-8") for p in PAGES)


def test_the_slug_is_githubs():
    assert slug("The benchmarks: `tablemate bench NAME`") == "the-benchmarks-tablemate-bench-name"
    assert slug("The panels' bus bytes") == "the-panels-bus-bytes"
