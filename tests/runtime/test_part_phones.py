"""The phones part on its own (a real store, the saving part and the screens real, a page that
serves at one address): pairing with the code on the panel, and the phone's time."""

from __future__ import annotations

import asyncio

from firmware_host.core.pairing import CODE_SECONDS
from firmware_host.runtime.vtime import run_virtual
from tests.partkit import lower, turn


class Page:
    """The companion page as the phones part sees it: its address."""

    def url(self) -> str:
        return "http://192.0.2.7:8080/"


def test_no_offer_while_the_page_does_not_serve(tmp_path):
    async def main():
        return lower(tmp_path).phones.phone_offer()

    assert run_virtual(main) is None


def test_the_code_on_offer_pairs_one_phone_which_is_kept_over_a_restart(tmp_path):
    async def main():
        parts = lower(tmp_path)
        phones = parts.phones
        phones.companion = Page()
        link, code = phones.phone_offer()
        wrong = phones.pair_phone("000000" if code != "000000" else "111111")
        token = phones.pair_phone(code)
        await turn()
        return (
            link,
            code,
            wrong,
            token,
            phones.phone_paired(token),
            phones.phone_code_void(),
            parts.message.toast_text(),
        )

    link, code, wrong, token, paired, void, said = run_virtual(main)
    assert link == f"http://192.0.2.7:8080/pair?code={code}"
    assert wrong is None and token and paired
    assert void  # used once: it pairs nobody else
    assert said == "Phone paired"
    assert (tmp_path / "phones.json").exists()

    async def later():
        return lower(tmp_path).phones.phone_paired(token)

    assert run_virtual(later) is True


def test_the_code_goes_void_when_it_expires_and_the_panel_is_redrawn_to_say_so(tmp_path):
    async def main():
        parts = lower(tmp_path)
        parts.phones.companion = Page()
        _, code = parts.phones.phone_offer()
        drawn = []
        parts.screens.watch(lambda: drawn.append(parts.phones.phone_code_void()))
        await asyncio.sleep(CODE_SECONDS + 1)
        return drawn, parts.phones.pair_phone(code)

    drawn, token = run_virtual(main)
    assert drawn == [True] and token is None


def test_a_phones_time_is_kept_as_an_offset_to_the_loops_clock_and_an_absurd_one_refused(tmp_path):
    async def main():
        phones = lower(tmp_path).phones
        absurd = phones.set_phone_time(5.0)
        ok = phones.set_phone_time(1_800_000_000.0)
        await asyncio.sleep(60)
        return absurd, ok, phones.clock.now(asyncio.get_running_loop().time())

    absurd, ok, now = run_virtual(main)
    assert absurd is False and ok is True
    assert now == 1_800_000_060.0
