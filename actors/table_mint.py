"""What makes each new table its own: an id no table of this host had
before, and a secret seed for its deal."""

from __future__ import annotations

from tablehost.actors.matchmaking import Group
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.rng import Random


class TableMint:
    """Ids and seeds for the tables a lobby opens. A fixed seed derives each
    table's seed from it (reproducible runs); a restarted lobby's ids carry
    `id_tag`, a tag of its incarnation, so none names a table an earlier
    incarnation dealt (still running, or finished and kept in the store)."""

    def __init__(self, run_id: str, rng: Random, seed: int, *, fixed_seed: bool, id_tag: str) -> None:
        self._run_id = run_id
        self._rng = rng
        self._seed = seed
        self._fixed_seed = fixed_seed
        self._id_tag = id_tag
        self._counter = 0

    def table_id(self, game: str) -> str:
        self._counter += 1
        # The run keeps a restarted host (same seed, same secret) from dealing
        # an id an old seat token names.
        run = self._run_id
        return f"{game}-{run + '-' if run else ''}{self._id_tag}{self._counter}-{self._rng.next_u64() & 0xFFFFFF:06x}"

    def seed_for(self, group: Group) -> TableSeed:
        """A secret the players can check once the game is over: from the
        operating system's CSPRNG (the lobby's own PRNG is SplitMix64, whose
        every output gives its state away). A host started with a fixed seed
        derives it from that seed and the players' tickets instead, so the
        same players are dealt the same table whatever else the host did
        before: reproducible runs and tests, which promise players nothing."""
        if self._fixed_seed:
            tickets = "\n".join(sorted(entrant.ticket for entrant in group.entrants))
            return TableSeed.derived(self._seed.to_bytes(8, "big"), f"table of {tickets}")
        return TableSeed.new()
