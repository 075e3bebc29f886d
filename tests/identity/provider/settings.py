"""A standalone OpenID Connect provider for the identity tests: django-oauth-toolkit with OIDC on,
its own Django project and SQLite file, run as a process of its own (`serve.py`).

Not part of the portal: django-tenants routes every request of the portal by host to a tenant
schema, while a provider is one issuer of its own with its own keys and users; served apart,
it is exactly what a tenant's identity provider is to the portal, another server over HTTP.
"""

from __future__ import annotations

import os

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

SECRET_KEY = "test-provider-only"
DEBUG = False
ALLOWED_HOSTS = ["*"]
ROOT_URLCONF = "tests.identity.provider.urls"
INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "tests.identity.provider.urls.count_requests",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["PROVIDER_DB"]}}
TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": []}]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LOGIN_URL = "/accounts/login/"
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# the provider's cookie must not be taken for the portal's (both are on loopback hosts)
SESSION_COOKIE_NAME = "provider_session"

# each process signs with a key of its own: another provider's tokens do not verify here
_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": _KEY.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode(),
    "PKCE_REQUIRED": True,
    "SCOPES": {"openid": "OpenID Connect", "email": "Email", "profile": "Profile"},
    "OAUTH2_VALIDATOR_CLASS": "tests.identity.provider.validator.GroupsValidator",
}
