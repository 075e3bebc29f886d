"""URL routes of the canonical app."""

urlpatterns: list = []
