"""Reads of the email digests: a user's default choice, and the deliveries still to send.

Who is due in an hour is selected and recorded in one statement by
feed.services.digests.digests_plan (an INSERT ... SELECT); its default-delivery rule is the SQL
fragment below, the same one digest_default_delivery runs for one user, so the preferences page
and the selection cannot disagree.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection

from bzpeer.users.models import User
from feed.models import DigestDelivery
from notifications.kinds import Delivery

# The digest's delivery for the user `u` (users_user) who never chose one: weekly when they
# follow anything (a researcher, topic or institution, muted or not), else off. Each EXISTS is
# one probe of a follow table's unique (user, record) index, whatever the number of follows,
# so this costs three index probes per user and needs nothing kept in step with the follows.
DEFAULT_DELIVERY_SQL = f"""
    CASE WHEN EXISTS (SELECT 1 FROM researchers_follow f WHERE f.user_id = u.id)
           OR EXISTS (SELECT 1 FROM feed_topicfollow f WHERE f.user_id = u.id)
           OR EXISTS (SELECT 1 FROM feed_institutionfollow f WHERE f.user_id = u.id)
         THEN '{Delivery.WEEKLY.value}' ELSE '{Delivery.OFF.value}' END"""


def digest_default_delivery(user: User) -> str:
    """The digest's delivery of a user with no stored choice: weekly if they follow anything,
    else off (registered with notifications by feed.apps). One query."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {DEFAULT_DELIVERY_SQL} FROM users_user u WHERE u.id = %s",  # noqa: S608
            [user.pk],
        )
        row = cursor.fetchone()
    return str(row[0]) if row else Delivery.OFF.value


def digest_deliveries_pending(*, period: str) -> list[int]:
    """Ids of the deliveries of `period` still to send, oldest first: never claimed, or claimed
    longer than the lease ago by a run that did not finish them (it died). The partial index
    digest_delivery_pending_idx holds only unfinished rows."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {DigestDelivery._meta.db_table}"  # noqa: S608
            " WHERE period = %s AND finished_at IS NULL"
            "   AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => %s))"
            " ORDER BY id",
            [period, settings.FEED_DIGEST_LEASE_SECONDS],
        )
        return [row[0] for row in cursor.fetchall()]
