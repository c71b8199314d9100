"""Create the demo superuser, or reset its password: `manage.py demo_admin --email E --password P`."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_email
from django.db import transaction

ADMIN_URL = "http://127.0.0.1:8000/admin/"


@transaction.atomic
def demo_admin_ensure(*, email: str, password: str) -> tuple[AbstractBaseUser, bool]:
    """The superuser with this email, created if missing, with this password and the email
    verified and primary (allauth requires a verified address to sign in). Idempotent.

    The username is the email, so either one signs in to the admin.
    """
    email = email.strip().lower()
    user_model = get_user_model()
    user = user_model.objects.select_for_update().filter(email__iexact=email).first()
    created = user is None
    if user is None:
        user = user_model(email=email, username=email)
    user.is_staff = True
    user.is_superuser = True
    user.is_active = True
    user.set_password(password)
    user.save()

    EmailAddress.objects.filter(user=user).exclude(email__iexact=email).update(primary=False)
    address = EmailAddress.objects.filter(user=user, email__iexact=email).first()
    if address is None:
        address = EmailAddress(user=user, email=email)
    address.verified = True
    address.primary = True
    address.save()
    return user, created


class Command(BaseCommand):
    help = "Create the demo superuser (or reset its password), with a verified primary email."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--email", required=True, help="The superuser's email; also its username."
        )
        parser.add_argument("--password", required=True, help="The password to set.")

    def handle(self, *args: Any, email: str, password: str, **options: Any) -> None:
        try:
            validate_email(email.strip())
        except ValidationError as error:
            raise CommandError(f"Not an email address: {email!r}") from error
        if not password:
            raise CommandError("The password must not be empty.")
        user, created = demo_admin_ensure(email=email, password=password)
        action = "Created" if created else "Updated"
        self.stdout.write(
            f"{action} superuser: sign in at {ADMIN_URL} as {user.email} with password {password}"
            " (the first visit asks you to set up two-factor authentication, required of staff)"
        )
