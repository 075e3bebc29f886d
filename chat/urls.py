"""URL routes of the chat app (mounted under /chat/)."""

from django.urls import path

from chat import views

urlpatterns = [
    path("", views.chat_page, name="chat"),
    path("c/<int:conversation_id>/", views.chat_page, name="chat-conversation"),
    path("send", views.chat_send, name="chat-send"),
    path("stream", views.chat_stream, name="chat-stream"),
    path("preview/<int:pk>/", views.chat_preview, name="chat-preview"),
]
