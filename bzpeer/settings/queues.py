"""Celery's settings, imported by base.py (which names the broker, Redis): how tasks are
acknowledged and retried, a queue per workload with the routes to it, and beat's schedule of
periodic tasks (docs/operating.md lists them)."""

from __future__ import annotations

from celery.schedules import crontab
from kombu import Queue

from .environment import env
from .operations import OWED_WORK_BEAT_SCHEDULE

# Import chunks are long, so they are acknowledged late and a
# worker takes one at a time; a chunk whose worker died comes back after the visibility timeout.
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_DEFAULT_QUEUE_FROM_ENVIRONMENT: str | None = env.str("CELERY_DEFAULT_QUEUE", default=None)
CELERY_TASK_DEFAULT_QUEUE = CELERY_DEFAULT_QUEUE_FROM_ENVIRONMENT or "bzpeer"
# How long a task taken by a worker that died stays invisible before it is delivered again
# (an hour; the test settings default to seconds).
CELERY_VISIBILITY_TIMEOUT_FROM_ENVIRONMENT: int | None = env.int(
    "CELERY_VISIBILITY_TIMEOUT", default=None
)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 3600
    if CELERY_VISIBILITY_TIMEOUT_FROM_ENVIRONMENT is None
    else CELERY_VISIBILITY_TIMEOUT_FROM_ENVIRONMENT,
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_TIME_LIMIT = 60 * 60
# Set, Celery's Django fixup stops closing every database connection after each task (it closes
# them only every this many tasks); bzpeer.task_connections closes them instead, except for the
# tasks that keep theirs across tasks (the digests' chunks), within CONN_MAX_AGE.
CELERY_DB_REUSE_MAX = 1000
CELERY_BEAT_SCHEDULE = {
    "import-runs-resume-stalled": {
        "task": "ingest.tasks.import_runs_resume_stalled",
        "schedule": 5 * 60,
    },
    # References a concurrent batch left waiting for a work it did not see yet.
    "citations-resolve-waiting": {
        "task": "ingest.tasks.citations_resolve_waiting",
        "schedule": 10 * 60,
    },
    # Account age is a trust input: claimed records are rescored once a day.
    "claims-trust-refresh-claimed": {
        "task": "claims.tasks.researchers_trust_refresh_claimed",
        "schedule": 24 * 60 * 60,
    },
    # The daily digest of notifications whose delivery is "daily" (one email per user and day,
    # a digest delivery as the feed's: an overlapping or repeated run sends nothing twice).
    "notifications-daily-digest": {
        "task": "notifications.tasks.notification_digests_queue",
        "schedule": crontab(hour=7, minute=0),
    },
    # The feed's email digests due this hour (08:00 in each user's time zone; weekly ones on
    # Mondays): planned once per user and period, then sent by chunk tasks (feed.tasks), through
    # the digest deliveries of notifications.services.deliveries.
    "feed-digests-daily": {
        "task": "feed.tasks.digests_send",
        "schedule": crontab(minute=0),
        "args": ("daily",),
    },
    "feed-digests-weekly": {
        "task": "feed.tasks.digests_send",
        "schedule": crontab(minute=0),
        "args": ("weekly",),
    },
    # The stored follower counts checked against the follow rows; a count a path outside the
    # services left off (an account deleted from the admin) is fixed and logged.
    "feed-follower-counts-recompute": {
        "task": "feed.tasks.follower_counts_recompute",
        "schedule": crontab(hour=3, minute=30),
    },
    # Pending invitations past their 30 days are marked expired (they count as expired anyway).
    "collaboration-invitations-expire": {
        "task": "collaboration.tasks.invitations_expire",
        "schedule": 60 * 60,
    },
    # "Download my data" files whose link has expired are deleted.
    "collaboration-account-exports-delete-expired": {
        "task": "collaboration.tasks.account_exports_delete_expired",
        "schedule": 60 * 60,
    },
    # "You have unread messages" emails that have come due (10 minutes unread, 1 per hour).
    "collaboration-message-emails-send-due": {
        "task": "collaboration.tasks.message_emails_send_due",
        "schedule": 60,
    },
}

# A queue per workload, so each has workers of its own (README, Operations): imports (long
# chunks, many workers on other machines), the collaborator graph's edge refreshes, mail (short,
# must not wait behind an import) and everything else on the default queue. A worker started
# without -Q (make run's) consumes every queue listed here.
IMPORTS_QUEUE = env.str("CELERY_IMPORTS_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}-imports")
GRAPH_QUEUE = env.str("CELERY_GRAPH_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}-graph")
MAIL_QUEUE = env.str("CELERY_MAIL_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}-mail")
# Embeddings, the index of meaning, similar researchers and the AI Score (discovery): the workers
# that take them hold the embedding model in memory and keep a core busy for minutes at a time,
# so they are a workload of their own, sized apart from the short tasks of the default queue.
DISCOVERY_QUEUE = env.str(
    "CELERY_DISCOVERY_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}-discovery"
)
CELERY_QUEUES_BY_WORKLOAD = {
    "default": CELERY_TASK_DEFAULT_QUEUE,
    "imports": IMPORTS_QUEUE,
    "graph": GRAPH_QUEUE,
    "mail": MAIL_QUEUE,
    "discovery": DISCOVERY_QUEUE,
}
CELERY_TASK_QUEUES = [Queue(name) for name in dict.fromkeys(CELERY_QUEUES_BY_WORKLOAD.values())]
# By task name; a task not matched here goes to the default queue. The digests' chunk tasks
# (notifications.tasks.notification_digest_deliveries_send, feed.tasks.digest_deliveries_send)
# stay there: up to 500 emails each, they would hold up the one-email tasks of the mail queue.
CELERY_TASK_ROUTES = {
    "ingest.tasks.*": {"queue": IMPORTS_QUEUE},
    "graph.tasks.*": {"queue": GRAPH_QUEUE},
    # Related works and novelty (derived from the citation graph, as edges are from bylines).
    "publications.tasks.*": {"queue": GRAPH_QUEUE},
    "discovery.tasks.*": {"queue": DISCOVERY_QUEUE},
    "notifications.tasks.notification_email_send": {"queue": MAIL_QUEUE},
    "notifications.tasks.notification_digest_send": {"queue": MAIL_QUEUE},
    "collaboration.tasks.message_email_send": {"queue": MAIL_QUEUE},
}
# The follow-up of researchers that import batches left pending, when no run is importing them
# (a run that failed or stopped) or they waited longer than IMPORT_FOLLOW_UP_MAX_LAG.
CELERY_BEAT_SCHEDULE["imports-follow-up-drain"] = {
    "task": "ingest.tasks.researchers_follow_up_drain_if_due",
    "schedule": 60,
}
# Picks up edge refreshes whose task message was lost (the pending ids are kept in Redis).
CELERY_BEAT_SCHEDULE["graph-edges-drain"] = {
    "task": "graph.tasks.coauthor_edges_drain",
    "schedule": 5 * 60,
    "options": {"queue": GRAPH_QUEUE},
}
# Work whose task message was lost, owed in the database and sent again (operations.py).
CELERY_BEAT_SCHEDULE.update(OWED_WORK_BEAT_SCHEDULE)
# Every work's novelty and every researcher's median, from scratch, once a week
# (publications.services.novelty; docs/novelty.md): a percentile moves with its whole baseline.
CELERY_BEAT_SCHEDULE["novelty-compute"] = {
    "task": "publications.tasks.novelty_compute",
    "schedule": crontab(hour=5, minute=0, day_of_week="sunday"),
    "options": {"queue": GRAPH_QUEUE},
}

# The AI Score's model (discovery.ai_score) trained again every week, after the novelty it reads
# (Sunday 05:00).
CELERY_BEAT_SCHEDULE["ai-score-train"] = {
    "task": "discovery.tasks.ai_score_train",
    "schedule": crontab(hour=7, minute=0, day_of_week="sunday"),
}

# The name search's vocabulary read again from every researcher, nightly (researchers.name_words):
# imports add the words of new records; this catches names changed in place and late commits.
CELERY_BEAT_SCHEDULE["researchers-name-words-refresh"] = {
    "task": "researchers.tasks.name_words_refresh",
    "schedule": crontab(hour=3, minute=30),
    "kwargs": {"from_start": True},
}

# The name resolver re-run over L0 records (issue 27): merges and moderators' proposals.
CELERY_BEAT_SCHEDULE["researchers-resolve-rerun"] = {
    "task": "ingest.tasks.researchers_resolve_rerun",
    "schedule": crontab(hour=2, minute=0, day_of_week="saturday"),
}

# Related works of the works whose citations changed (import batches, merges) since the last
# drain; and once a week all of them from scratch, which settles the drift the incremental
# route allows (publications.services.related_works).
CELERY_BEAT_SCHEDULE["related-works-drain"] = {
    "task": "publications.tasks.related_works_drain",
    "schedule": 5 * 60,
    "options": {"queue": GRAPH_QUEUE},
}
CELERY_BEAT_SCHEDULE["related-works-compute-all"] = {
    "task": "publications.tasks.related_works_compute_all",
    "schedule": crontab(hour=4, minute=0, day_of_week="sunday"),
    "options": {"queue": GRAPH_QUEUE},
}

# Works whose embedding is missing, stale (a changed title or abstract) or from another model:
# embedded by ranges of ids on the workers, so a model change re-embeds in the background and a
# lost message only waits for the next sweep. The import's follow-up queues the same sweep.
CELERY_BEAT_SCHEDULE["discovery-work-embeddings-sweep"] = {
    "task": "discovery.tasks.work_embeddings_sweep",
    "schedule": 15 * 60,
}
# The index rebuilt when the embeddings changed since the last build (a cheap check otherwise);
# the similar researchers recomputed from the researchers' embeddings once a day.
CELERY_BEAT_SCHEDULE["discovery-work-index-refresh"] = {
    "task": "discovery.tasks.work_index_refresh",
    "schedule": 30 * 60,
}
CELERY_BEAT_SCHEDULE["discovery-similar-researchers"] = {
    "task": "discovery.tasks.similar_researchers_compute",
    "schedule": crontab(hour=2, minute=30),
}
