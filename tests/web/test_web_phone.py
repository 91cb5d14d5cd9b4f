"""Pairing a phone from the OLED: Main menu → Phone shows a QR code of the page with a one-time
code; Settings → Phones forgets them all."""

from __future__ import annotations

import asyncio
import contextlib

import aiohttp
import segno

from firmware_host.core.pairing import CODE_SECONDS
from firmware_host.core.validators import CODE_DIGITS
from firmware_host.ui.phone import MODULE_PX, SQUARE, TEXT_PX, PhoneScreen, qr_image, qr_link
from firmware_host.web.guards.budget import PAGE_BURST, PAGE_RATE
from tests.devicekit import presses, run_device, screen
from tests.webkit import page


def test_the_qr_code_is_a_small_version_that_fits_the_panel_with_its_quiet_zone():
    link = qr_link("http://192.168.178.123:8080/pair?code=123456789012")
    assert link == "HTTP://192.168.178.123:8080/P/123456789012"
    qr = segno.make(link, error="l", micro=False)
    assert qr.version == 2
    img = qr_image(link)
    size = qr.symbol_size(scale=1, border=0)[0]
    quiet = (SQUARE - size * MODULE_PX) // 2
    assert quiet >= 2 * MODULE_PX  # at least two modules of lit margin round the code
    drawn = [
        [img.getpixel((quiet + x * MODULE_PX, quiet + y * MODULE_PX)) == 0 for x in range(size)] for y in range(size)
    ]
    assert drawn == [[bool(m) for m in row] for row in qr.matrix_iter(scale=1, border=0)]


def _on_phone_screen(dev) -> PhoneScreen:
    screen_ = dev.screens[-1]
    assert isinstance(screen_, PhoneScreen)
    return screen_


def test_the_phone_screen_pairs_the_phone_that_sends_its_code_then_settings_forget_it(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            await presses(dev, "prev", "ok")  # Main menu: Phone is the last line
            offer = _on_phone_screen(dev).offer
            await dev.flush()
            shown = dev.display.shown.copy()
            assert offer[0] == f"{base}/pair?code={offer[1]}"
            code = offer[1]
            async with session.post(f"{base}/api/pair", json={"code": code}, headers={"Origin": base}) as r:
                assert r.status == 200
            h = {"Origin": base}
            async with session.post(f"{base}/api/names", json={"p3": "Cy"}, headers=h) as r:
                named = r.status
            await presses(dev, "back", "prev", "prev", "ok")  # Settings (two lines above Phone)
            await presses(dev, "next", "next", "next", "next", "ok")  # Phones: forget all?
            await presses(dev, "ok")  # yes
            async with session.post(f"{base}/api/names", json={"p3": "Dee"}, headers=h) as r:
                after = r.status
            return shown, code, named, after, dev.seat_name("p3"), await screen(dev)

    shown, code, named, after, name, text = run_device(tmp_path, body)
    assert shown.size == (128, 64) and shown.getpixel((10, 10)) in (0, 1)
    assert len(code) == 12 and code.isdigit()
    assert (named, after, name) == (200, 403, "Cy")
    assert "Phones" in text


def test_without_the_page_the_phone_screen_says_how_to_turn_it_on(tmp_path):
    async def body(dev):
        await presses(dev, "prev", "ok")
        return await screen(dev)

    assert "[web] enabled" in run_device(tmp_path, body)


def test_leaving_the_phone_screen_voids_its_code(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            await presses(dev, "prev", "ok")
            code = _on_phone_screen(dev).offer[1]
            await presses(dev, "back")
            async with session.post(f"{base}/api/pair", json={"code": code}, headers={"Origin": base}) as r:
                return r.status

    assert run_device(tmp_path, body) == 403


async def _jam(base: str, source: str, until: float, counts: dict[str, int]) -> None:
    """One address sending wrong codes as fast as it is answered."""
    connector = aiohttp.TCPConnector(local_addr=(source, 0))
    async with aiohttp.ClientSession(connector=connector) as session:
        loop = asyncio.get_running_loop()
        while loop.time() < until:
            with contextlib.suppress(aiohttp.ClientError):
                async with session.post(f"{base}/api/pair", json={"code": "9" * 12}, headers={"Origin": base}) as r:
                    counts[str(r.status)] = counts.get(str(r.status), 0) + 1


def test_a_jammer_sending_wrong_codes_from_many_addresses_does_not_stop_the_person_at_the_table(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            loop = asyncio.get_running_loop()
            counts: dict[str, int] = {}
            jammers = [
                asyncio.create_task(_jam(base, f"127.0.0.{2 + i}", loop.time() + 6.0, counts)) for i in range(20)
            ]
            await asyncio.sleep(1.0)
            await presses(dev, "prev", "ok")  # the code appears
            appeared = loop.time()
            code = _on_phone_screen(dev).offer[1]
            await asyncio.sleep(1.0)  # the person types it
            async with session.post(f"{base}/api/pair", json={"code": code}, headers={"Origin": base}) as r:
                status, took = r.status, loop.time() - appeared
            await asyncio.gather(*jammers)
            return status, took, counts

    status, took, counts = run_device(tmp_path, body)
    assert status == 200 and took <= 30.0
    assert counts.get("403", 0) + counts.get("429", 0) >= 100  # the jammer was busy all along


def test_guessing_for_an_hour_at_the_whole_page_rate_finds_the_code_less_than_once_in_a_million():
    guesses_an_hour = PAGE_RATE * 3600 + PAGE_BURST
    assert guesses_an_hour / 10**CODE_DIGITS < 1e-6


def test_the_screen_says_when_its_code_is_void_in_the_tables_language_and_shows_no_qr(tmp_path):
    async def body(dev):
        dev.change_setting("language", "de")
        async with page(dev):
            await presses(dev, "prev", "ok")
            fresh = _on_phone_screen(dev).lines()
            await asyncio.sleep(CODE_SECONDS + 1)
            await dev.flush()
            void = _on_phone_screen(dev).lines()
            text = await screen(dev)
            picture = dev.display.shown.copy()
        return fresh, void, text, picture

    fresh, void, text, picture = run_device(tmp_path, body)
    assert "QR oder" in fresh and "back: Ende" in fresh
    assert "verfallen." in " ".join(void) and "verfallen." in text
    assert all(picture.getpixel((x, 32)) == 0 for x in range(SQUARE))  # no QR of a void code
    from luma.core.legacy import textsize
    from luma.core.legacy.font import LCD_FONT, proportional

    assert all(textsize(line, font=proportional(LCD_FONT))[0] <= TEXT_PX for line in fresh + void)
