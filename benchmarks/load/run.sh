#!/usr/bin/env bash
# Load test on loopback: gunicorn serving the demo tenant, locust with N users for D seconds.
#   benchmarks/load/run.sh [USERS=20] [SECONDS=60]
# Bounded in time; traffic only to 127.0.0.1. Prints a summary and leaves CSVs in benchmarks/out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
USERS="${1:-20}"
DURATION="${2:-60}"
PORT="${LOAD_PORT:-8765}"
WORKERS="${LOAD_WORKERS:-4}"
THREADS="${LOAD_THREADS:-2}"
OUT=benchmarks/out
mkdir -p "$OUT"
export DEBUG=1
./dev manage migrate_schemas --shared --verbosity 0
./dev manage migrate_schemas --tenant --verbosity 0
./dev manage demo_setup
./dev manage shell -c "from django.core.cache import cache; cache.clear()"  # counters of earlier runs
for i in $(seq -w 1 "$USERS"); do
  ./dev manage user_create --tenant demo "load$i" --password load-test-pw --project handbook:reader >/dev/null
done
# Production-style serving: DEBUG off, real secret, no TLS redirect on loopback.
export DEBUG=0 SECRET_KEY="load-test-secret-$(date +%s)-0123456789abcdefghijklmnopqrstuvwxyz"
export ALLOWED_HOSTS=demo.localhost SECURE_SSL_REDIRECT=0 LOG_LEVEL=WARNING
# Every simulated employee fetches a token from the same loopback address, and the token
# throttle is per address and shared by all workers: allow the whole crowd in one minute.
export API_TOKEN_RATE="${API_TOKEN_RATE:-600/min}"
# One torch thread per request: concurrency comes from processes, not oversubscribed cores.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
.venv/bin/gunicorn portal.wsgi -w "$WORKERS" --threads "$THREADS" -b "127.0.0.1:$PORT" \
  --preload --log-level warning &
GUNICORN=$!
trap 'kill $GUNICORN 2>/dev/null; wait $GUNICORN 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -fs -o /dev/null -H "Host: demo.localhost" "http://127.0.0.1:$PORT/healthz" && break
  sleep 1
done
# Warm up (steady state, not a cold start): every worker loads the embedding model and fills its
# sentence-embedding cache by answering each gold question a few times. Measured queries are then
# all new texts (see locustfile.py), so the query embedding is never a cache hit.
if [ "${LOAD_WARMUP:-1}" = 1 ]; then
  TOKEN=$(curl -s -X POST -H "Host: demo.localhost" -H 'Content-Type: application/json' \
    -d '{"username": "load01", "password": "load-test-pw"}' "http://127.0.0.1:$PORT/api/auth/token" \
    | .venv/bin/python -c 'import json, sys; print(json.load(sys.stdin)["token"])')
  for _ in $(seq 1 "$WORKERS"); do cat kb/demo_corpus/QUESTIONS.jsonl; done \
    | .venv/bin/python -c 'import json, sys; [print(json.dumps({"question": json.loads(l)["q"]})) for l in sys.stdin if l.strip()]' \
    | xargs -d '\n' -P 4 -I{} curl -s -o /dev/null -X POST -H "Host: demo.localhost" \
        -H "Authorization: Token $TOKEN" -H 'Content-Type: application/json' -d {} \
        "http://127.0.0.1:$PORT/api/kb/chat"
fi
.venv/bin/locust -f benchmarks/load/locustfile.py --headless -u "$USERS" -r "$USERS" \
  -t "${DURATION}s" --host "http://127.0.0.1:$PORT" --csv "$OUT/load" --only-summary \
  --stop-timeout 10 2>&1 | tail -25
