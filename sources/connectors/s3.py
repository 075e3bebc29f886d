"""An S3-compatible bucket (AWS S3, MinIO, Ceph, R2...): endpoint, bucket, prefix, globs,
and an access key whose secret is kept encrypted.

The cursor is the listing as of the last sync: {key: ETag}. An object whose ETag moved to
another key is a rename (an ETag is the content's MD5 for a plain upload; a multipart
upload's differs, so such a move is a delete and an add).
"""

from __future__ import annotations

import json
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError
from rest_framework import serializers

from sources.connectors.base import (
    Change,
    ChangeSet,
    ConnectorError,
    ConnectorKind,
    Fetched,
    FetchError,
    GlobsField,
    listing_changes,
    wanted,
    web_url_check,
)

TIMEOUT_SECONDS = 30
REFUSED = {"AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken"}


class S3Settings(serializers.Serializer):
    endpoint_url = serializers.CharField(
        max_length=500,
        required=False,
        allow_blank=True,
        label="Endpoint URL",
        help_text="The S3-compatible service's https:// address; blank for Amazon S3.",
    )
    bucket = serializers.CharField(max_length=63)
    prefix = serializers.CharField(
        max_length=500,
        required=False,
        allow_blank=True,
        default="",
        help_text="Read only the objects under this prefix (e.g. handbook/).",
    )
    region = serializers.CharField(max_length=50, required=False, default="us-east-1")
    access_key_id = serializers.CharField(max_length=200, label="Access key ID")
    secret_access_key = serializers.CharField(
        max_length=500,
        required=False,
        allow_blank=True,
        label="Secret access key",
        help_text="Kept encrypted; never shown again.",
    )
    paths = GlobsField()

    def validate_endpoint_url(self, value: str) -> str:
        value = value.strip()
        return web_url_check(value, what="S3 service") if value else ""


class S3Connector:
    def __init__(self, config: dict[str, Any], cache_key: str) -> None:
        self.bucket: str = config["bucket"]
        self.prefix: str = config.get("prefix") or ""
        self.globs: list[str] = list(config.get("paths") or [])
        self.client = boto3.client(
            "s3",
            endpoint_url=config.get("endpoint_url") or None,
            region_name=config.get("region") or "us-east-1",
            aws_access_key_id=config.get("access_key_id") or "",
            aws_secret_access_key=config.get("secret_access_key") or "",
            config=Config(
                connect_timeout=TIMEOUT_SECONDS,
                read_timeout=TIMEOUT_SECONDS,
                retries={"max_attempts": 3},
            ),
        )

    def _explain(self, exc: Exception) -> ConnectorError:
        if isinstance(exc, ClientError):
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code == "NoSuchBucket":
                return ConnectorError(f"The bucket {self.bucket!r} does not exist.")
            if code in REFUSED:
                return ConnectorError(
                    "The bucket refused the credentials: check the access key and its secret."
                )
            return ConnectorError(f"The bucket answered {code or 'an error'}.")
        if isinstance(exc, EndpointConnectionError):
            return ConnectorError("The S3 service cannot be reached (check the endpoint URL).")
        return ConnectorError(f"Reading the bucket failed: {type(exc).__name__}.")

    def changes(self, cursor: str) -> ChangeSet:
        old: dict[str, str] = json.loads(cursor)["objects"] if cursor else {}
        new: dict[str, str] = {}
        try:
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=self.prefix
            )
            for page in pages:
                for entry in page.get("Contents", []):
                    path = entry["Key"][len(self.prefix) :]
                    if path and not path.endswith("/") and wanted(path, self.globs):
                        new[path] = str(entry.get("ETag", "")).strip('"')
        except (ClientError, BotoCoreError) as exc:
            raise self._explain(exc) from exc
        return ChangeSet(
            changes=listing_changes(old, new),
            cursor=json.dumps({"objects": new}, sort_keys=True),
            full=not cursor,
        )

    def fetch(self, change: Change, cursor: str) -> Fetched:
        key = f"{self.prefix}{change.external_id}"
        try:
            body = self.client.get_object(Bucket=self.bucket, Key=key)["Body"]
            content = body.read()
        except (ClientError, BotoCoreError) as exc:
            raise FetchError(f"{change.external_id}: {self._explain(exc)}") from exc
        return Fetched(
            content=content,
            name=change.path,
            metadata={
                "source": {"kind": "s3", "path": change.path, "bucket": self.bucket, "url": ""}
            },
        )

    def close(self) -> None:
        self.client.close()


KIND = ConnectorKind(
    name="s3",
    label="S3-compatible bucket",
    settings_serializer=S3Settings,
    build=S3Connector,
    secret_fields=("secret_access_key",),
)
