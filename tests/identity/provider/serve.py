"""Run the test provider: `python -m tests.identity.provider.serve PORT FIXTURE.json`.

Creates its SQLite database, the users (with email and groups) and OIDC clients the fixture
lists, then serves on 127.0.0.1:PORT until terminated. The fixture:
{"users": [{"username", "password", "email", "groups": [...], "verified": true}],
 "clients": [{"client_id", "client_secret", "redirect_uris": [...]}]}
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None


def main() -> None:
    port, fixture_path = int(sys.argv[1]), sys.argv[2]
    folder = tempfile.mkdtemp(prefix="oidc-provider-")
    os.environ["PROVIDER_DB"] = os.path.join(folder, "provider.sqlite3")
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.identity.provider.settings"
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application
    from oauth2_provider.models import Application

    call_command("migrate", verbosity=0)
    with open(fixture_path, encoding="utf-8") as handle:
        fixture = json.load(handle)
    for spec in fixture["users"]:
        user = User.objects.create_user(
            username=spec["username"],
            password=spec["password"],
            email=spec.get("email", ""),
            last_name="" if spec.get("verified", True) else "unverified",
        )
        user.groups.set([Group.objects.get_or_create(name=name)[0] for name in spec["groups"]])
    for spec in fixture["clients"]:
        Application.objects.create(
            name=spec["client_id"],
            client_id=spec["client_id"],
            client_secret=spec["client_secret"],
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris=" ".join(spec["redirect_uris"]),
            algorithm=Application.RS256_ALGORITHM,
            skip_authorization=True,
        )
    server = make_server(
        "127.0.0.1",
        port,
        get_wsgi_application(),
        server_class=ThreadingServer,
        handler_class=QuietHandler,
    )
    server.serve_forever()


if __name__ == "__main__":
    main()
