# bzpeer: one image for the web server, the Celery worker and Celery beat.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    # The apps are imported from the source tree (pyproject installs dependencies only).
    PYTHONPATH=/app

WORKDIR /app

# Dependencies first, from pyproject.toml alone, so a code change does not reinstall them.
COPY pyproject.toml ./
RUN pip install .

COPY . .

# Static files are collected into the image; any settings module will do for that, and
# local needs no secrets.
RUN DJANGO_SETTINGS_MODULE=bzpeer.settings.local python manage.py collectstatic --noinput --verbosity 0

RUN useradd --create-home --uid 1000 bzpeer && chown bzpeer /app
USER bzpeer

EXPOSE 8000
CMD ["gunicorn", "bzpeer.wsgi", "-b", "0.0.0.0:8000"]
