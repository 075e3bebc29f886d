"""API routes of the knowledge base (mounted under /api/)."""

urlpatterns: list = []
