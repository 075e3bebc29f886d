"""The shared cache behind every throttle and rate-limit counter (docs/architecture.md, "Where each rule lives")."""

from __future__ import annotations

import base64
import pickle
from typing import Any

from django.core.cache.backends.db import DatabaseCache as DjangoDatabaseCache
from django.db import connections, router, transaction
from django.utils import timezone


class DatabaseCache(DjangoDatabaseCache):
    """Django's database cache with an atomic `incr`.

    Django's `incr` is get-then-set, so two processes counting the same key lose hits (and
    the set resets the expiry). Here the row is locked for the read-modify-write and keeps
    its expiry, so a counter shared by every process and server never under-counts.
    """

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        stored_key = self.make_and_validate_key(key, version=version)
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        table = connection.ops.quote_name(self._table)  # type: ignore[attr-defined]
        own_transaction = not connection.in_atomic_block
        with transaction.atomic(using=db), connection.cursor() as cursor:
            if own_transaction:
                # a counter is not worth an fsync (losing the last hits in a crash is
                # harmless); never relaxed for a caller's transaction that holds real data
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
            cursor.execute(
                f"SELECT value FROM {table} WHERE cache_key = %s AND expires > %s FOR UPDATE",
                [stored_key, timezone.now()],
            )
            row = cursor.fetchone()
            if row is None:
                raise ValueError(f"Key '{key}' not found")
            value = pickle.loads(base64.b64decode(row[0].encode())) + delta
            encoded = base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")
            cursor.execute(
                f"UPDATE {table} SET value = %s WHERE cache_key = %s", [encoded, stored_key]
            )
        return value
