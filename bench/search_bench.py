"""The search benchmark: `make bench` (after the import bench), or
`python -m bench.search_bench [--database bzpeer_bench]`.

It times the selectors of the search app (search/selectors/), called directly through Django,
on the synthetic corpus the import benchmark leaves in its database:

- name search with typos: researcher_search() (the search page's researchers tab) for names
  drawn from the corpus and misspelt (one or two edits, words swapped, capitals), and
  researcher_suggestions() for names typed part way (the header box), with how often its eight
  are exactly the first eight of the uncapped name search (it ranks only the first
  SUGGESTION_RANKED_AT_MOST matches of a short query);
- ranked work full-text search: work_search() (ranked page, headlines, works and authors) for
  common words, combinations of them, phrases, exclusions and words that match nothing;
- the works tab as the page runs it (tab counts, ranked page, facets), for reference.

It prints p50/p99 per kind with the machine and corpus, how often the misspelt name still
came first, and writes bench-data/search-report.json. Figures, not a test: nothing here
fails on a duration. Targets from issue 3: names p99 < 50 ms, works p99 < 150 ms; from issue 10:
header suggestions p99 < 50 ms.

It only reads (apart from `migrate`, `VACUUM ANALYZE` and filling the name search's vocabulary as
the import's follow-up does), so it never changes the corpus.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from bench import smoke
from bench.search_phases import (
    baseline_time,
    names_time,
    suggestion_agreement,
    suggestions_time,
    warm_up,
    works_tab_time,
    works_time,
)
from bench.search_queries import (
    NameQuery,
    Timing,
    name_queries,
    suggestion_queries,
    timing,
    work_queries,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "bench-data"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/bzpeer"
NAME_TARGET_P99_MS = 50
SUGGESTION_TARGET_P99_MS = 50
WORK_TARGET_P99_MS = 150


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def django_setup(database: str) -> None:
    if "bench" not in database:
        raise SystemExit(f"refusing to use database {database!r}: use a name with 'bench'")
    parts = urlsplit(os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL))
    os.environ["DATABASE_URL"] = parts._replace(path=f"/{database}").geturl()
    os.environ["DEBUG"] = "false"  # no query log growing through thousands of calls
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bzpeer.settings.local")
    sys.path.insert(0, str(REPO_ROOT))
    import django

    django.setup()


# --- report -----------------------------------------------------------------------------------


@dataclass
class Report:
    measured_at: str
    machine: dict[str, object]
    corpus: dict[str, int]
    settings: dict[str, int]
    load: str
    timings: list[Timing]
    name_quality: dict[str, dict[str, float]]
    work_matches: dict[str, int]
    suggestion_agreement: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def session_settings_choose(*, server_defaults: bool) -> None:
    """This process's session runs with bzpeer's database settings (bzpeer/database_settings.py),
    whether or not its database was created with them, or with PostgreSQL's own defaults for
    them (`boot_val`: what a server's configuration files may still have changed is left)."""
    from django.db import connection

    from bzpeer.database_settings import DATABASE_SETTINGS

    with connection.cursor() as cursor:
        for name, value in DATABASE_SETTINGS.items():
            if server_defaults:
                cursor.execute("SELECT boot_val FROM pg_settings WHERE name = %s", [name])
                (value,) = cursor.fetchone()
            cursor.execute("SELECT set_config(%s, %s, false)", [name, value])


def machine_describe() -> dict[str, object]:
    from django.db import connection

    cpu = platform.processor() or "unknown"
    memory_kb = 0
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory_kb = int(line.split()[1])
    except OSError:
        pass
    from bzpeer.database_settings import DATABASE_SETTINGS

    with connection.cursor() as cursor:
        settings = {}
        shown = ("server_version", "shared_buffers", "work_mem", "effective_cache_size")
        for name in (*shown, *DATABASE_SETTINGS):
            cursor.execute(f"SHOW {name}")
            settings[name] = cursor.fetchone()[0]
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(memory_kb / 2**20, 1),
        "python": platform.python_version(),
        "postgresql": settings,
    }


def corpus_describe() -> dict[str, int]:
    from publications.models import Authorship, Topic, Work
    from researchers.models import Institution, Researcher

    return {
        "researchers": Researcher.objects.count(),
        "researchers_with_alternate_names": Researcher.objects.exclude(alternate_names=[]).count(),
        "works": Work.objects.count(),
        "authorships": Authorship.objects.count(),
        "institutions": Institution.objects.count(),
        "topics": Topic.objects.count(),
    }


def report_print(report: Report) -> None:
    machine = report.machine
    say()
    say(f"bzpeer search benchmark, {report.measured_at}")
    say(f"machine   {machine['cpu']}, {machine['cores']} cores, {machine['memory_gb']} GB RAM")
    say(
        "          PostgreSQL "
        + ", ".join(f"{k}={v}" for k, v in machine["postgresql"].items())  # type: ignore[union-attr]
        + f"; Python {machine['python']}"
    )
    say("corpus    " + ", ".join(f"{v:,} {k}" for k, v in report.corpus.items()))
    say("settings  " + ", ".join(f"{k}={v}" for k, v in report.settings.items()))
    say()
    say(f"load      {report.load}")
    say()
    say(f"{'':46} {'queries':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'raw p99':>8}")
    for item in report.timings:
        say(
            f"{item.label:46} {item.queries:>7} {item.p50_ms:>7.1f} {item.p99_ms:>7.1f} "
            f"{item.max_ms:>7.1f} {item.raw_p99_ms:>8.1f}  {item.verdict}"
        )
    say("(p50/p99/max over each query's median run; raw p99 over every run)")
    say()
    say("misspelt names: how often the page's first result is the name searched for")
    for kind, figures in report.name_quality.items():
        say(
            f"  {kind:22} {figures['queries']:>4.0f} queries: same name first "
            f"{figures['same_name_first']:.0%}, that very record on the first page "
            f"{figures['record_on_first_page']:.0%}"
        )
    if report.suggestion_agreement:
        figures = report.suggestion_agreement
        say()
        say(
            f"suggestions: the same eight, in the same order, as the uncapped name search for "
            f"{figures['same_as_name_search']:.0%} of {figures['queries']:.0f} names typed part "
            f"way ({figures['capped']:.0%} of them matched more names than are ranked)"
        )
    say()
    say(
        "works matched (the candidate cap stops counting): "
        + ", ".join(f"{query!r} {count:,}" for query, count in report.work_matches.items())
    )
    for note in report.notes:
        say(f"note: {note}")


def slowest_print(
    count: int,
    names: Sequence[NameQuery],
    works: Sequence[tuple[str, str]],
    name_samples: dict[str, list[list[float]]],
    work_samples: dict[str, list[list[float]]],
    tab_samples: list[list[float]],
) -> None:
    """The `count` slowest queries of each kind by their median run (--slowest). The phases
    keep each kind's samples in the order of its queries, so the texts are matched back here."""
    groups: dict[str, list[tuple[str, list[float]]]] = {}
    for kind, samples in name_samples.items():
        texts = [query.text for query in names if query.kind == kind]
        groups[f"names, {kind}"] = list(zip(texts, samples, strict=True))
    for kind, samples in work_samples.items():
        texts = [text for text_kind, text in works if text_kind == kind]
        groups[f"works, {kind}"] = list(zip(texts, samples, strict=True))
    groups["works tab"] = list(zip([text for _kind, text in works], tab_samples, strict=False))
    say()
    say(f"the {count} slowest queries of each kind (median run, ms)")
    for label, pairs in groups.items():
        ranked = sorted(pairs, key=lambda pair: statistics.median(pair[1]), reverse=True)
        shown = ", ".join(
            f"{text!r} {statistics.median(samples) * 1000:.1f}" for text, samples in ranked[:count]
        )
        say(f"  {label:34} {shown}")


# --- main -------------------------------------------------------------------------------------


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], prog="python -m bench.search_bench"
    )
    parser.add_argument("--database", default="bzpeer_bench", help="default bzpeer_bench")
    parser.add_argument("--names", type=int, default=600, help="misspelt names to search")
    parser.add_argument("--suggestions", type=int, default=600, help="partial names to suggest")
    parser.add_argument(
        "--work-rounds", type=int, default=10, help="rounds of the work query set (40 queries)"
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        help="runs of each query (default 3); p50/p99 are taken over each query's median run",
    )
    parser.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip timing an uncapped ts_rank over every match of a common word",
    )
    parser.add_argument(
        "--compare-pages",
        metavar="FILE",
        help="a search-first-pages.json of an earlier run: say for how many work queries the "
        "first page is the same",
    )
    parser.add_argument(
        "--server-defaults",
        action="store_true",
        help="run with PostgreSQL's own defaults for the settings bzpeer stores on its database "
        "(bzpeer/database_settings.py), to compare with them",
    )
    parser.add_argument(
        "--slowest",
        type=int,
        default=0,
        metavar="N",
        help="also print the N slowest queries of each kind (median run), to EXPLAIN them",
    )
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:
        smoke.apply(
            parser,
            options,
            names=20,
            suggestions=20,
            work_rounds=1,
            runs=1,
            database=smoke.default_database("search"),
        )
        smoke.begin(options.database)
        smoke.tiny_corpus(options.database)
    return options


def _corpus_prepare(database: str) -> dict[str, int]:
    """The search indexes migrated and the statistics fresh; returns the corpus's size."""
    from django.core.management import call_command
    from django.db import connection

    say(f"migrating {database} (the search indexes) ...")
    call_command("migrate", verbosity=0, interactive=False)
    corpus = corpus_describe()
    if not corpus["works"] or not corpus["researchers"]:
        raise SystemExit(f"{database} holds no corpus: run `python -m bench.import_bench` first")
    say("VACUUM ANALYZE (as autovacuum would after the import) ...")
    with connection.cursor() as cursor:
        # Fresh statistics, and GIN pending lists merged: right after a bulk import, indexes
        # built with fastupdate hold the new rows in an unsorted list every search scans.
        cursor.execute(
            "VACUUM ANALYZE researchers_researcher, researchers_institution, publications_work, "
            "publications_topic, publications_worktopic, publications_authorship"
        )
    from researchers.name_words import name_words_refresh

    # The name search's vocabulary of name words, as the import's follow-up task fills it: the
    # raw COPY corpus comes without it, and then every researcher is one "newer than the
    # vocabulary", matched by trigrams in the vocabulary tier of every name search.
    refreshed = name_words_refresh()
    if refreshed.words_added:
        say(f"name words: {refreshed.words_added:,} added (the import's follow-up would have)")
    return corpus


def _pages_compare(
    options: argparse.Namespace, work_pages: dict[str, set[tuple[int, ...]]], notes: list[str]
) -> dict[str, tuple[int, ...]]:
    """Note how many queries' first pages moved between runs (and, with --compare-pages, how
    many match an earlier run's); returns each query's first page."""
    unstable = sorted(text for text, pages in work_pages.items() if len(pages) > 1)
    notes.append(
        f"work search: {len(unstable)} of {len(work_pages)} distinct queries gave a different "
        f"first page from one run to the next" + (f" (e.g. {unstable[:3]})" if unstable else "")
    )
    # The first page of each query, for comparing revisions (--compare-pages).
    first_pages = {text: sorted(pages)[0] for text, pages in work_pages.items()}
    if options.compare_pages:
        earlier = json.loads(Path(options.compare_pages).read_text())
        common = [text for text in first_pages if text in earlier]
        same = sum(list(first_pages[text]) == earlier[text] for text in common)
        notes.append(
            f"work search: the same first page as {options.compare_pages} for {same} of "
            f"{len(common)} queries"
        )
    return first_pages


def main(argv: Sequence[str] | None = None) -> int:
    options = _arguments(argv)
    django_setup(options.database)
    from search.selectors.results import SEARCH_PAGE_SIZE
    from search.selectors.suggestions import SUGGESTION_LIMIT, SUGGESTION_RANKED_AT_MOST
    from search.selectors.works import WORK_CANDIDATE_LIMIT, work_search

    corpus = _corpus_prepare(options.database)
    session_settings_choose(server_defaults=options.server_defaults)
    rng = random.Random(options.seed)
    names = name_queries(options.names, rng)
    partial_names = suggestion_queries(options.suggestions, rng)
    # A generator of its own: the same work queries whatever the draws above took (the
    # suggestions' lengths depend on names drawn in random order), so runs can be compared.
    works = work_queries(random.Random(options.seed), options.work_rounds)
    warm_up(names, works)

    runs = options.runs
    load_before = os.getloadavg()
    name_samples, quality = names_time(names, runs)
    suggestion_samples = suggestions_time(partial_names, runs)
    work_samples, work_pages = works_time(works, runs)
    tab_samples = works_tab_time(works)
    load_after = os.getloadavg()
    if options.slowest:
        slowest_print(options.slowest, names, works, name_samples, work_samples, tab_samples)

    all_names = [samples for group in name_samples.values() for samples in group]
    all_works = [samples for group in work_samples.values() for samples in group]
    timings = [
        timing("names, misspelt: researcher_search", all_names, NAME_TARGET_P99_MS),
        *(timing(f"  names, {kind}", group) for kind, group in name_samples.items()),
        timing(
            "names typed part way: researcher_suggestions",
            suggestion_samples,
            SUGGESTION_TARGET_P99_MS,
        ),
        timing("works, all queries: work_search", all_works, WORK_TARGET_P99_MS),
        *(timing(f"  works, {kind}", group) for kind, group in sorted(work_samples.items())),
        timing("works tab: counts + page + facets (1 run)", tab_samples),
    ]
    agreement = suggestion_agreement(partial_names)

    notes = []
    if not options.no_baseline:
        timings.append(timing("baseline: uncapped ts_rank, one common word", baseline_time()))
        notes.append("the baseline is what WORK_CANDIDATE_LIMIT avoids; it is not a target")

    if corpus_describe() != corpus:
        raise SystemExit(
            f"the corpus in {options.database} changed during the run (an import benchmark "
            "truncating it?): these figures are not about one corpus; run again when it is quiet"
        )
    work_matches = {}
    for text in ("graph", "graph learning", '"sparse attention"', "zebra"):
        work_matches[text] = work_search(query=text).total
    first_pages = _pages_compare(options, work_pages, notes)
    report = Report(
        measured_at=datetime.now(UTC).isoformat(timespec="seconds"),
        machine=machine_describe(),
        corpus=corpus,
        settings={
            "work_candidate_limit": WORK_CANDIDATE_LIMIT,
            "page_size": SEARCH_PAGE_SIZE,
            "suggestion_limit": SUGGESTION_LIMIT,
            "suggestion_ranked_at_most": SUGGESTION_RANKED_AT_MOST,
            "runs_per_query": runs,
        },
        load=(
            f"1-minute load average {load_before[0]:.1f} before, {load_after[0]:.1f} after, "
            f"on {os.cpu_count()} cores (other work shares this machine)"
        ),
        timings=timings,
        name_quality=quality,
        work_matches=work_matches,
        suggestion_agreement=agreement,
        notes=notes,
    )
    report_print(report)
    DATA_DIR.mkdir(exist_ok=True)
    path = DATA_DIR / "search-report.json"
    path.write_text(json.dumps(asdict(report), indent=2) + "\n")
    pages_path = DATA_DIR / "search-first-pages.json"
    pages_path.write_text(json.dumps({k: list(v) for k, v in first_pages.items()}) + "\n")
    say(f"\nwritten to {path} (first pages of the work queries: {pages_path})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
