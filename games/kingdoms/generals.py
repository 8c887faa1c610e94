"""The generals a player may choose, and the skills they grant.

A skill is a set of trigger handlers on the game's timings (engine Skill),
declared once by name in a skills module: skills_phases.py (the turn's
phases), skills_judgements.py (judging), skills_cards.py (using cards,
damage, dying). A player holds skill names in the state (granted when the
generals are shown), so skills survive checkpoints and replay. Handlers run
for every holder; each checks that the event concerns its holder. Skills
are used whenever they apply, except Demonic Talent, which asks its holder
for a card.

There are 17 generals: offers never overlap (flow.py), and a table of 8
offers the lord 3 and each of the 7 others 2."""

from __future__ import annotations

from dataclasses import dataclass

from tablehost.games.engine.plugin import Skill
from tablehost.games.kingdoms import machine, skills_cards, skills_judgements, skills_phases


@dataclass(frozen=True, slots=True)
class General:
    name: str
    health: int
    skills: tuple[str, ...]
    text: str


SKILLS: tuple[Skill, ...] = (*skills_phases.SKILLS, *skills_judgements.SKILLS, *skills_cards.SKILLS)

GENERALS: dict[str, General] = {general.name: general for general in (
    General("Zhou Yu", 3, ("handsome",), "Handsome: draw one more card in your draw phase."),
    General("Zhen Ji", 3, ("goddess_luo",),
            "Goddess Luo: at the start of your start phase, judge; keep each black card and judge again."),
    General("Cao Cao", 4, ("villainous_hero",), "Villainous Hero: when damaged, take the card that damaged you."),
    General("Xiahou Dun", 4, ("unyielding",),
            "Unyielding: when someone damages you, judge; unless a heart, they take 1 damage."),
    General("Sima Yi", 3, ("demonic_talent",),
            "Demonic Talent: before a judgement takes effect, you may replace it with a card from your hand."),
    General("Guo Jia", 3, ("envy_of_heaven",), "Envy of Heaven: take your judgement cards into your hand."),
    General("Lü Meng", 4, ("self_restraint",),
            "Self-Restraint: if you used no Slash this turn, skip your discard phase."),
    General("Zhang Liao", 4, ("surprise_raid",),
            "Surprise Raid: skip your draw phase to take a random hand card from up to two other players."),
    General("Huang Yueying", 3, ("wisdom",), "Wisdom: draw a card whenever you use a non-delayed trick."),
    General("Cao Ren", 4, ("fortify",),
            "Fortify: at the start of your finish phase, if wounded, draw three cards and turn face down."),
    General("Pang Tong", 3, ("nirvana",),
            "Nirvana: the first time nobody saves you from dying, rest instead: lose your cards, sit out your "
            "next turn and come back at the one after with full health."),
    General("Diao Chan", 3, ("close_moon",), "Close Moon: at the start of your finish phase, draw a card."),
    General("Lu Xun", 3, ("continuous_victory",),
            "Continuous Victory: whenever you use the last card in your hand, draw a card."),
    General("Xun Yu", 3, ("integrity",),
            "Integrity: when damaged, draw until you hold as many cards as your maximum health."),
    General("Sun Ce", 4, ("exaltation",),
            "Exaltation: whenever you use a Duel or a red Slash, or are its target, draw a card."),
    General("Wei Yan", 4, ("wild_bones",),
            "Wild Bones: whenever you damage a player at distance 1, heal 1."),
    General("Zhang He", 4, ("adaptable",),
            "Adaptable: when your play phase would be skipped, discard a random hand card to take it anyway."),
)}

FRAMES: dict[str, machine.FrameSteps] = dict(skills_judgements.FRAMES)
