"""`slotstream eval statebench|phrasings|everyday|ranking|open-language|secrets`: measurements on corpora and external
conformance material (docs/evaluation.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from slotstream.config.settings import Settings

from .common import Subparsers

SPLITS = ["all", "dev", "holdout"]


def register(sub: Subparsers) -> None:
    ev = sub.add_parser("eval", help="measurements on corpora and conformance material")
    ev_sub = ev.add_subparsers(dest="eval_command", required=True)
    _statebench(ev_sub)
    _phrasings(ev_sub)
    _everyday(ev_sub)
    _ranking(ev_sub)
    _open_language(ev_sub)
    _secrets(ev_sub)


def _statebench(ev_sub: Subparsers) -> None:
    sb = ev_sub.add_parser("statebench", help="StateBench timelines through the engine")
    sb.add_argument("files", nargs="+", type=Path)
    sb.add_argument("--track", action="append", help="only these tracks (repeatable)")
    sb.add_argument("--verbose", "-v", action="store_true", help="print each failing query")
    sb.add_argument(
        "--turns",
        action="store_true",
        help="also run the user's conversation turns through the rule extractor, beside the structured writes",
    )
    sb.set_defaults(func=cmd_statebench)


def _phrasings(ev_sub: Subparsers) -> None:
    ph = ev_sub.add_parser("phrasings", help="rule-extractor recall and false positives on the phrasing corpus")
    ph.add_argument("--corpus", type=Path, default=None, help="corpus folder (default: the shipped phrasings corpus)")
    ph.add_argument("--split", choices=SPLITS, default="all", help="which lines (default all)")
    ph.add_argument("--verbose", "-v", action="store_true", help="print each missed dev line and dev false positive")
    ph.add_argument(
        "--show-holdout",
        action="store_true",
        help="also print the held-out misses and false positives (asked explicitly)",
    )
    ph.set_defaults(func=cmd_phrasings)


def _everyday(ev_sub: Subparsers) -> None:
    ed = ev_sub.add_parser("everyday", help="rule-extractor recall and false positives on the everyday corpus")
    ed.add_argument("--corpus", type=Path, default=None, help="corpus folder (default: the shipped everyday corpus)")
    ed.add_argument("--split", choices=SPLITS, default="all", help="which lines (default all)")
    ed.add_argument("--verbose", "-v", action="store_true", help="print each missed dev line and dev false positive")
    ed.set_defaults(func=cmd_everyday)


def _ranking(ev_sub: Subparsers) -> None:
    rk = ev_sub.add_parser("ranking", help="do everyday memories reach the requests they matter to (small budgets)")
    rk.add_argument("--requests", type=Path, default=None, help="request set (default: the shipped one)")
    rk.add_argument("--split", choices=SPLITS, default="all", help="which lines (default all)")
    rk.add_argument("--verbose", "-v", action="store_true", help="print each dev miss with what was used instead")
    rk.set_defaults(func=cmd_ranking)


def _open_language(ev_sub: Subparsers) -> None:
    ol = ev_sub.add_parser(
        "open-language", help="what users say of themselves: captured, reaching its request, never elsewhere"
    )
    ol.add_argument(
        "--corpus", type=Path, default=None, help="corpus folder (default: the shipped open_language_dev corpus)"
    )
    ol.add_argument("--verbose", "-v", action="store_true", help="print each miss, leak and false memory")
    ol.set_defaults(func=cmd_open_language)


def _secrets(ev_sub: Subparsers) -> None:
    se = ev_sub.add_parser("secrets", help="secrets kept out of every store; ordinary long tokens left alone")
    se.add_argument(
        "--corpus", type=Path, default=None, help="a corpus file (.jsonl; default: the shipped secrets/dev.jsonl)"
    )
    se.add_argument("--quiet", "-q", action="store_true", help="only the table, not each miss and false flag")
    se.set_defaults(func=cmd_secrets)


def cmd_secrets(args: argparse.Namespace) -> int:
    from slotstream.eval.secrets import main

    return main(args.corpus, verbose=not args.quiet)


def cmd_open_language(args: argparse.Namespace) -> int:
    from slotstream.eval.open_language import main

    return main(args.corpus, verbose=args.verbose)


def cmd_statebench(args: argparse.Namespace) -> int:
    from slotstream.eval.statebench import main

    return main(args.files, Settings.from_env(), tracks=args.track, verbose=args.verbose, turns=args.turns)


def cmd_phrasings(args: argparse.Namespace) -> int:
    from slotstream.eval.families import main

    return main(args.corpus, args.split, verbose=args.verbose, show_holdout=args.show_holdout)


def cmd_everyday(args: argparse.Namespace) -> int:
    from slotstream.eval.families import main_everyday

    return main_everyday(args.corpus, args.split, verbose=args.verbose)


def cmd_ranking(args: argparse.Namespace) -> int:
    from slotstream.eval.ranking import main

    return main(args.requests, args.split, verbose=args.verbose)
