#!/usr/bin/env bash
# Limits across processes: gunicorn with 2 workers on loopback, bursts from limits_check.py.
#   benchmarks/load/shared_limits.sh
# Counters live in the shared cache (the database cache table unless CACHE_URL is set).
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${LIMITS_PORT:-8766}"
OUT=benchmarks/out
mkdir -p "$OUT"
export DEBUG=1
./dev manage migrate_schemas --shared --verbosity 0
./dev manage migrate_schemas --tenant --verbosity 0
./dev manage demo_setup >/dev/null
./dev manage shell -c "from django.core.cache import cache; cache.clear()"  # counters of earlier runs
./dev manage user_create --tenant demo load01 --password load-test-pw --project handbook:reader >/dev/null
export DEBUG=0 SECRET_KEY="limits-secret-$(date +%s)-0123456789abcdefghijklmnopqrstuvwxyz"
export ALLOWED_HOSTS=demo.localhost SECURE_SSL_REDIRECT=0 LOG_LEVEL=WARNING OMP_NUM_THREADS=1
export API_TOKEN_RATE=20/min API_SEARCH_RATE=30/hour LOGIN_FAILURE_LIMIT=5
export LIMITS_ACCESS_LOG="$OUT/limits-access.log"
: > "$LIMITS_ACCESS_LOG"
.venv/bin/gunicorn portal.wsgi -w 2 --threads 4 -b "127.0.0.1:$PORT" --preload \
  --log-level warning --access-logfile "$LIMITS_ACCESS_LOG" --access-logformat '%(p)s %(r)s %(s)s' &
GUNICORN=$!
trap 'kill $GUNICORN 2>/dev/null; wait $GUNICORN 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -fs -o /dev/null -H "Host: demo.localhost" "http://127.0.0.1:$PORT/healthz" && break
  sleep 1
done
LIMITS_TOKEN=$(curl -s -X POST -H "Host: demo.localhost" -H 'Content-Type: application/json' \
  -d '{"username": "load01", "password": "load-test-pw"}' "http://127.0.0.1:$PORT/api/auth/token" \
  | .venv/bin/python -c 'import json, sys; print(json.load(sys.stdin)["token"])')
export LIMITS_TOKEN LIMITS_BASE="http://127.0.0.1:$PORT"
sleep 61  # the token just issued used one count of this window
.venv/bin/python benchmarks/load/limits_check.py
