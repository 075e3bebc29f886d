"""kb selectors: the supersede chain, through the one visibility rule."""

from __future__ import annotations

from kb.models import Document, Edge, EdgeType
from kb.selectors import document_supersede_chain
from tests.canonical.conftest import make_doc
from tests.conftest import make_user


def link(source: Document, target: Document, edge_type: str) -> None:
    Edge.objects.create(
        from_document=source, to_document=target, to_slug=target.slug, edge_type=edge_type
    )


def test_chain_reads_both_edge_directions_and_hides_what_the_user_cannot_see(alpha):
    v1 = make_doc("sc-main", "auth-v1", status="superseded")
    v2 = make_doc("sc-main", "auth-v2", status="superseded")
    v3 = make_doc("sc-main", "auth-v3")
    hidden = make_doc("sc-other", "auth-v4")
    link(v2, v1, EdgeType.SUPERSEDES)  # recorded on the newer record
    link(v2, v3, EdgeType.INVALIDATED_BY)  # recorded on the older record (superseded_by)
    link(hidden, v3, EdgeType.SUPERSEDES)
    reader = make_user(alpha, "sc-reader", projects={"sc-main": "reader"})

    assert document_supersede_chain(user=reader, document=v2) == ([v1], [v3])
    assert document_supersede_chain(user=reader, document=v1) == ([], [v2])
    # a successor in a project the reader is not in is not shown (nor is its existence)
    assert document_supersede_chain(user=reader, document=v3) == ([v2], [])
    superuser = make_user(alpha, "sc-root", superuser=True)
    assert document_supersede_chain(user=superuser, document=v3) == ([v2], [hidden])
