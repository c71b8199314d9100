"""factory_boy factories, one per model, with identifiers in the forms the importers store."""

from __future__ import annotations

import datetime

import factory
from factory.django import DjangoModelFactory

from bzpeer.users.models import User
from publications.models import Authorship, Source, Topic, TopicLevel, Work, WorkTopic
from researchers.models import Affiliation, Institution, Researcher, VerificationLevel
from researchers.names import normalize_name


class UserFactory(DjangoModelFactory):
    class Meta:
        model = User

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.Sequence(lambda n: f"user{n}@example.org")
    password = factory.django.Password("correct horse battery staple")


class InstitutionFactory(DjangoModelFactory):
    class Meta:
        model = Institution

    openalex_id = factory.Sequence(lambda n: f"I{100000 + n}")
    name = factory.Sequence(lambda n: f"University {n}")
    country_code = "US"
    type = "education"


class ResearcherFactory(DjangoModelFactory):
    class Meta:
        model = Researcher

    display_name = factory.Sequence(lambda n: f"Researcher Number{n}")
    # The importer stores this; the API searches it, so factories must fill it the same way.
    name_normalized = factory.LazyAttribute(
        lambda researcher: normalize_name(researcher.display_name)
    )
    slug = factory.Sequence(lambda n: f"researcher-{n}")
    openalex_id = factory.Sequence(lambda n: f"A{5000000000 + n}")
    orcid = None
    verification_level = VerificationLevel.IDENTIFIED


class AffiliationFactory(DjangoModelFactory):
    class Meta:
        model = Affiliation

    researcher = factory.SubFactory(ResearcherFactory)
    institution = factory.SubFactory(InstitutionFactory)


class SourceFactory(DjangoModelFactory):
    class Meta:
        model = Source

    openalex_id = factory.Sequence(lambda n: f"S{4000000 + n}")
    name = factory.Sequence(lambda n: f"Journal of Things {n}")
    type = "journal"


class TopicFactory(DjangoModelFactory):
    class Meta:
        model = Topic

    external_id = factory.Sequence(lambda n: f"T{10000 + n}")
    name = factory.Sequence(lambda n: f"Topic {n}")
    level = TopicLevel.TOPIC


class WorkFactory(DjangoModelFactory):
    class Meta:
        model = Work

    openalex_id = factory.Sequence(lambda n: f"W{4000000000 + n}")
    doi = factory.Sequence(lambda n: f"10.5555/work.{n}")
    title = factory.Sequence(lambda n: f"A study of things, part {n}")
    publication_date = datetime.date(2020, 1, 1)
    publication_year = factory.LazyAttribute(
        lambda work: work.publication_date.year if work.publication_date else None
    )
    source = factory.SubFactory(SourceFactory)
    cited_by_count = 0


class AuthorshipFactory(DjangoModelFactory):
    class Meta:
        model = Authorship

    work = factory.SubFactory(WorkFactory)
    researcher = factory.SubFactory(ResearcherFactory)
    position = factory.Sequence(lambda n: n + 1)
    raw_name = factory.LazyAttribute(
        lambda authorship: (
            authorship.researcher.display_name if authorship.researcher else "Anonymous"
        )
    )


class WorkTopicFactory(DjangoModelFactory):
    class Meta:
        model = WorkTopic

    work = factory.SubFactory(WorkFactory)
    topic = factory.SubFactory(TopicFactory)
    score = 0.9
