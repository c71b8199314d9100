"""The hostile sweep's small site (tests/bzpeer/hostile.py), a fixture for every test here that
walks the site's URL patterns."""

from tests.bzpeer.hostile import site  # noqa: F401 - the fixture
