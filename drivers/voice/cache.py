"""Phrases already said, kept as sound: bounded by bytes, the least recently said dropped first.

A key is the voice (language, rate, pitch, amplitude) and the exact text, so a change of voice or
of a single word makes a new sound, and a turn announced again costs no engine run. At eSpeak NG's
22,050 16-bit samples a second a phrase is about 44 kB a second of speech: the default 2 MiB keeps
roughly 45 seconds of the evening's most recent phrases.
"""

from __future__ import annotations

from collections import OrderedDict

from drivers.voice import Voice

DEFAULT_BYTES = 2 * 1024 * 1024

Key = tuple[Voice, str]


class SoundCache:
    """WAV sounds by (voice, text), at most ``max_bytes`` in all."""

    def __init__(self, max_bytes: int = DEFAULT_BYTES) -> None:
        if max_bytes < 0:
            raise ValueError("a cache needs max_bytes >= 0")
        self.max_bytes = max_bytes
        self.bytes = 0
        """The bytes held now."""
        self._sounds: OrderedDict[Key, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sounds)

    def get(self, voice: Voice, text: str) -> bytes | None:
        """The sound of ``text`` in ``voice`` if kept (it becomes the most recent), else ``None``."""
        sound = self._sounds.get((voice, text))
        if sound is not None:
            self._sounds.move_to_end((voice, text))
        return sound

    def put(self, voice: Voice, text: str, sound: bytes) -> None:
        """Keep ``sound``, dropping the least recently used sounds to stay within the bound; a
        sound larger than the whole bound is not kept."""
        key = (voice, text)
        old = self._sounds.pop(key, None)
        if old is not None:
            self.bytes -= len(old)
        if len(sound) > self.max_bytes:
            return
        self._sounds[key] = sound
        self.bytes += len(sound)
        while self.bytes > self.max_bytes:
            _, dropped = self._sounds.popitem(last=False)
            self.bytes -= len(dropped)

    def clear(self) -> None:
        """Forget every sound."""
        self._sounds.clear()
        self.bytes = 0
