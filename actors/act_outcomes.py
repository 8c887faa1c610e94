"""The first outcome of each act_id a seat sent: the seq that applied it, or
its rejection, so a repeated act_id is answered as the first was and never
applied twice. Accepted act_ids are kept for the table's life (a checkpoint
carries them, so a resumed table still knows them); rejections only the
newest REMEMBERED_REJECTIONS_PER_SEAT per seat, a repeat of an older one
being judged again."""

from __future__ import annotations

from collections import deque

from tablehost.actors.outbound import RejectionOut

REMEMBERED_REJECTIONS_PER_SEAT = 64

Outcome = int | RejectionOut


class ActOutcomes:
    def __init__(self) -> None:
        self._outcomes: dict[tuple[int, str], Outcome] = {}
        # Per seat, the act_ids whose rejection is remembered, oldest first.
        self._rejected: dict[int, deque[str]] = {}

    def of(self, seat: int, act_id: str) -> Outcome | None:
        return self._outcomes.get((seat, act_id))

    def accepted(self, seat: int, act_id: str, seq: int) -> None:
        self._outcomes[(seat, act_id)] = seq

    def rejected(self, seat: int, act_id: str, rejection: RejectionOut) -> None:
        """Keep the rejection, unless the act_id already has an outcome; the
        seat's oldest remembered rejection beyond the bound is forgotten."""
        key = (seat, act_id)
        if key in self._outcomes:
            return
        self._outcomes[key] = rejection
        remembered = self._rejected.setdefault(seat, deque())
        remembered.append(act_id)
        if len(remembered) > REMEMBERED_REJECTIONS_PER_SEAT:
            forgotten = (seat, remembered.popleft())
            if isinstance(self._outcomes.get(forgotten), RejectionOut):
                del self._outcomes[forgotten]

    def accepted_plain(self) -> dict[str, int]:
        """The accepted act_ids as a checkpoint keeps them: "SEAT:ACT_ID" -> seq."""
        return {f"{seat}:{act_id}": seq for (seat, act_id), seq in self._outcomes.items() if isinstance(seq, int)}

    @property
    def remembered_rejections(self) -> int:
        return sum(len(act_ids) for act_ids in self._rejected.values())
