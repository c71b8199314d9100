"""gunicorn's settings for bzpeer. gunicorn reads ./gunicorn.conf.py by itself when started
from the repository root (the image's WORKDIR), so `gunicorn bzpeer.wsgi` picks it up; the
Dockerfile names it anyway, so a different working directory cannot drop it silently."""

from __future__ import annotations

import gunicorn
import gunicorn.http.wsgi

# Every response of gunicorn carries "Server: gunicorn" (with the version in older releases):
# it tells a scanner which server's flaws to try, and gunicorn has no setting to drop it.
# The header is written from gunicorn.http.wsgi.SERVER when each response starts, so the name
# is replaced there (the module copied it from the package at import, which may be before this
# file runs). SERVER_SOFTWARE reaches the application's environ and the arbiter's environment.
UNDISCLOSED = "bzpeer"
gunicorn.SERVER = UNDISCLOSED
gunicorn.SERVER_SOFTWARE = UNDISCLOSED
gunicorn.http.wsgi.SERVER = UNDISCLOSED
gunicorn.http.wsgi.SERVER_SOFTWARE = UNDISCLOSED
