"""The health part on its own (the saving part, the screens with a luma dummy panel, the tower's
signals, the scale and timer services real): the title bar's marks and the self-test's lines."""

from __future__ import annotations

import asyncio

from PIL import Image

from firmware_host.runtime.vtime import run_virtual
from tests.partkit import lower, turn


def health(tmp_path):
    parts = lower(tmp_path)
    return parts, parts.hub.lookup("health")  # as the device built and set it up


def test_an_unplugged_tower_is_said_once_and_marked_in_the_title_until_it_is_back(tmp_path):
    async def main():
        parts, part = health(tmp_path)
        before = part.title_note()
        part.on_tower("lost", "USB gone")
        said = parts.message.toast_text()
        part.on_tower("lost", "still gone")
        lost = part.title_note()
        part.on_tower("ok", None)
        return before, said, lost, part.title_note()

    assert run_virtual(main) == ("", "Tower unplugged", "T!", "")


def test_a_lost_speaker_is_said_once_and_marked_in_the_title_until_it_answers(tmp_path):
    from firmware_host.runtime.events import SpeakerStatus

    async def main():
        parts, part = health(tmp_path)
        parts.hub.publish(SpeakerStatus("lost", "aplay: audio open error"))
        said = parts.message.toast_text()
        parts.hub.publish(SpeakerStatus("lost", "still gone"))
        lost = part.title_note()
        parts.hub.publish(SpeakerStatus("ok"))
        return said, lost, part.title_note()

    assert run_virtual(main) == ("Speaker lost", "V!", "")


def test_a_failed_save_marks_the_title_until_one_succeeds(tmp_path):
    async def main():
        parts, part = health(tmp_path)
        parts.saving.storage_fault = "Cannot save: disk full"
        return part.title_note()

    assert run_virtual(main) == "F!"


def test_the_self_test_names_the_scale_the_tower_and_the_display(tmp_path):
    async def main():
        parts, part = health(tmp_path)
        task = asyncio.create_task(parts.screens.display.run())
        parts.screens.display.show(Image.new("1", (128, 64)))
        await parts.screens.display.flush()
        lines = [str(line) for line in part.parts()]
        task.cancel()
        return lines

    scale, tower, display = run_virtual(main)
    assert "Tower" in tower and display == "Display ok"
    assert scale


def test_the_doctors_checks_run_once_off_the_loop_and_show_when_done(tmp_path):
    async def main():
        _, part = health(tmp_path)
        first = part.checks()
        for _ in range(50):
            await turn()
            if part.checks() is not None:
                break
        return first, part.checks()

    first, lines = run_virtual(main)
    assert first is None
    assert lines and all(isinstance(line, str) for line in lines)
