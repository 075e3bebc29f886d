#!/usr/bin/env bash
# Load tests on loopback: gunicorn serving the demo tenant, locust headless (locustfile.py).
#   benchmarks/load/run.sh [USERS=20] [SECONDS=60]
#       classic: employees sign in for a token, then search (4) and chat (1) through the API;
#       4 gunicorn workers x 2 threads
#   benchmarks/load/run.sh mixed [USERS=50] [SECONDS=300]
#       employees (editors) search (4), chat (2), open cited chunks (2) and the Documents page
#       (1) while one editor uploads LOAD_UPLOADS=200 files through the upload API and a
#       kb_worker ingests them; 2 gunicorn workers x 4 threads. Everyone signs in before the
#       measured window. Then waits (at most LOAD_DRAIN_SECONDS=600) for the queue and checks
#       through the API that every upload became a document.
#   benchmarks/load/run.sh steps ["10 25 50 75 100"] [STEP_SECONDS=60]
#       the mixed employees without uploads, more of them each step; per step throughput, p95
#       and errors, and the max sustainable rate (0 errors and search p95 < 1 s)
# Environment: LOAD_WORKERS / LOAD_THREADS (gunicorn), LOAD_UPLOADS, LOAD_DRAIN_SECONDS,
# LOAD_PORT, LOAD_WARMUP=0 (no warm-up), LOAD_NICE (locust's niceness: 10 in mixed and steps,
# 0 in classic), EMBEDDED_DB_DIR (the embedded database's folder; default .data/pg).
# Traffic only to 127.0.0.1. A sampler beside locust reports CPU (gunicorn, kb_worker,
# PostgreSQL, locust), database connections and lock waits (sampler.py). CSVs and summaries in
# benchmarks/out/. Every process started here is stopped on exit, Ctrl-C or failure. Exits
# non-zero on any request error, a failed sign-in, a cut-short window or an upload not ingested.
set -euo pipefail
cd "$(dirname "$0")/../.."

MODE=classic
case "${1:-}" in
  mixed) MODE=mixed; USERS="${2:-50}"; DURATION="${3:-300}" ;;
  steps)
    MODE=steps
    STEPS="${2:-10 25 50 75 100}"
    STEP_SECONDS="${3:-60}"
    USERS=$(tr ' ,' '\n\n' <<<"$STEPS" | sort -n | tail -1)
    DURATION=$(($(wc -w <<<"${STEPS//,/ }") * STEP_SECONDS))
    ;;
  *) USERS="${1:-20}"; DURATION="${2:-60}" ;;
esac
PORT="${LOAD_PORT:-8765}"
if [ "$MODE" = classic ]; then
  WORKERS="${LOAD_WORKERS:-4}"; THREADS="${LOAD_THREADS:-2}"; NICE="${LOAD_NICE:-0}"
  UPLOADS=0; ROLE=reader; CSV=load
else
  WORKERS="${LOAD_WORKERS:-2}"; THREADS="${LOAD_THREADS:-4}"; NICE="${LOAD_NICE:-10}"
  UPLOADS=0; ROLE=editor; CSV="load-$MODE"  # editors: the Documents page is theirs
  if [ "$MODE" = mixed ]; then UPLOADS="${LOAD_UPLOADS:-200}"; fi
fi
UPLOADER=loadup
OUT=benchmarks/out
mkdir -p "$OUT"
rm -f "$OUT/load-$MODE-window.json" "$OUT/load-$MODE-summary.json" "$OUT/load-$MODE-report.txt" \
  "$OUT/load-uploads.jsonl"

# Every process started here, stopped last-started first on any exit: background jobs of a
# script start with Ctrl-C ignored (gunicorn, locust and the worker handle it themselves, the
# rest would not), and a failure of this script must not leave them running.
STARTED=()
alive() { local state; state=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $state != Z* ]]; }
stop_started() {
  local i pid
  for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
    pid=${STARTED[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 1 150); do alive "$pid" || break; sleep 0.2; done  # 30 s to finish
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  STARTED=()
  # The embedded database stops with its last client; one that died without its exit hook
  # would leave it running.
  if [ -z "${DATABASE_URL:-}" ]; then
    .venv/bin/python -c 'import sys; from pathlib import Path; from portal.embedded_db import stop_embedded_server_if_unused; stop_embedded_server_if_unused(Path(sys.argv[1]))' \
      "${EMBEDDED_DB_DIR:-$PWD/.data/pg}" >/dev/null 2>&1 || true
  fi
}
trap stop_started EXIT
trap 'exit 130' INT TERM

# as ./dev sets it, for the processes started here without it (platformdirs warns otherwise)
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
  export XDG_RUNTIME_DIR="$PWD/.data/run"
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
fi
export DEBUG=1
./dev manage migrate_schemas --shared --verbosity 0
./dev manage migrate_schemas --tenant --verbosity 0
./dev manage demo_setup
UPLOADER_ARGS=()
if [ "$UPLOADS" -gt 0 ]; then UPLOADER_ARGS=(--uploader "$UPLOADER"); fi
.venv/bin/python benchmarks/load/prepare.py --users "$USERS" --role "$ROLE" "${UPLOADER_ARGS[@]}"

# Production-style serving: DEBUG off, real secret, no TLS redirect on loopback.
export DEBUG=0 SECRET_KEY="load-test-secret-$(date +%s)-0123456789abcdefghijklmnopqrstuvwxyz"
export ALLOWED_HOSTS=demo.localhost SECURE_SSL_REDIRECT=0 LOG_LEVEL=WARNING
# Every simulated employee fetches a token from the same loopback address, and the token
# throttle is per address and shared by all workers: allow the whole crowd in one minute.
export API_TOKEN_RATE="${API_TOKEN_RATE:-600/min}"
# One torch thread per request: concurrency comes from processes, not oversubscribed cores.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
# Keep-alive longer than any pause of a simulated person: with gunicorn's default of 2 s the
# server closes an idle connection just as locust reuses it for a POST now and then, and that
# request fails with "connection reset" (HTTP/1.1's keep-alive race, not the application's;
# in production the proxy in front holds the clients' connections).
.venv/bin/gunicorn portal.wsgi -w "$WORKERS" --threads "$THREADS" -b "127.0.0.1:$PORT" \
  --preload --log-level warning --graceful-timeout 10 --keep-alive "${LOAD_KEEPALIVE:-75}" &
GUNICORN=$!
STARTED+=("$GUNICORN")
for _ in $(seq 1 120); do
  curl -fs -o /dev/null -H "Host: demo.localhost" "http://127.0.0.1:$PORT/healthz" && break
  alive "$GUNICORN" || { echo "gunicorn did not start" >&2; exit 1; }
  sleep 1
done
WORKER=""
if [ "$UPLOADS" -gt 0 ]; then
  # The ingestion worker beside the server, as `./dev run` starts it; only now: two processes
  # starting the embedded database at once can read its pid file half-written.
  ./dev manage kb_worker >"$OUT/load-worker.log" 2>&1 &
  WORKER=$!
  STARTED+=("$WORKER")
fi
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

export LOAD_PROFILE="$MODE" LOAD_UPLOADS="$UPLOADS" LOAD_UPLOADER="$UPLOADER" LOAD_OUT="$OUT"
export LOAD_RUN_ID="${LOAD_RUN_ID:-$(date +%Y%m%d-%H%M%S)}"
SPAWN="$USERS"
LIMIT="$DURATION"
if [ "$MODE" != classic ]; then
  export LOAD_WINDOW_SECONDS="$DURATION" LOAD_STEPS="${STEPS:-}" LOAD_STEP_SECONDS="${STEP_SECONDS:-60}"
  if [ "$UPLOADS" -gt 0 ]; then SPAWN=$((USERS + 1)); fi  # the uploader is one more user
  # locust's own limit is only a backstop: the window opens once everyone has signed in and
  # closes itself (locustfile.Window); sign-ins take ~1-2 s of CPU per person.
  LIMIT=$((DURATION + 900))
fi
nice -n "$NICE" .venv/bin/locust -f benchmarks/load/locustfile.py --headless -u "$SPAWN" \
  -r "$SPAWN" -t "${LIMIT}s" --host "http://127.0.0.1:$PORT" --csv "$OUT/$CSV" \
  --only-summary --stop-timeout 10 >"$OUT/$CSV-locust.log" 2>&1 &
LOCUST=$!
STARTED+=("$LOCUST")
GROUPS_ARGS=(--group "gunicorn=$GUNICORN" --group "locust=$LOCUST")
if [ -n "$WORKER" ]; then GROUPS_ARGS+=(--group "kb_worker=$WORKER"); fi
.venv/bin/python benchmarks/load/sampler.py --out "$OUT/$CSV-samples.csv" --port "$PORT" \
  "${GROUPS_ARGS[@]}" --window "$OUT/load-$MODE-window.json" &
SAMPLER=$!
STARTED+=("$SAMPLER")
LOCUST_RC=0
wait "$LOCUST" || LOCUST_RC=$?
if [ "$MODE" = classic ]; then
  tail -25 "$OUT/$CSV-locust.log"
else
  cat "$OUT/load-$MODE-report.txt" 2>/dev/null || tail -25 "$OUT/$CSV-locust.log"
fi
kill -TERM "$SAMPLER" 2>/dev/null || true
wait "$SAMPLER" || true  # its summary

RC=0
if [ "$MODE" = classic ]; then
  RC=$LOCUST_RC
else
  .venv/bin/python - "$OUT/load-$MODE-summary.json" <<'EOF' || RC=1
import json
import sys
from pathlib import Path

path = Path(sys.argv[1])
if not path.exists():
    sys.exit("no summary: the window never opened (see the locust log)")
summary = json.loads(path.read_text())
problems = []
if not summary["window_complete"]:
    problems.append("the window was cut short")
if summary["failed_sign_ins"]:
    problems.append(f"{summary['failed_sign_ins']} sign-ins failed")
if summary["profile"] == "mixed":  # steps look for the limit: errors at the top are expected
    errors = next(row["errors"] for row in summary["endpoints"] if row["endpoint"] == "all")
    if errors:
        problems.append(f"{errors} request errors")
done = "0 errors" if summary["profile"] == "mixed" else "complete"
print("load run: " + ("; ".join(problems) if problems else done))
sys.exit(1 if problems else 0)
EOF
fi
if [ "$UPLOADS" -gt 0 ]; then
  .venv/bin/python benchmarks/load/uploads_check.py --log "$OUT/load-uploads.jsonl" \
    --planned "$UPLOADS" --base "http://127.0.0.1:$PORT" --uploader "$UPLOADER" \
    --wait "${LOAD_DRAIN_SECONDS:-600}" || RC=1
fi
exit "$RC"
