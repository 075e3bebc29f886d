"""WSGI entry point (gunicorn portal.wsgi), for production and for `./dev run`."""

import os

from django.conf import settings
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
application = get_wsgi_application()
if settings.DEBUG:
    # `./dev run` serves static files itself, as runserver did (the same handler, before any
    # middleware or database work); in production the proxy or a CDN serves collectstatic's
    # output and DEBUG is off.
    application = StaticFilesHandler(application)
