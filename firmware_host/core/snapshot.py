"""Game states as plain JSON, for the journal's snapshots.

Engines are pure and their states plain data (dataclasses of lists, dicts, numbers, text and the
seeded :class:`~games.core.rng.Rng`), so a state can be written beside the actions and read back
instead of replaying every action from the first. The encoding is tagged JSON that gives back the
very same state: ``tuple``, ``set``, dicts with keys that are not plain text, translatable
:class:`~games.core.text.Text` and game dataclasses each keep their type. Only classes of the
``games`` package are ever rebuilt from a snapshot.

A snapshot is never trusted over the actions: it names the engine's code it was made by
(:func:`fingerprint`), and anything that does not decode, or was made by other code, is
ignored and the game replayed from its first action (:mod:`firmware_host.core.session`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import math
import sys
from functools import cache
from pathlib import Path
from typing import Any

from games.core.rng import Rng
from games.core.text import Joined, Text

__all__ = ["SnapshotError", "decode_state", "encode_state", "fingerprint", "same_state"]


class SnapshotError(ValueError):
    """A state that cannot be written as a snapshot, or a snapshot that cannot be read back."""


def encode_state(value: Any) -> Any:
    """``value`` as tagged plain JSON data (:func:`decode_state` gives it back)."""
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        if not math.isfinite(value):
            raise SnapshotError("a number that is not finite")
        return value
    if kind is list:
        return [encode_state(v) for v in value]
    if kind is dict:
        keys = list(value)
        if all(type(k) is str and not k.startswith("$") for k in keys) and keys == sorted(keys):
            return {k: encode_state(v) for k, v in value.items()}
        # keys that are not text, or not in sorted order: the journal sorts an object's keys, and
        # the order a dict was filled in can decide what an engine does (Antartik's bets)
        return {"$m": [[encode_state(k), encode_state(v)] for k, v in value.items()]}
    if kind is tuple:
        return {"$t": [encode_state(v) for v in value]}
    if kind in (set, frozenset):
        return {"$s" if kind is set else "$f": [encode_state(v) for v in sorted(value, key=repr)]}
    if kind is Text or kind is Joined:
        return {"$T" if kind is Text else "$J": value.msgid, "v": encode_state(dict(value.values))}
    if kind is Rng:
        return {"$r": value.state}
    if dataclasses.is_dataclass(value) and kind.__module__.split(".")[0] == "games":
        fields = {f.name: encode_state(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"$c": f"{kind.__module__}:{kind.__qualname__}", "f": fields}
    raise SnapshotError(f"a {kind.__name__} cannot be written in a snapshot")


def decode_state(data: Any) -> Any:
    """The value :func:`encode_state` made ``data`` of; :class:`SnapshotError` when it is not one."""
    try:
        return _decode(data)
    except SnapshotError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, ImportError, RecursionError) as exc:
        raise SnapshotError(f"snapshot unreadable: {type(exc).__name__}") from None


def _decode(data: Any) -> Any:
    kind = type(data)
    if data is None or kind in (bool, int, str, float):
        return data
    if kind is list:
        return [_decode(v) for v in data]
    if kind is not dict:
        raise SnapshotError(f"unexpected {kind.__name__} in a snapshot")
    tags = [k for k in data if k.startswith("$")]
    if not tags:
        return {k: _decode(v) for k, v in data.items()}
    tag = tags[0]
    body = data[tag]
    if tag == "$m":
        return {_decode(k): _decode(v) for k, v in body}
    if tag == "$t":
        return tuple(_decode(v) for v in body)
    if tag == "$s":
        return {_decode(v) for v in body}
    if tag == "$f":
        return frozenset(_decode(v) for v in body)
    if tag in ("$T", "$J"):
        values = _decode(data["v"])
        if type(body) is not str or type(values) is not dict:
            raise SnapshotError("a message in a snapshot is malformed")
        return (Text if tag == "$T" else Joined)(body, **values)
    if tag == "$r":
        if type(body) is not int:
            raise SnapshotError("a random generator in a snapshot is malformed")
        rng = Rng(0)
        rng.state = body
        return rng
    if tag == "$c":
        return _dataclass(body, data["f"])
    raise SnapshotError(f"unknown tag {tag} in a snapshot")


def _dataclass(name: Any, fields: Any) -> Any:
    if type(name) is not str or type(fields) is not dict:
        raise SnapshotError("a state in a snapshot is malformed")
    module, _, qualname = name.partition(":")
    if module.split(".")[0] != "games" or not qualname.isidentifier():
        raise SnapshotError(f"a snapshot names a class outside the games: {name}")
    cls = getattr(importlib.import_module(module), qualname)
    if not dataclasses.is_dataclass(cls):
        raise SnapshotError(f"{name} is not a state")
    known = {f.name: f for f in dataclasses.fields(cls)}
    if set(fields) != set(known):
        raise SnapshotError(f"{name}: the snapshot's fields are not the state's")
    values = {k: _decode(v) for k, v in fields.items()}
    obj = cls(**{k: v for k, v in values.items() if known[k].init})
    for k, v in values.items():
        if not known[k].init:
            object.__setattr__(obj, k, v)
    return obj


def same_state(a: Any, b: Any) -> bool:
    """Whether two states are the same as an engine sees them: every value, type and order (the
    order of a dict's keys, of a dataclass's fields), the generator by its value."""
    return type(a) is type(b) and json.dumps(encode_state(a)) == json.dumps(encode_state(b))


FORMAT = b"snapshot 2"
"""The encoding's own version, in every fingerprint: a snapshot of an older encoding (version 1
lost the order of a dict's keys) is not used."""


@cache
def fingerprint(engine_class: type) -> str:
    """A short digest of the code a game's states come from: its package and ``games.core``.

    A snapshot made by other code (the software was updated since) is not used.
    """
    digest = hashlib.sha256(FORMAT)
    folders = {Path(sys.modules[engine_class.__module__].__file__ or "").parent}
    folders.add(Path(sys.modules[Rng.__module__].__file__ or "").parent)
    for folder in sorted(folders):
        for path in sorted([*folder.glob("*.py"), *folder.glob("*.toml")]):
            digest.update(path.name.encode())
            try:
                digest.update(path.read_bytes())
            except OSError:
                digest.update(b"?")
    return digest.hexdigest()[:16]
