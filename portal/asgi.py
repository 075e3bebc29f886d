"""ASGI entry point (uvicorn portal.asgi:application)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
# Django runs each request's sync work (views, the MCP tools) on a thread of its own under
# ASGI, so a connection kept for the next request would stay open after its thread is gone:
# one more connection per request until PostgreSQL refuses clients. Django's advice is no
# persistent connections under ASGI; an operator may still decide otherwise.
os.environ.setdefault("CONN_MAX_AGE", "0")
application = get_asgi_application()
