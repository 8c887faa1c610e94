"""What a table has published, per viewer: each viewer's view as last sent
(encoded once, with its hash), the seq and hash its views start at, and
every change since this incarnation of the table began. From it a stream is
sent what it missed (or a snapshot when the log does not reach back that
far) and an ack is checked against the hash the viewer had at that seq.

A viewer is a seat, or the spectators (-1): the spectators' view is kept
only while someone watches, since nobody needs it otherwise."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tablehost.games.engine.views import EncodedView, View, delta_bytes, encode_view


@dataclass(frozen=True, slots=True)
class Change:
    """One published change: per viewer, the delta bytes and the hash after it."""

    seq: int
    act_id: str
    automatic: bool
    deltas: dict[int, tuple[bytes, str]]


class ViewLog:
    def __init__(self, seq: int, views: Mapping[int, View]) -> None:
        # The seq published (and durable): every viewer's view is at it.
        self.seq = seq
        self.viewers: list[int] = list(views)
        self._views: dict[int, EncodedView] = {viewer: encode_view(view) for viewer, view in views.items()}
        # Per viewer, the seq its views start at and the hash there.
        self._base: dict[int, tuple[int, str]] = {v: (seq, view.hash) for v, view in self._views.items()}
        # _changes[i] is seq _first + i + 1 (a resumed table has none before it).
        self._changes: list[Change] = []
        self._first = seq

    def current(self, viewer: int) -> EncodedView:
        return self._views[viewer]

    def shows(self, viewer: int) -> bool:
        """Whether the viewer's view is being published (it has one now)."""
        return viewer in self._views

    def want(self, viewer: int) -> None:
        """Publish this viewer's view from the next change on."""
        if viewer not in self.viewers:
            self.viewers.append(viewer)

    def start(self, viewer: int, view: View) -> None:
        """The viewer's view from now on, without a change: its views start here."""
        encoded = self._views[viewer] = encode_view(view)
        self._base[viewer] = (self.seq, encoded.hash)

    def stop(self, viewer: int) -> None:
        if viewer in self.viewers:
            self.viewers.remove(viewer)
        self._views.pop(viewer, None)
        self._base.pop(viewer, None)

    def publish(self, act_id: str, automatic: bool, views: Mapping[int, View]) -> Change:
        """The next change: each viewer's new view, encoded (what several views
        share, once) and diffed against its last. A viewer seen for the first
        time starts here, with no delta: its watchers get a snapshot."""
        self.seq += 1
        deltas: dict[int, tuple[bytes, str]] = {}
        shared: dict[int, bytes] = {}
        for viewer, view in views.items():
            encoded = encode_view(view, shared)
            old = self._views.get(viewer)
            if old is None:
                self._base[viewer] = (self.seq, encoded.hash)
            else:
                deltas[viewer] = (delta_bytes(old, encoded), encoded.hash)
            self._views[viewer] = encoded
        change = Change(self.seq, act_id, automatic, deltas)
        self._changes.append(change)
        return change

    def since(self, viewer: int, last_seq: int, at_most: int) -> list[Change] | None:
        """The changes after `last_seq` for a viewer that holds it, or None
        when a snapshot must be sent instead: a seq the log does not reach
        back to, or one ahead of the table, or more than `at_most` behind."""
        if self._base[viewer][0] < last_seq <= self.seq and self.seq - last_seq <= at_most:
            return self._changes[last_seq - self._first:]
        return None

    def hash_at(self, viewer: int, seq: int) -> str | None:
        """The hash of the viewer's view at `seq`, or None for a seq from
        before its views were kept."""
        base_seq, base_hash = self._base[viewer]
        if seq == self.seq:
            return self._views[viewer].hash
        if seq == base_seq:
            return base_hash
        if base_seq < seq < self.seq:
            return self._changes[seq - 1 - self._first].deltas[viewer][1]
        return None
