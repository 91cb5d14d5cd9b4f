"""Pairing a phone from the OLED: Main menu → Phone shows a QR code of the page with a one-time
code; Settings → Phones forgets them all."""

from __future__ import annotations

import segno
from devicekit import presses, run_device, screen
from webkit import page

from firmware_host.ui.phone import MODULE_PX, SQUARE, PhoneScreen, qr_image, qr_link


def test_the_qr_code_is_a_small_version_that_fits_the_panel_with_its_quiet_zone():
    link = qr_link("http://192.168.178.123:8080/pair?code=123456")
    assert link == "HTTP://192.168.178.123:8080/P/123456"
    qr = segno.make(link, error="m", micro=False)
    assert qr.version in (2, 3)
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
    assert len(code) == 6 and code.isdigit()
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
