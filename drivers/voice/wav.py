"""The few things the speaker needs of a WAV stream: its samples, its length, a true header.

eSpeak NG's ``--stdout`` writes a canonical 44-byte header (``RIFF``, ``fmt `` of 16 bytes,
``data``) before it knows the length, so both sizes in it say "about 2 GiB"; ``aplay`` plays such
a stream to its end, but a file kept or written out needs the real sizes (:func:`sealed`).
"""

from __future__ import annotations

import struct

RATE = 22050
"""eSpeak NG's sample rate (Hz); its output is 16-bit mono."""


def header(data_bytes: int, rate: int = RATE, channels: int = 1, bits: int = 16) -> bytes:
    """A canonical PCM WAV header for ``data_bytes`` of samples."""
    block = channels * bits // 8
    return (
        b"RIFF"
        + struct.pack("<I", 36 + data_bytes)
        + b"WAVEfmt "
        + struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * block, block, bits)
        + b"data"
        + struct.pack("<I", data_bytes)
    )


def silence(seconds: float, rate: int = RATE) -> bytes:
    """A WAV of ``seconds`` of 16-bit mono silence."""
    n = int(seconds * rate) * 2
    return header(n, rate) + bytes(n)


def _chunks(wav: bytes) -> tuple[tuple[int, int, int, int], int]:
    """``(channels, rate, byte_rate, bits)`` from ``fmt `` and the offset of the samples."""
    if len(wav) < 12 or wav[:4] != b"RIFF" or wav[8:12] != b"WAVE":
        raise ValueError("not a RIFF WAVE stream")
    at, fmt = 12, None
    while at + 8 <= len(wav):
        tag, size = wav[at : at + 4], struct.unpack_from("<I", wav, at + 4)[0]
        if tag == b"fmt " and at + 24 <= len(wav):
            _, channels, rate, byte_rate, _, bits = struct.unpack_from("<HHIIHH", wav, at + 8)
            fmt = (channels, rate, byte_rate, bits)
        elif tag == b"data":
            if fmt is None:
                raise ValueError("WAV samples before their format")
            return fmt, at + 8
        at += 8 + size + (size & 1)
    raise ValueError("WAV stream without samples")


def samples(wav: bytes) -> bytes:
    """The sample bytes of a WAV stream (to its end, whatever its header claims)."""
    return wav[_chunks(wav)[1] :]


def duration(wav: bytes) -> float:
    """How long a WAV stream sounds (seconds), from its samples and its format."""
    (_, _, byte_rate, _), at = _chunks(wav)
    return (len(wav) - at) / byte_rate if byte_rate else 0.0


def sealed(wav: bytes) -> bytes:
    """The same stream with a header that tells its true sizes (a file a player can seek in)."""
    (channels, rate, _, bits), at = _chunks(wav)
    return header(len(wav) - at, rate, channels, bits) + wav[at:]
