"""A small canonical corpus for the retrieval tests (accepted/superseded pair, edges, rejection)."""

from __future__ import annotations

DOCS: dict[str, str] = {
    "dec-cache-v2.md": """---
type: decision
status: accepted
slug: dec-cache-v2
retrieval_priority: 90
summary: We standardised on Redis Cluster 7.2 as the cache layer for every service.
tags: [cache, redis]
supersedes: [dec-cache-v1]
depends_on: [mod-session-store]
related: [rej-memcached]
---

# ADR-0011: Redis Cluster is the standard cache layer

## Decision

We standardise on a six-node Redis Cluster 7.2 with client-side tracking as the cache
layer. Every service caches through the acme-cache library; every key carries a TTL.

## Consequences

Failover takes six to eight seconds and is routine.
""",
    "dec-cache-v1.md": """---
type: decision
status: superseded
slug: dec-cache-v1
retrieval_priority: 90
summary: The cache layer is a single Redis 6 node shared by all services.
tags: [cache, redis]
superseded_by: [dec-cache-v2]
---

# ADR-0003: A single Redis node as the cache layer

## Decision

We standardise on one Redis 6 node with 24 GB of memory and noeviction as the cache
layer, shared by login, ingest deduplication and tenant configuration.
""",
    "mod-session-store.md": """---
type: module-kb
status: accepted
slug: mod-session-store
summary: How login sessions are stored and expired.
tags: [sessions]
---

# Session store module

Login sessions live under the sess: prefix with a twelve hour sliding expiry.
A session is revoked by deleting its key.
""",
    "rej-memcached.md": """---
type: rejected-approach
status: accepted
slug: rej-memcached
summary: Memcached was rejected as the cache layer because it cannot persist or replicate.
tags: [cache, memcached]
---

# Rejected: Memcached as the cache layer

We evaluated Memcached for sessions and rejected it: no replication, no persistence,
and every restart empties it.
""",
    "rb-ingest-backlog.md": """---
type: runbook
status: accepted
slug: rb-ingest-backlog
summary: What to do when the tracking ingest queue backs up.
tags: [ingest, on-call]
---

# Runbook: ingest backlog

## Alert GW-4021

GW-4021 fires when the carrier event queue holds more than 50000 messages for ten minutes.
Scale the ingest workers to twelve replicas and check the carrier webhook error rate.
""",
    "holiday-policy.md": """# Holiday policy

Employees get twenty-eight days of paid leave per year. Requests go through the HR portal
at least two weeks ahead; public holidays do not count against the allowance.
""",
}

FOREIGN_DOC = """---
type: decision
status: accepted
slug: foreign-cache-secret
summary: "Secret plan, the cache layer moves to Redis Cluster with zebra-lattice tuning."
tags: [cache, redis]
---

# Foreign project: cache layer standard (zebra-lattice)

The standard cache layer is Redis Cluster 7.2. GW-4021 is also mentioned here.
Memcached was rejected as well.
"""

BETA_DOC = FOREIGN_DOC.replace("foreign-cache-secret", "beta-cache-secret")
