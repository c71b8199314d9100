"""A synthetic corpus with namesake traps for the name resolver (issue 27), deterministic per
seed: bench.resolver_eval evaluates on it (seed EVAL_SEED), bench.resolver_train trains the
shipped model on another (TRAIN_SEED), so the evaluation never sees its training people.

- Labs: a few people with one institution (an OpenAlex id on some bylines, a free-text
  affiliation written several ways on others), two or three topics and venues, and a span of
  years; their works are bylines of two to five members, now and then with someone from
  another lab.
- Common names: each is carried by several people in different labs (the namesakes), each
  with their own coauthors, institution and topics; some bylines write a given name as an
  initial.
- Strangers: one-off bylines where a common name appears among people nobody has seen, in a
  lab of their own: a link to any namesake is a false one.

Everyone carries a checksum-valid ORCID iD (the truth); the evaluation hides them.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

EVAL_SEED = 2027
TRAIN_SEED = 1027

GIVEN = (
    "Wei Li Jian Ming Hui Yan Jun Xin Lei Tao Maria Anna Laura Sofia Elena Carlos Juan Pedro "
    "Luis Jose John James David Michael Robert Sarah Emily Laura Thomas Daniel Peter Paul Mark "
    "Anne Claire Julia Marco Luca Giulia Hans Klaus Ingrid Sven Olga Ivan Dmitri Yuki Hiro Kenji "
    "Aiko Priya Ravi Amit Anil Fatima Omar Ali Nadia Kwame Amara Tunde Ngozi"
).split()
FAMILY = (
    "Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Garcia Martinez Lopez Gonzalez Rodriguez "
    "Smith Johnson Brown Jones Miller Davis Wilson Taylor Anderson Thomas Mueller Schmidt "
    "Schneider Fischer Weber Rossi Russo Ferrari Bianchi Ivanov Petrov Sato Suzuki Takahashi "
    "Tanaka Kumar Sharma Patel Singh Khan Ahmed Hassan Okafor Mensah Nguyen Tran Kim Park Lee "
    "Dubois Laurent Bernard Moreau Novak Horvat Kowalski Nowak Jensen Hansen Larsen Berg"
).split()
FIELDS = (
    "Ecology Genomics Optics Robotics Linguistics Economics Virology Geology Cryptography "
    "Astronomy Neuroscience Chemistry Hydrology Topology Epidemiology Acoustics Materials "
    "Oceanography Immunology Statistics"
).split()
CITIES = (
    "Berlin Madrid Kyoto Lagos Toronto Lyon Turin Krakow Aarhus Pune Austin Leeds Graz Basel "
    "Oslo Porto Delft Haifa Accra Hanoi"
).split()


def orcid(serial: int) -> str:
    """A checksum-valid ORCID iD (ISO 7064 11,2) from a serial number."""
    digits = f"{serial:015d}"
    total = 0
    for digit in digits:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    base = digits + ("X" if check == 10 else str(check))
    return "-".join(base[i : i + 4] for i in range(0, 16, 4))


@dataclass
class Person:
    key: str  # the ORCID iD: the truth
    given: str
    family: str
    lab: int

    @property
    def name(self) -> str:
        return f"{self.given} {self.family}"


@dataclass
class Lab:
    index: int
    institution: int
    topics: list[int]
    venues: list[int]
    start: int
    members: list[Person] = field(default_factory=list)


def _affiliation(rng: random.Random, institution: int, field_name: str) -> str:
    city = CITIES[institution % len(CITIES)]
    department = rng.choice(("Department of", "Dept. of", "Dept of", "Institute of"))
    university = rng.choice((f"University of {city}", f"{city} University", f"Univ. of {city}"))
    tail = rng.choice(("", f", {city}", f", {city}, Country {institution}"))
    return f"{department} {field_name}, {university}{tail}"


def _lab(rng: random.Random, index: int) -> Lab:
    return Lab(
        index=index,
        institution=rng.randrange(30),
        topics=rng.sample(range(60), 3),
        venues=rng.sample(range(45), 2),
        start=rng.randrange(1995, 2016),
    )


@dataclass
class _Corpus:
    """The corpus as it is drawn: one generator for everything, in a fixed order, so a seed
    gives the same people and works every time."""

    seed: int
    rng: random.Random
    serial: int
    topics: list[Any]
    venues: list[Any]
    labs: list[Lab]
    people: list[Person] = field(default_factory=list)
    used_names: set[str] = field(default_factory=set)
    records: list[Any] = field(default_factory=list)

    def new_person(self, lab: Lab, given: str, family: str) -> Person:
        self.serial += 1
        person = Person(orcid(self.serial), given, family, lab.index)
        lab.members.append(person)
        self.people.append(person)
        return person

    def byline_entry(self, position: int, person: Person, lab: Lab, initials: bool) -> Any:
        from ingest.records import AuthorRef, AuthorshipRecord, InstitutionRef

        rng, seed = self.rng, self.seed
        given = f"{person.given[0]}." if initials else person.given
        name = f"{given} {person.family}"
        with_id = rng.random() < 0.5
        field_name = FIELDS[lab.topics[0] % 20]
        # A third of the bylines name people without their iD (as BibTeX and most Crossref
        # records do): their records are L0 ones, so teams also meet by name alone.
        key = person.key if rng.random() < 0.65 else None
        return AuthorshipRecord(
            position=position,
            raw_name=name,
            author=AuthorRef(
                display_name=name, orcid=key, given_name=given, family_name=person.family
            ),
            institutions=(
                (
                    InstitutionRef(
                        openalex_id=f"I{seed}{lab.institution:03d}", name=f"Inst {lab.institution}"
                    ),
                )
                if with_id
                else ()
            ),
            affiliation_names=() if with_id else (_affiliation(rng, lab.institution, field_name),),
        )

    def work(self, lab: Lab, authors: list[tuple[Person, Lab]], year: int, tag: str) -> None:
        from ingest.records import CROSSREF, WorkRecord, WorkTopicRecord, partial_date

        rng, seed, records = self.rng, self.seed, self.records
        doi = f"10.5555/syn{seed}.{tag}.{len(records)}"
        records.append(
            WorkRecord(
                origin=CROSSREF,
                origin_id=doi,
                doi=doi,
                title=f"On {FIELDS[lab.topics[0] % 20].lower()} {tag} {len(records)} ({seed})",
                published=partial_date(year),
                source=self.venues[rng.choice(lab.venues)],
                topics=tuple(
                    WorkTopicRecord(topic=self.topics[t], score=0.9)
                    for t in rng.sample(lab.topics, 2)
                ),
                authorships=tuple(
                    self.byline_entry(position, person, home, rng.random() < 0.1)
                    for position, (person, home) in enumerate(authors, start=1)
                ),
            )
        )


def _corpus_start(seed: int, labs: int) -> _Corpus:
    """The topics, venues and labs (odd labs the siblings of the one before)."""
    from ingest.records import SourceRecord, TopicRecord

    rng = random.Random(seed)
    topics = [
        TopicRecord(
            external_id=f"syn{seed}:T{i}", name=f"{FIELDS[i % 20]} topic {i}", level="topic"
        )
        for i in range(60)
    ]
    venues = [SourceRecord(name=f"Journal of {FIELDS[i % 20]} {i} ({seed})") for i in range(45)]
    lab_list = [_lab(rng, i) for i in range(labs)]
    # Sibling labs: every odd lab shares its institution and two topics with the one before,
    # so namesakes in sibling labs differ by their coauthors alone.
    for lab in lab_list[1::2]:
        sibling = lab_list[lab.index - 1]
        lab.institution = sibling.institution
        lab.topics = [*sibling.topics[:2], lab.topics[2]]
    return _Corpus(seed, rng, seed * 100_000, topics, venues, lab_list)


def _people_place(corpus: _Corpus, common_names: int) -> list[tuple[str, str]]:
    """The namesakes of each common name in different labs, then each lab filled with people
    of names of their own; returns the common names."""
    rng = corpus.rng
    shared: list[tuple[str, str]] = []
    while len(shared) < common_names:
        name = (rng.choice(GIVEN), rng.choice(FAMILY[:20]))
        if name not in shared:
            shared.append(name)
    for given, family in shared:  # three or four people per common name, in different labs
        for lab in rng.sample(corpus.labs, rng.choice((3, 4))):
            corpus.new_person(lab, given, family)
        corpus.used_names.add(f"{given} {family}")
    for lab in corpus.labs:
        while len(lab.members) < rng.randrange(4, 8):
            given, family = rng.choice(GIVEN), rng.choice(FAMILY)
            if f"{given} {family}" in corpus.used_names:
                continue
            corpus.used_names.add(f"{given} {family}")
            corpus.new_person(lab, given, family)
    return shared


def _lab_works(corpus: _Corpus) -> None:
    """Two works per member of each lab, now and then with a visitor from another lab."""
    rng, lab_list = corpus.rng, corpus.labs
    for lab in lab_list:
        for _ in range(len(lab.members) * 2):
            team = rng.sample(lab.members, min(len(lab.members), rng.randrange(2, 6)))
            authors = [(p, lab) for p in team]
            if rng.random() < 0.15:  # a visitor from another lab
                other = rng.choice(lab_list)
                if other is not lab:
                    authors.append((rng.choice(other.members), other))
            rng.shuffle(authors)
            corpus.work(lab, authors, lab.start + rng.randrange(0, 10), "lab")


def _stranger_works(
    corpus: _Corpus, labs: int, strangers: int, shared: list[tuple[str, str]]
) -> None:
    """A common name among strangers, each in a lab of their own."""
    rng = corpus.rng
    for index in range(strangers):
        lab = _lab(rng, labs + index)
        given, family = rng.choice(shared)
        stranger = corpus.new_person(lab, given, family)
        others = []
        while len(others) < rng.randrange(1, 4):
            g, f = rng.choice(GIVEN), rng.choice(FAMILY)
            if f"{g} {f}" not in corpus.used_names:
                corpus.used_names.add(f"{g} {f}")
                others.append(corpus.new_person(lab, g, f))
        corpus.work(lab, [(p, lab) for p in [stranger, *others]], lab.start, "stranger")


def synthetic_records(
    seed: int, *, labs: int = 40, common_names: int = 12, strangers: int = 30
) -> list[Any]:
    """The corpus as Crossref-like work records (see the module docstring). Every part draws
    from the seed's one generator, in this order: labs, people, lab works, consortium works,
    strangers."""
    corpus = _corpus_start(seed, labs)
    rng = corpus.rng
    shared = _people_place(corpus, common_names)
    _lab_works(corpus)
    for _ in range(labs // 4):  # long consortium bylines across five labs
        members = [(p, lab) for lab in rng.sample(corpus.labs, 5) for p in lab.members]
        lead = members[0][1]
        corpus.work(
            lead, rng.sample(members, min(len(members), rng.randrange(20, 35))), 2015, "consortium"
        )
    _stranger_works(corpus, labs, strangers, shared)
    return corpus.records


def synthetic_plan(records: list[Any], seed: int) -> Any:
    """Held out: one work per person with two works or more, and every stranger's work (the
    people's ORCID iDs stripped, at most two per work, so some bylines are resolved as a
    whole with no identifier at all); the rest imported with identifiers."""
    import dataclasses

    from bench.resolver_eval import Plan

    rng = random.Random(seed + 1)
    works_of: dict[str, list[int]] = defaultdict(list)
    names: dict[str, str] = {}
    for index, record in enumerate(records):
        for a in record.authorships:
            if a.author.orcid is None:
                continue
            works_of[a.author.orcid].append(index)
            names[a.author.orcid] = f"{a.author.given_name} {a.author.family_name}"
    strip: dict[int, set[str]] = defaultdict(set)
    for person in sorted(works_of):
        options = [i for i in works_of[person] if len(strip.get(i, ())) < 2]
        if len(works_of[person]) == 1:
            only = works_of[person][0]
            if "stranger" in records[only].origin_id and not strip.get(only):
                strip[only].add(person)
            continue
        if options:
            strip[rng.choice(options)].add(person)
    by_name: dict[str, set[str]] = defaultdict(set)
    for person, name in names.items():
        by_name[name.split()[-1] + name[0]].add(person)
    namesakes = {p: group - {p} for group in by_name.values() if len(group) > 1 for p in group}
    imported = [r for i, r in enumerate(records) if i not in strip]
    held_out, stripped = [], []
    for index in sorted(strip):
        record = records[index]
        authorships = []
        for a in record.authorships:
            if a.author.orcid in strip[index]:
                stripped.append((len(held_out), a.position, a.author.orcid))
                a = dataclasses.replace(a, author=dataclasses.replace(a.author, orcid=None))
            authorships.append(a)
        held_out.append(dataclasses.replace(record, authorships=tuple(authorships)))
    return Plan(
        imported,
        held_out,
        stripped,
        namesakes,
        {p: {p} for p in works_of},
        {p: [records[i] for i in v] for p, v in works_of.items()},
    )
