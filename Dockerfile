# bzpeer: one image for the web server, the Celery worker and Celery beat.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    # The apps are imported from the source tree (pyproject installs dependencies only).
    PYTHONPATH=/app \
    # The image serves production: SECRET_KEY and ALLOWED_HOSTS must come with the container
    # (it refuses to start without them). docker-compose.yml runs it with the local settings.
    DJANGO_SETTINGS_MODULE=bzpeer.settings.production

WORKDIR /app

# Dependencies first, from pyproject.toml alone, so a code change does not reinstall them.
COPY pyproject.toml ./
RUN pip install .

COPY . .

# Static files are collected into the image with the production settings (the manifest they
# write is the one production reads); the secret and host given here exist only for this step.
RUN SECRET_KEY=collectstatic-only ALLOWED_HOSTS=localhost \
    python manage.py collectstatic --noinput --verbosity 0

RUN useradd --create-home --uid 1000 bzpeer && chown bzpeer /app
USER bzpeer

EXPOSE 8000
# gunicorn.conf.py hides the server software from the Server header.
CMD ["gunicorn", "--config", "gunicorn.conf.py", "bzpeer.wsgi", "-b", "0.0.0.0:8000"]
