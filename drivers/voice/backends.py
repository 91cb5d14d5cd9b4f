"""The speaker's backends by name, as the config will pick them.

- ``"alsa"``: eSpeak NG streamed to ``aplay`` on an ALSA device (the device);
- ``"sim"``: eSpeak NG run inline, each phrase's words and sound recorded (the simulator, tests);
  without the engine, words only;
- ``"print"``: each phrase as a line of text.

Where ``"alsa"`` is asked for but ``espeak-ng`` or ``aplay`` is not installed (a laptop), the
speaker prints instead and :func:`open_speaker` says why in its second value.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable

from drivers.voice import StatusHandler, Voice
from drivers.voice import espeak as engine
from drivers.voice.alsa import PROGRAM as APLAY
from drivers.voice.alsa import AplayPlayer
from drivers.voice.cache import SoundCache
from drivers.voice.printing import PrintPlayer
from drivers.voice.sim import Recorded, RecordingPlayer
from drivers.voice.speaker import Speaker

KINDS = ("alsa", "sim", "print")


def open_speaker(
    kind: str = "alsa",
    *,
    device: str = "default",
    voice: Voice | None = None,
    on_status: StatusHandler | None = None,
    line: Callable[[str], None] | None = None,
    on_said: Callable[[Recorded], None] | None = None,
    cache_bytes: int | None = None,
) -> tuple[Speaker, str | None]:
    """A speaker of ``kind`` and, when it had to fall back to printing, why.

    ``device`` is the ALSA device (``"alsa"``); ``line`` shows printed phrases (``"print"`` and the
    fall-back); ``on_said`` hears of each recorded phrase (``"sim"``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown speaker {kind!r} (known: {', '.join(KINDS)})")
    cache = SoundCache() if cache_bytes is None else SoundCache(cache_bytes)
    fallback = None
    if kind == "alsa":
        missing = [p for p in (engine.PROGRAM, APLAY) if shutil.which(p) is None]
        if not missing:
            return Speaker(AplayPlayer(device), engine.Espeak(), voice, cache=cache, on_status=on_status), None
        fallback = f"{' and '.join(missing)} not installed: the words are printed"
        kind = "print"
    if kind == "sim":
        renderer = engine.EspeakInline() if engine.available() else None
        return Speaker(RecordingPlayer(on_said), renderer, voice, cache=cache, on_status=on_status), None
    return Speaker(PrintPlayer(line), None, voice, cache=cache, on_status=on_status), fallback
