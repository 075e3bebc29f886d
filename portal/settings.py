"""Groundwork settings. Every environment variable the portal reads is read here and only here."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from exc


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a number, got {value!r}") from exc


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


# Under pytest the deterministic test defaults apply (hash embedder, throwaway database).
TESTING = env_bool("GROUNDWORK_TESTING", "pytest" in sys.modules)
DEBUG = env_bool("DEBUG", False)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if DEBUG or TESTING:
        SECRET_KEY = "groundwork-insecure-local-development-key-do-not-use-in-production"
    else:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")

# Fernet keys for secrets stored at rest (portal.secrets): the first encrypts, all decrypt.
ENCRYPTION_KEYS = env_list("ENCRYPTION_KEYS", [])

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", ["localhost", ".localhost", "127.0.0.1"] if (DEBUG or TESTING) else []
)
PORT = env_int("PORT", 8000)

# --- Database ----------------------------------------------------------------------------
EMBEDDED_DB_DIR = Path(env_str("EMBEDDED_DB_DIR", str(BASE_DIR / ".data" / "pg")))
# Memory of the embedded server, sized to the machine (PostgreSQL's own defaults are 128 MB
# of shared_buffers: the HNSW index of 100k chunks alone is ~200 MB). Shared memory is only
# touched as pages are cached, so a generous shared_buffers costs nothing on a small corpus.
# For an external PostgreSQL set the same in postgresql.conf (README, "Database memory").
_RAM_MB = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
EMBEDDED_DB_SETTINGS = {
    "shared_buffers": env_str(
        "EMBEDDED_DB_SHARED_BUFFERS", f"{min(max(_RAM_MB // 4, 128), 8192)}MB"
    ),
    "effective_cache_size": env_str(
        "EMBEDDED_DB_EFFECTIVE_CACHE_SIZE", f"{max(_RAM_MB // 2, 256)}MB"
    ),
    # HNSW builds are several times faster when the graph fits maintenance_work_mem: about
    # 2.2 KB per 384-d chunk, so 2.2 GB at a million chunks (benchmarks/RESULTS.md)
    "maintenance_work_mem": env_str(
        "EMBEDDED_DB_MAINTENANCE_WORK_MEM", f"{min(max(_RAM_MB // 8, 64), 4096)}MB"
    ),
    "work_mem": env_str("EMBEDDED_DB_WORK_MEM", "16MB"),
}
DATABASE_URL = env_str("DATABASE_URL")
if not DATABASE_URL:
    from portal.embedded_db import embedded_database_url

    DATABASE_URL = embedded_database_url(EMBEDDED_DB_DIR, EMBEDDED_DB_SETTINGS)

# Seconds a request thread keeps its connection for the next request. Bounded by the server's
# threads under gunicorn; 0 under ASGI (portal.asgi sets it), where each request's sync work
# runs on a thread of its own and a kept connection would outlive its thread.
CONN_MAX_AGE = env_int("CONN_MAX_AGE", 60)
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=CONN_MAX_AGE)}
DATABASES["default"]["ENGINE"] = "django_tenants.postgresql_backend"
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DATABASE_ROUTERS = ("django_tenants.routers.TenantSyncRouter",)

# --- Applications ------------------------------------------------------------------------
SHARED_APPS = [
    "django_tenants",
    "portal.tenants",
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc served from our static files, no CDN
    # the ingestion queue lives in the public schema; every job carries its tenant schema
    "django_tasks",
    "django_tasks_db",
]
TENANT_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.admin",
    "rest_framework.authtoken",
    "portal.access",
    "portal.identity",
    "kb",
    "canonical",
    "chat",
    "integrations",
    "privacy",
    "sources",
]
INSTALLED_APPS = list(SHARED_APPS) + [app for app in TENANT_APPS if app not in SHARED_APPS]

TENANT_MODEL = "tenants.Tenant"
TENANT_DOMAIN_MODEL = "tenants.Domain"
PUBLIC_SCHEMA_NAME = "public"
PUBLIC_SCHEMA_URLCONF = "portal.urls_public"
ROOT_URLCONF = "portal.urls"
TENANT_LIMIT_SET_CALLS = True

MIDDLEWARE = [
    "django_tenants.middleware.main.TenantMainMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "portal.middleware.ScriptSignInMiddleware",
    "portal.middleware.ContentSecurityPolicyMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "portal.context_processors.navigation",
                # the notification bell (chat's; portal never imports chat)
                "chat.context_processors.notifications",
            ],
        },
    }
]

WSGI_APPLICATION = "portal.wsgi.application"
ASGI_APPLICATION = "portal.asgi.application"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    # not a rule: Django's hook after every password change, which revokes the API tokens
    {"NAME": "portal.access.tokens.RevokeTokensOnPasswordChange"},
]
# passwords through Django's model backend, unless the tenant's identity provider turns them off
AUTHENTICATION_BACKENDS = ["portal.identity.backends.PasswordBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Security ----------------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG and not TESTING:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# No inline script anywhere: pages load JS from our own static files only.
CONTENT_SECURITY_POLICY = env_str(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "frame-src 'none'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
)
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_FAILURE_WINDOW = env_int("LOGIN_FAILURE_WINDOW", 300)
# How many reverse proxies in front of the app append to X-Forwarded-For. 0: the header is
# client-supplied and ignored; every limiter counts REMOTE_ADDR.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
# API tokens expire this many days after they were issued (0: never).
API_TOKEN_TTL_DAYS = env_int("API_TOKEN_TTL_DAYS", 30)

# Seconds an identity provider's discovery document and signing keys are kept in the shared
# cache (per issuer); a token signed with a key not kept reads the keys again at once.
OIDC_METADATA_CACHE_SECONDS = env_int("OIDC_METADATA_CACHE_SECONDS", 3600)

# --- Shared cache ------------------------------------------------------------------------
# Throttle and rate-limit counters must be shared by every process and server: the database
# cache table (created by migrate) by default, Redis when CACHE_URL=redis://host:6379/0.
CACHE_URL = env_str("CACHE_URL")
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES: dict[str, dict[str, Any]] = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "groundwork",
        }
    }
elif CACHE_URL in ("", "db"):
    CACHES = {
        "default": {
            "BACKEND": "portal.cache.DatabaseCache",
            "LOCATION": "groundwork_cache",
            "OPTIONS": {"MAX_ENTRIES": env_int("CACHE_MAX_ENTRIES", 100_000)},
        }
    }
else:
    raise ImproperlyConfigured(
        f"CACHE_URL must be redis://..., rediss://..., unix://... or db, got {CACHE_URL!r}"
    )

# --- API ---------------------------------------------------------------------------------
# JSON request bodies above this are a 413 before parsing (views may declare their own limit).
API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 1024 * 1024)
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "portal.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # signed in, then the scopes of a named API key (each view's `key_scopes`)
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "portal.authentication.KeyScopePermission",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["portal.parsers.LimitedJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "portal.schema.GroundworkAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "portal.api.exception_handler",
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    "DEFAULT_THROTTLE_RATES": {
        "auth_token": env_str("API_TOKEN_RATE", "20/min"),
        "search": env_str("API_SEARCH_RATE", "600/min"),
        "chat": env_str("API_CHAT_RATE", "120/min"),
        # the identity provider's provisioning calls, per SCIM token
        "scim": env_str("SCIM_RATE", "600/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Groundwork API",
    "DESCRIPTION": "Grounded search and chat over a tenant's knowledge base.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- Background tasks (django-tasks, database backend: the queue is a PostgreSQL table) -------
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# Tasks the workers enqueue on a schedule: dotted path of a django-tasks task -> period in
# seconds (0 disables). Exactly one worker enqueues each period (a shared-cache claim).
PERIODIC_TASKS: dict[str, int] = {
    "privacy.tasks.retention_purge_all": env_int("RETENTION_PURGE_EVERY_SECONDS", 86_400),
    # queues a sync of every source whose schedule is due (each source has its own interval)
    "sources.tasks.sources_sync_due": env_int("SOURCES_DUE_CHECK_SECONDS", 60),
    # queues the knowledge-health check of every project with accepted records (chat.health:
    # one chat turn per record, so daily; off in tests, which run it themselves)
    "chat.tasks.kb_health_all": env_int("KB_HEALTH_EVERY_SECONDS", 0 if TESTING else 86_400),
}

# --- Sources (connectors) ------------------------------------------------------------------
# Folders on this server that editors may name as a folder source or a local Git repository
# (comma-separated absolute paths); empty: local paths are refused.
SOURCES_LOCAL_ROOTS = env_list("SOURCES_LOCAL_ROOTS", [])
# Where the Git connector keeps its clones (one bare repository per source).
SOURCES_CACHE_DIR = Path(env_str("SOURCES_CACHE_DIR", str(BASE_DIR / ".data" / "sources")))

# --- Logging -----------------------------------------------------------------------------
LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "pgserver": {"level": "WARNING"},
        # the MCP SDK logs every stateless request's session start and stop at INFO
        "mcp": {"level": "WARNING"},
    },
}

# --- Knowledge base and retrieval (env names KB_*; tuning weights: kb/retrieval/weights.py) -
_EMBEDDING_PROVIDER = env_str("KB_EMBEDDING_PROVIDER", "hash" if TESTING else "local")
KB: dict[str, Any] = {
    # Embeddings: local (sentence-transformers, offline package) | openai | hash (tests only)
    "EMBEDDING_PROVIDER": _EMBEDDING_PROVIDER,
    # A sentence-transformers model folder on local disk for the local provider ("" = the
    # packaged all-MiniLM-L6-v2); never downloaded.
    "EMBEDDING_MODEL_PATH": env_str("KB_EMBEDDING_MODEL_PATH"),
    # Vector size: 0 = the model's own (local: read from the model; openai: the endpoint's
    # first answer; hash: 384). When set, checked (and requested from text-embedding-3).
    "EMBEDDING_DIMENSIONS": env_int("KB_EMBEDDING_DIMENSIONS", 0),
    "EMBEDDING_BATCH_SIZE": env_int("KB_EMBEDDING_BATCH_SIZE", 64),
    "EMBEDDING_BASE_URL": env_str("KB_EMBEDDING_BASE_URL", "https://api.openai.com/v1"),
    "EMBEDDING_MODEL": env_str("KB_EMBEDDING_MODEL", "text-embedding-3-small"),
    "EMBEDDING_API_KEY": env_str("KB_EMBEDDING_API_KEY"),
    "EMBEDDING_TIMEOUT": env_float("KB_EMBEDDING_TIMEOUT", 30.0),
    # Word pieces the embedding model reads (chunks are sized to fit; 0 = unbounded):
    # all-MiniLM-L6-v2 reads 256, OpenAI's embedding models 8191; the hash embedder all.
    "EMBEDDING_MAX_TOKENS": env_int(
        "KB_EMBEDDING_MAX_TOKENS",
        {"local": 256, "openai": 8191}.get(_EMBEDDING_PROVIDER, 0),
    ),
    # How long a process trusts its lookup of a tenant's active embedding space (kb_reembed
    # switches it); 0 looks it up on every query.
    "EMBEDDING_SPACE_CACHE_SECONDS": env_float("KB_EMBEDDING_SPACE_CACHE_SECONDS", 1.0),
    # Chunks kb_reembed embeds and writes per batch (one short transaction each)
    "REEMBED_BATCH_SIZE": env_int("KB_REEMBED_BATCH_SIZE", 256),
    # LRU of query/sentence vectors per process (0 disables)
    "EMBEDDING_CACHE_SIZE": env_int("KB_EMBEDDING_CACHE_SIZE", 0 if TESTING else 4096),
    # Chunking
    "CHUNK_TARGET_TOKENS": env_int("KB_CHUNK_TARGET_TOKENS", 512),
    "CHUNK_MAX_TOKENS": env_int("KB_CHUNK_MAX_TOKENS", 768),
    "CHUNK_OVERLAP_TOKENS": env_int("KB_CHUNK_OVERLAP_TOKENS", 64),
    "INGEST_MAX_FILE_BYTES": env_int("KB_INGEST_MAX_FILE_BYTES", 50 * 1024 * 1024),
    # Ingestion budget per document: beyond any of these the file is refused (nothing written)
    "INGEST_MAX_FRONTMATTER_BYTES": env_int("KB_INGEST_MAX_FRONTMATTER_BYTES", 64 * 1024),
    "INGEST_MAX_NESTING": env_int("KB_INGEST_MAX_NESTING", 20),
    "INGEST_MAX_CHUNKS": env_int("KB_INGEST_MAX_CHUNKS", 10_000),
    "INGEST_MAX_SECONDS": env_float("KB_INGEST_MAX_SECONDS", 60.0),
    # Uploads (browser and multipart API): per-file size, files per request, worker retries
    "UPLOAD_MAX_FILE_BYTES": env_int("KB_UPLOAD_MAX_FILE_BYTES", 25 * 1024 * 1024),
    "UPLOAD_MAX_FILES": env_int("KB_UPLOAD_MAX_FILES", 100),
    "INGEST_JOB_MAX_ATTEMPTS": env_int("KB_INGEST_JOB_MAX_ATTEMPTS", 3),
    # OCR of PDF pages without a text layer (kb.ingestion.ocr): the Tesseract command (a name
    # on PATH or a path; when it is missing, such PDFs are refused as before), its languages
    # ("eng+deu": each needs its tesseract-ocr-<lang> package) and the scanned pages read per
    # file at most (more is refused at upload; a page takes a few seconds of one core)
    "OCR_TESSERACT_CMD": env_str("KB_OCR_TESSERACT_CMD", "tesseract"),
    "OCR_LANGUAGES": env_str("KB_OCR_LANGUAGES", "eng"),
    "OCR_MAX_PAGES": env_int("KB_OCR_MAX_PAGES", 50),
    # Near-duplicate documents (kb.duplicates): the estimated Jaccard similarity of their word
    # 3-shingles from which two documents of a project are one group (one of them is cited
    # per answer); from 0.6 up every such pair is found (the LSH bands' S-curve)
    "DUPLICATE_THRESHOLD": env_float("KB_DUPLICATE_THRESHOLD", 0.8),
    # how often a worker looks for jobs whose worker died (and requeues them)
    "WORKER_REAP_SECONDS": env_float("KB_WORKER_REAP_SECONDS", 10.0),
    "WORKER_POLL_SECONDS": env_float("KB_WORKER_POLL_SECONDS", 1.0),
    # Retrieval arms
    "FTS_LANGUAGE": env_str("KB_FTS_LANGUAGE", "english"),
    "DEFAULT_LIMIT": env_int("KB_DEFAULT_LIMIT", 8),
    "MAX_LIMIT": env_int("KB_MAX_LIMIT", 100),
    "HNSW_EF_SEARCH": env_int("KB_HNSW_EF_SEARCH", 80),
    # Hybrid: the semantic arm runs on a second connection while the keyword arm runs
    # (outside transactions; one extra database connection per process)
    "PARALLEL_ARMS": env_bool("KB_PARALLEL_ARMS", True),
    # MaxScore pruning of the keyword arm (kb.retrieval.pruning): the same results, but at 1M
    # chunks the median pruned query is 17 % faster and the slowest ones 40 % slower, so off
    # (benchmarks/RESULTS.md, "Top-k pruning of the keyword arm").
    "KEYWORD_PRUNING": env_bool("KB_KEYWORD_PRUNING", False),
    "QUERY_MAX_CHARS": env_int("KB_QUERY_MAX_CHARS", 10_000),
    # Fusion: rerank_weighted_sum | rrf | semantic_only (the weights of each: kb/retrieval/weights.py)
    "FUSION_METHOD": env_str("KB_FUSION_METHOD", "rerank_weighted_sum"),
    # Identifiers named in a query (ADR-0005, GW-4021, env vars, slugs): their documents join
    # the candidates with the mention boost; one contained in more documents singles none out.
    "IDENTIFIER_BOOST_ENABLED": env_bool("KB_IDENTIFIER_BOOST_ENABLED", True),
    "IDENTIFIER_MAX_DOCS": env_int("KB_IDENTIFIER_MAX_DOCS", 8),
    "IDENTIFIER_MAX_CHUNKS": env_int("KB_IDENTIFIER_MAX_CHUNKS", 12),
    # Threshold, diversification, runner-ups
    "MIN_SIMILARITY": env_float("KB_MIN_SIMILARITY", 0.30),
    "MAX_CHUNKS_PER_DOC": env_int("KB_MAX_CHUNKS_PER_DOC", 3),
    "RUNNER_UP_MAX": env_int("KB_RUNNER_UP_MAX", 15),
    # Graph expansion (1 hop) and rejected-approach injection
    "GRAPH_EXPANSION_ENABLED": env_bool("KB_GRAPH_EXPANSION_ENABLED", True),
    "GRAPH_EXPANSION_EDGE_TYPES": env_list(
        "KB_GRAPH_EXPANSION_EDGE_TYPES",
        ["depends_on", "implements", "decision_for", "related_to", "supersedes"],
    ),
    "GRAPH_EXPANSION_MAX_NODES": env_int("KB_GRAPH_EXPANSION_MAX_NODES", 20),
    "REJECTED_INJECTION_ENABLED": env_bool("KB_REJECTED_INJECTION_ENABLED", True),
    "REJECTED_INJECTION_MAX_DOCS": env_int("KB_REJECTED_INJECTION_MAX_DOCS", 3),
}

# Django's multipart parser stops at the upload limit: one more file is the upload's refusal
# (kb.uploads.uploaded_files), not a parse of every file sent.
DATA_UPLOAD_MAX_NUMBER_FILES = KB["UPLOAD_MAX_FILES"]

# --- Curation ------------------------------------------------------------------------------
# An accepted record with no curation change for this many (30-day) months is due a review.
CURATION_STALE_AFTER_MONTHS = env_int("KB_CURATION_STALE_AFTER_MONTHS", 6)

# --- Chat ----------------------------------------------------------------------------------
CHAT: dict[str, Any] = {
    # Answer provider: extractive (offline, default) | openai (any OpenAI-compatible endpoint)
    "PROVIDER": env_str("KB_CHAT_PROVIDER", "extractive"),
    "BASE_URL": env_str("KB_CHAT_BASE_URL", "https://api.openai.com/v1"),
    "MODEL": env_str("KB_CHAT_MODEL", "gpt-4o-mini"),
    "API_KEY": env_str("KB_CHAT_API_KEY"),
    "TIMEOUT": env_float("KB_CHAT_TIMEOUT", 30.0),
    "STREAMING": env_bool("KB_CHAT_STREAMING", True),
    # Chunks retrieved per chat turn: a fact often sits in a list or table chunk ranked 9-12.
    "SEARCH_LIMIT": env_int("KB_CHAT_SEARCH_LIMIT", 12),
    # The answer engine embeds this many best-by-words units to judge them by meaning too.
    "EXTRACTIVE_EMBED_UNITS": env_int("KB_CHAT_EXTRACTIVE_EMBED_UNITS", 4),
    # The grounding gate: below both, a question is refused before any provider is called.
    # (KB_GROUNDING_MIN_SCORE / KB_GROUNDING_MIN_COSINE, the names until this release, still read.)
    "GROUNDING_MIN_SCORE": env_float(
        "KB_CHAT_GROUNDING_MIN_SCORE", env_float("KB_GROUNDING_MIN_SCORE", 0.25)
    ),
    "GROUNDING_MIN_COSINE": env_float(
        "KB_CHAT_GROUNDING_MIN_COSINE", env_float("KB_GROUNDING_MIN_COSINE", 0.45)
    ),
    "PROMPT_TIMEZONE": env_str("KB_PROMPT_TIMEZONE", "UTC"),
    "QUESTION_MAX_CHARS": env_int("KB_QUESTION_MAX_CHARS", 10_000),
    # Queue a conflicts check (chat.conflicts) for every document a new version is kept for.
    # Off in tests unless a test turns it on: the suite counts the tasks it queues.
    "CONFLICTS_ON_INGEST": env_bool("KB_CHAT_CONFLICTS_ON_INGEST", not TESTING),
}


# --- Personal data ---------------------------------------------------------------------------
def env_days(name: str) -> int | None:
    """A retention period in days; unset, empty or 0 means keep forever (None)."""
    days = env_int(name, 0)
    if days < 0:
        raise ImproperlyConfigured(f"{name} must be a number of days >= 0, got {days}")
    return days or None


# How long rows are kept before `retention_purge` deletes them (per tenant); default forever.
RETENTION: dict[str, int | None] = {
    "CHAT_LOG_DAYS": env_days("RETENTION_CHAT_LOG_DAYS"),
    "CONVERSATION_DAYS": env_days("RETENTION_CONVERSATION_DAYS"),
    "CONTENT_GAP_DAYS": env_days("RETENTION_CONTENT_GAP_DAYS"),
    # old document versions (a document's current version is always kept)
    "VERSION_DAYS": env_days("KB_VERSION_RETENTION_DAYS"),
}
