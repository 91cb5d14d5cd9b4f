"""The voice's speaker: the programs it runs, a sound card to play on, and the service's right to it."""

from __future__ import annotations

import re

from drivers.voice.alsa import PROGRAM as PLAYER
from drivers.voice.espeak import PROGRAM as ENGINE
from firmware_host.core.config import Config
from firmware_host.ops.doctor.base import FAIL, OK, SKIP, Result
from firmware_host.ops.doctor.system import System

PROGRAMS = (ENGINE, PLAYER)
"""What the ALSA speaker runs (Debian's ``espeak-ng`` and ``alsa-utils``)."""
BIN_DIRS = ("/usr/bin", "/bin", "/usr/local/bin")
AMPLIFIER_CARDS = {"max98357a": "MAX98357A"}
"""The ALSA card each ``[audio] amplifier`` makes (its overlay's ``simple-audio-card,name``)."""
_CARD = re.compile(r"^\s*\d+\s+\[(\S+)\s*\]", re.MULTILINE)


def sound_cards(system: System) -> list[str]:
    """The ALSA cards' ids, as ``/proc/asound/cards`` lists them (``aplay -l`` shows the same)."""
    listed = system.path("/proc/asound/cards")
    try:
        return _CARD.findall(listed.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []


def check_voice(config: Config, system: System) -> Result:
    """With the voice on: eSpeak NG and ``aplay`` installed, the amplifier's card (or any card for
    a USB speaker), and the service in the ``audio`` group that owns ``/dev/snd``."""
    v = config["voice"]
    if not v["enabled"]:
        return Result("voice", SKIP, "voice off")
    if v["speaker"] != "alsa":
        return Result("voice", SKIP, f"speaker {v['speaker']}")
    missing = [p for p in PROGRAMS if not any(system.path(f"{d}/{p}").exists() for d in BIN_DIRS)]
    if missing:
        return Result(
            "voice",
            FAIL,
            f"{' and '.join(missing)} not installed: the words are printed, not said",
            "sudo apt install espeak-ng alsa-utils",
        )
    cards = sound_cards(system)
    amplifier = config["audio"]["amplifier"]
    wanted = AMPLIFIER_CARDS.get(amplifier)
    if wanted and wanted not in cards:
        return Result(
            "voice",
            FAIL,
            f"[audio] amplifier {amplifier!r} but no {wanted} sound card"
            + (f" (cards: {', '.join(cards)})" if cards else ""),
            "load its overlay as hardware/wiring.md says (the SD-card image: dtoverlay=tablemate-max98357a in "
            "/etc/default/raspi-firmware-custom, on a 3B, 3B+ or Zero 2 W; Raspberry Pi OS: sudo tablemate "
            "install), then reboot",
        )
    if not cards:
        return Result(
            "voice",
            FAIL,
            "no sound card",
            "plug in a USB speaker (aplay -l names it), or wire an amplifier and set [audio] amplifier",
        )
    groups = system.user_groups(system.user)
    if groups is not None and "audio" not in groups:
        return Result(
            "voice",
            FAIL,
            f"{system.user} is not in the audio group (/dev/snd)",
            f"sudo usermod -aG audio {system.user}",
        )
    return Result("voice", OK, f"{', '.join(cards)}; plays on {v['device']}")
