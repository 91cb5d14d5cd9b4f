"""The companion page's fixed part (the contract) on a simulated device: state, history, BG Stats
links, seat names only from a paired phone, and the one error envelope."""

from __future__ import annotations

import json

from firmware_host.web import bgstats
from tests.devicekit import run_device, screen
from tests.webkit import page, pair


def test_state_shows_the_game_in_play_with_names_and_scores(tmp_path):
    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben", "Cy"])
        async with page(dev) as (_, session, base):
            async with session.get(f"{base}/api/state") as r:
                state = await r.json()
            async with session.get(f"{base}/") as r:
                html = await r.text()
        return state, html

    state, html = run_device(tmp_path, body)
    assert [(p["name"], p["score"]) for p in state["players"]] == [("Ann", 3), ("Ben", 3), ("Cy", 3)]
    assert state["game"] == "bomb"
    assert "<html" in html


def test_state_is_the_game_resumed_from_the_state_folder(tmp_path):
    run_device(tmp_path, _start_bomb)

    async def body(dev):
        async with page(dev) as (_, session, base), session.get(f"{base}/api/state") as r:
            return await r.json()

    assert [p["name"] for p in run_device(tmp_path, body)["players"]] == ["Ann", "Ben", "Cy"]


async def _start_bomb(dev):
    dev.start_named("bomb", ["Ann", "Ben", "Cy"])


def test_names_need_a_paired_phone_and_its_origin_else_nothing_changes(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            answers = []
            for headers in ({}, {"Origin": base}, {"Origin": "http://evil.example"}):
                async with session.post(f"{base}/api/names", json={"p1": "Ann"}, headers=headers) as r:
                    answers.append((r.status, await r.json()))
            session.cookie_jar.update_cookies({"tablemate_phone": "ab" * 32})  # a forged token
            async with session.post(f"{base}/api/names", json={"p1": "Ann"}, headers={"Origin": base}) as r:
                answers.append((r.status, await r.json()))
            return answers, dev.seat_name("p1")

    answers, name = run_device(tmp_path, body)
    assert [status for status, _ in answers] == [403, 401, 403, 403]
    assert all(a["ok"] is False and a["result"]["error"] and a["result"]["error_msg"] for _, a in answers)
    assert name == "P1"


def test_names_from_a_paired_phone_show_on_the_oled_at_once_and_survive_a_restart(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            await pair(dev, session, base)
            names = {"p1": "Ann", "p2": "Ben"}
            async with session.post(f"{base}/api/names", json=names, headers={"Origin": base}) as r:
                assert r.status == 200, await r.text()
            return await screen(dev)

    shown = run_device(tmp_path, body)
    assert "Ann" in shown and "Ben" in shown

    async def after(dev):
        return dev.seat_name("p1"), dev.seat_name("p2"), dev.seat_name("p3")

    assert run_device(tmp_path, after) == ("Ann", "Ben", "P3")


def test_a_phone_cannot_pair_with_a_wrong_code_nor_reuse_one(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            code = dev.phone_offer()[1]
            wrong = "0" * 12 if code != "0" * 12 else "1" * 12
            statuses = []
            for sent in (wrong, code, code):
                async with session.post(f"{base}/api/pair", json={"code": sent}, headers={"Origin": base}) as r:
                    statuses.append(r.status)
            return statuses

    assert run_device(tmp_path, body) == [403, 200, 403]


def test_history_lists_finished_games_with_their_bgstats_link_and_play_file(tmp_path):
    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben", "Cy"])
        dev.end_early()
        async with page(dev) as (_, session, base):
            async with session.get(f"{base}/api/history") as r:
                games = (await r.json())["games"]
            async with session.get(f"{base}/api/history/{games[0]['id']}/bgstats") as r:
                link = await r.json()
            async with session.get(f"{base}/api/history.bgsplay") as r:
                playfile = json.loads(await r.text())
            async with session.get(f"{base}/api/history/nope/bgstats") as r:
                missing = r.status, await r.json()
            async with session.get(f"{base}/api/stats") as r:
                stats = await r.json()
        return games, link, playfile, missing, stats

    games, link, playfile, missing, stats = run_device(tmp_path, body)
    assert stats["plots"] == []  # a game ended early: nothing to plot, the page says so
    assert games[0]["game"] == "bomb" and games[0]["id"]
    assert link["url"].startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    assert [p["name"] for p in bgstats.parse_link(link["url"])["players"]] == ["Ann", "Ben", "Cy"]
    assert len(playfile["plays"]) == 1 and {p["name"] for p in playfile["players"]} == {"Ann", "Ben", "Cy"}
    assert missing[0] == 404 and missing[1]["result"]["error"] == "NotFoundError"


def test_bad_requests_get_the_one_error_envelope(tmp_path):
    async def body(dev):
        out = []
        async with page(dev) as (_, session, base):
            await pair(dev, session, base)
            h = {"Origin": base}
            for method, path, data in (
                ("POST", "/api/names", b"{not json"),
                ("POST", "/api/names", b"x" * 20_000),
                ("POST", "/api/names", json.dumps({"p9": "Ann"}).encode()),
                ("POST", "/api/names", json.dumps({"p1": "A" * 200}).encode()),
                ("POST", "/api/names", json.dumps({"p1": "Ann", "p2": "ann"}).encode()),
                ("POST", "/api/settings", json.dumps({"brightness": 999}).encode()),
                ("GET", "/api/history?game=chess", None),
                ("GET", "/nowhere", None),
                ("DELETE", "/api/state", None),
            ):
                async with session.request(method, base + path, data=data, headers=h) as r:
                    out.append((r.status, await r.json()))
        return out, dev.seat_name("p1")

    out, name = run_device(tmp_path, body)
    assert [s for s, _ in out] == [400, 413, 400, 400, 400, 400, 400, 404, 405]
    assert all(e["ok"] is False and e["result"]["error_msg"] for _, e in out)
    assert name == "P1"


def test_the_rules_read_on_a_phone_in_both_languages(tmp_path):
    async def body(dev):
        out = {}
        async with page(dev) as (_, session, base):
            for lang in ("en", "de"):
                async with session.get(f"{base}/api/rules?game=bomb&lang={lang}") as r:
                    out[lang] = await r.json()
            async with session.get(f"{base}/api/rules?game=bomb&lang=fr") as r:
                out["fr"] = r.status
        return out

    out = run_device(tmp_path, body)
    en, de = out["en"]["sections"], out["de"]["sections"]
    assert en and len(en) == len(de) and [s["key"] for s in en] == [s["key"] for s in de]
    assert en[0]["text"] != de[0]["text"] and all(s["title"] and s["text"] for s in en + de)
    assert out["fr"] == 400


def test_the_history_file_is_read_again_only_when_a_game_is_filed(tmp_path):
    async def body(dev):
        reads = []
        history = dev.store.history
        dev.store.history = lambda: reads.append(1) or history()
        counts = []
        async with page(dev) as (_, session, base):
            for round_ in range(2):
                dev.start_named("bomb", ["Ann", "Ben", "Cy"])
                dev.end_early()
                for _ in range(3):
                    async with session.get(f"{base}/api/history") as r:
                        counts.append(len((await r.json())["games"]))
                assert len(reads) == round_ + 1
        return counts

    assert run_device(tmp_path, body) == [1, 1, 1, 2, 2, 2]
