"""URL routes of the chat app."""

urlpatterns: list = []
