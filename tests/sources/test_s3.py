"""The S3-compatible bucket connector against a real local S3 server (moto in server mode,
over HTTP): first sync, change, rename, delete, a retry after a kill midway, a missing
bucket and refused credentials as clear errors on the source."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from botocore.exceptions import ClientError

from kb.models import Document
from sources.connectors import s3
from sources.connectors.s3 import S3Connector
from sources.models import SourceItem, SyncState
from sources.services import source_create
from sources.sync import source_sync

BUCKET = "company-docs"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def bucket(endpoint):
    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="test-key",
        aws_secret_access_key="test-secret",
    )
    client.create_bucket(Bucket=BUCKET)
    yield client
    for entry in client.list_objects_v2(Bucket=BUCKET).get("Contents", []):
        client.delete_object(Bucket=BUCKET, Key=entry["Key"])
    client.delete_bucket(Bucket=BUCKET)


def put(client, key, text):
    client.put_object(Bucket=BUCKET, Key=key, Body=text.encode())


def s3_source(project, endpoint, **settings):
    return source_create(
        project=project,
        name="bucket",
        kind="s3",
        settings={
            "endpoint_url": endpoint,
            "bucket": BUCKET,
            "prefix": "handbook/",
            "access_key_id": "test-key",
            "secret_access_key": "test-secret",
            **settings,
        },
    )


def live(project):
    return {
        doc.source_path: doc
        for doc in Document.objects.filter(project=project, deleted_at__isnull=True)
    }


def sync(source):
    report = source_sync(source_id=source.pk)
    source.refresh_from_db()
    return report


def test_bucket_full_cycle(project, endpoint, bucket):
    put(bucket, "handbook/policies/leave.md", "# Leave\n\n25 days a year.\n")
    put(bucket, "handbook/policies/travel.md", "# Travel\n\nBook economy.\n")
    put(bucket, "handbook/logo.png", "not a document")
    put(bucket, "elsewhere/secret.md", "# Not under the prefix\n")
    source = s3_source(project, endpoint)
    assert "test-secret" not in str(source.secrets)

    report = sync(source)
    prefix = source.path_prefix
    assert (report.state, report.added, report.failed) == ("ok", 2, 0)
    assert sorted(live(project)) == [f"{prefix}policies/leave.md", f"{prefix}policies/travel.md"]
    leave = live(project)[f"{prefix}policies/leave.md"]

    put(bucket, "handbook/policies/leave.md", "# Leave\n\n30 days a year.\n")
    bucket.copy_object(
        Bucket=BUCKET,
        Key="handbook/travel-policy.md",
        CopySource={"Bucket": BUCKET, "Key": "handbook/policies/travel.md"},
    )
    bucket.delete_object(Bucket=BUCKET, Key="handbook/policies/travel.md")
    report = sync(source)
    assert (report.added, report.changed, report.removed) == (0, 2, 0)
    docs = live(project)
    assert sorted(docs) == [f"{prefix}policies/leave.md", f"{prefix}travel-policy.md"]
    assert docs[f"{prefix}policies/leave.md"].pk == leave.pk
    assert Document.objects.filter(project=project).count() == 2  # the rename kept its row

    bucket.delete_object(Bucket=BUCKET, Key="handbook/travel-policy.md")
    report = sync(source)
    assert (report.removed, report.state) == (1, "ok")
    assert sorted(live(project)) == [f"{prefix}policies/leave.md"]


def test_a_retry_after_a_kill_midway_adds_nothing_twice(project, endpoint, bucket, monkeypatch):
    for number in range(5):
        put(bucket, f"handbook/page-{number}.md", f"# Page {number}\n\nText {number}.\n")
    source = s3_source(project, endpoint)
    real_fetch = S3Connector.fetch
    calls = {"n": 0}

    def dying_fetch(self, change, cursor):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_fetch(self, change, cursor)

    monkeypatch.setattr(S3Connector, "fetch", dying_fetch)
    with pytest.raises(KeyboardInterrupt):
        source_sync(source_id=source.pk)
    monkeypatch.setattr(S3Connector, "fetch", real_fetch)
    assert sync(source).state == "ok"
    assert len(live(project)) == 5 == Document.objects.filter(project=project).count()
    assert SourceItem.objects.filter(source=source).count() == 5


def test_a_missing_bucket_and_refused_credentials_are_clear_errors(
    project, endpoint, bucket, monkeypatch
):
    source = s3_source(project, endpoint, bucket="no-such-bucket")
    assert sync(source).state == "failed"
    assert source.last_error == "The bucket 'no-such-bucket' does not exist."

    other = source_create(
        project=project,
        name="refused",
        kind="s3",
        settings={"endpoint_url": endpoint, "bucket": BUCKET, "access_key_id": "wrong"},
    )

    class RefusingService:
        """What an S3 service answers a key it does not know."""

        def get_paginator(self, name):
            return self

        def paginate(self, **kwargs):
            raise ClientError(
                {"Error": {"Code": "InvalidAccessKeyId", "Message": "unknown key"}},
                "ListObjectsV2",
            )

        def close(self):
            pass

    monkeypatch.setattr(s3.boto3, "client", lambda *args, **kwargs: RefusingService())
    sync(other)
    assert other.state == SyncState.FAILED
    assert other.last_error == (
        "The bucket refused the credentials: check the access key and its secret."
    )


def test_the_endpoint_must_be_a_web_address(project):
    from sources.services import SourceError

    with pytest.raises(SourceError) as caught:
        source_create(
            project=project,
            name="x",
            kind="s3",
            settings={"endpoint_url": "file:///etc", "bucket": BUCKET, "access_key_id": "k"},
        )
    assert caught.value.errors == {
        "settings.endpoint_url": ["Give an https:// URL of the S3 service."]
    }
