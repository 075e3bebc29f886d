"""Document API routes (mounted under /api/)."""

urlpatterns: list = []
