"""Ratings with openskill's Plackett-Luce model, which rates a table of any
size by finishing order, so a 2-seat game and a table of eight are one
model (a draw is two tied ranks). A rating is (mu, sigma); the ordinal
(mu - 3 sigma, openskill's conservative estimate) is what standings show
and what seeding and pairing order by.

A seat that did not show ranks last, below every seat that played, so a
no-show costs rating like a loss; a table where nobody showed rates no one
(there is nothing to learn from it)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from openskill.models import PlackettLuce

from tablehost.actors.tournament.records import GameRecord

Rating = tuple[float, float]  # (mu, sigma)


class Ratings:
    """One tournament's rating model (the model's defaults: mu 25, sigma 25/3)."""

    def __init__(self) -> None:
        self._model = PlackettLuce()

    @property
    def default(self) -> Rating:
        return (float(self._model.mu), float(self._model.sigma))

    def ordinal(self, rating: Rating) -> float:
        return float(self._model.rating(mu=rating[0], sigma=rating[1]).ordinal())

    def rate(self, current: Mapping[str, Rating], record: GameRecord) -> dict[str, Rating]:
        """The table's players' new ratings (empty when nobody showed)."""
        if all(record.forfeited):
            return {}
        last = max(record.ranks) + 1
        ranks = [float(last if gone else rank) for rank, gone in zip(record.ranks, record.forfeited)]
        teams = [[self._model.rating(mu=current[p][0], sigma=current[p][1])] for p in record.players]
        rated = self._model.rate(teams, ranks=ranks)
        return {player: (float(team[0].mu), float(team[0].sigma)) for player, team in zip(record.players, rated)}


def check_rating(rating: Rating) -> Rating:
    """A rating given at registration: two finite numbers, sigma above 0."""
    try:
        mu, sigma = (float(value) for value in rating)
    except (TypeError, ValueError):
        raise ValueError(f"a rating is (mu, sigma), not {rating!r}") from None
    if not (math.isfinite(mu) and math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"a rating is a finite mu and a finite sigma above 0, not ({mu}, {sigma})")
    return (mu, sigma)
