"""Attack benchmark: a room's memory, the host's logs and other tables' latency while
hostile clients flood it (hostbench/attacks.py).

    .venv/bin/python tests/benchmarks/bench_attacks.py [--quick] [--no-write] [--only KINDS] [--store none]

The bots' p99 is given beside the same bots' without the attack, measured on the same
host in the same run. A full run writes its section of docs/benchmarks.md; --quick
prints only. Loopback only, bounded in time, every process it starts ended by PID.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # hostbench, beside this script
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # Ray on loopback only

from hostbench import DOC, attacks, report  # noqa: E402
from hostbench.children import Budget, end_leftovers, raise_nofile_limit  # noqa: E402

SECTION = "## Under attack"
SEED = 20261203
COMMAND = "`.venv/bin/python tests/benchmarks/bench_attacks.py`"


# What an attack may cost the host at most, however long it lasts: a room's
# memory grows by its bounded buffers (the attackers' outboxes, 1 MiB each;
# 64 remembered rejections a seat), gRPC's for each stream waiting for its
# hello (at most 128 a room, some 16 KiB each), for each call the room has yet
# to pick up (at most 512, some 20 KiB each: 10 MiB) and for each connection
# the attackers hold open, with room to spare; its logs stay within their
# budget.
PSS_GROWTH_BOUND_MIB = 48.0
LOG_GROWTH_BOUND_MIB = 10.0


def _against(value: float, bound: float) -> str:
    return f"bound {bound:g} MiB: {'met' if value <= bound else 'NOT met'}"


def _ratio(value: float, base: float) -> str:
    return f"{value / max(base, 1e-9):.2f}x"


SET_TITLES = {
    "floods": "The floods: a slow reader with oversized act_ids, many streams of one seat, silent streams",
    "floods_and_rapid_reset": "The floods and the stream-opening flood (rapid reset) together",
}


def _set_table(name: str, calm: dict[str, Any], pss_before: float, r: dict[str, Any]) -> list[str]:
    control, attacked, attack = r["control"], r["attacked"], r["attack"]
    cores = r["host_cores"]

    def busy(run: str) -> str:
        return f"{sum(cores[run].values()):.2f} ({cores[run]['rooms']:.2f} rooms)"

    def machine(run: str) -> str:
        shares = r["machine_cpu"][run]
        return f"{shares['idle']:.0%} idle, {shares['kernel']:.0%} kernel"

    sent = [f"{attack['huge_act_ids']:,} commits with 60 KB act_ids" if "slow_reader" in r["kinds"] else "",
            f"{attack['seat_streams']:,} streams of one seat with {attack['refused_commits']:,} refused commits on them"
            if "many_streams" in r["kinds"] else "",
            f"{attack['opened_and_cancelled']:,} streams of another opened and cancelled"
            if "stream_opens" in r["kinds"] else "",
            f"{attack['idle_streams']:,} silent streams" if "idle" in r["kinds"] else ""]
    return [
        f"### {SET_TITLES.get(name, ', '.join(r['kinds']))}", "",
        f"Burners asked for the attackers' {r['attackers_cores']:.2f} cores and got {r['burners_cores']:.2f}.", "",
        "| | without the attack | beside the burners | under the attack | attack ÷ without | attack ÷ burners |",
        "|---|---|---|---|---|---|",
        f"| bots' moves/s | {calm['moves_per_s']:,.0f} | {control['moves_per_s']:,.0f} | "
        f"{attacked['moves_per_s']:,.0f} | {_ratio(attacked['moves_per_s'], calm['moves_per_s'])} | "
        f"{_ratio(attacked['moves_per_s'], control['moves_per_s'])} |",
        f"| bots' p50 ms | {calm['p50_ms']} | {control['p50_ms']} | {attacked['p50_ms']} | "
        f"{_ratio(attacked['p50_ms'], calm['p50_ms'])} | {_ratio(attacked['p50_ms'], control['p50_ms'])} |",
        f"| bots' p99 ms | {calm['p99_ms']} | {control['p99_ms']} | {attacked['p99_ms']} | "
        f"{r['p99_ratio']:.2f}x | {r['p99_ratio_to_control']:.2f}x |",
        f"| host's cores busy | {busy('calm')} | {busy('control')} | {busy('attacked')} | | |",
        f"| the machine's CPU | {machine('calm')} | {machine('control')} | {machine('attacked')} | | |",
        f"| rooms' peak PSS MiB | {pss_before} | | {r['rooms_pss_peak_mib']} "
        f"({r['rooms_pss_after_mib']} once it ended) | "
        f"+{r['rooms_pss_growth_mib']} MiB ({_against(r['rooms_pss_growth_mib'], PSS_GROWTH_BOUND_MIB)}) | |",
        f"| host's log files | | | +{r['log_growth_mib']} MiB | "
        f"({_against(r['log_growth_mib'], LOG_GROWTH_BOUND_MIB)}) | |",
        *([f"| silent streams closed | | | {attack['idle_streams_closed']:,} of {attack['idle_streams']:,} | | |"]
          if "idle" in r["kinds"] else []),
        "", f"The attackers sent {', '.join(part for part in sent if part)}; bot errors {attacked['errors']} "
        f"(beside the burners {control['errors']}).", ""]


def section(results: dict[str, Any]) -> str:
    r = results["attacks"]
    lines = [
        SECTION, "",
        f"Measured with {COMMAND} ({results['meta']['machine']}; commit {results['meta']['commit']}).", "",
        f"{r['plan']['tables']} tables of random bots played on one host: alone; then, for each set of attacks below, "
        "while attackers in a process of their own flood one table's room, and beside burner processes asked to use "
        "as much CPU as those attackers did. The attacks: a spectator stream that never reads sending commits with "
        "60 KB act_ids, over the room's 16 KiB message limit (each ends its stream, and the attacker opens another); "
        "four streams of one seated player's token, each on a connection of its own, opened over and over sending "
        "refused commits; streams of another seat opened, sent a hello and cancelled at once, as fast as the attacker "
        f"can from four connections; {r['plan']['idle_streams']:,} table streams opened ten to a connection and never "
        "sent a hello. The attackers share this machine's two cores with the host and the bots, which they would "
        "not on a cluster: the burners' run is the control for that, so the attack's own cost to the other tables "
        "is the attacked run read against the burners' run.", ""]
    for name, result in r["sets"].items():
        lines += _set_table(name, r["calm"], r["rooms_pss_before_mib"], result)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, prints only")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/ alone")
    parser.add_argument("--only", default="", metavar="KINDS",
                        help=f"comma-separated attacks to run alone ({', '.join(attacks.ATTACKS)}); prints only")
    parser.add_argument("--store", default="", help="the host's --store (e.g. none: nothing made durable); prints only")
    args = parser.parse_args(argv)
    kinds = tuple(kind for kind in args.only.split(",") if kind)
    if set(kinds) - set(attacks.ATTACKS):
        parser.error(f"--only takes {', '.join(attacks.ATTACKS)}")
    sets = (("only", kinds),) if kinds else attacks.ATTACK_SETS
    raise_nofile_limit()
    logdir = Path(tempfile.mkdtemp(prefix="bench_attacks-"))
    from bench_host import machine_line, tree_line

    results: dict[str, Any] = {"meta": {"machine": machine_line(), **tree_line(), "quick": args.quick}}
    plan = attacks.AttackPlan(tables=10 if args.quick else 40, split_above=5 if args.quick else 20,
                              idle_streams=200 if args.quick else 2000, sets=sets, store=args.store)
    try:
        results["attacks"] = attacks.run(plan, logdir, Budget(900.0), SEED)
    finally:
        end_leftovers()
    (logdir / "results.json").write_text(json.dumps(results, indent=1))
    text = section(results)
    print(text)
    if not args.quick and not args.no_write and not kinds and not args.store:
        report.write_section(DOC, text, headings={SECTION})
        print(f"wrote the attack section of {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
