"""URL routes of the chat app (mounted under /chat/)."""

from django.urls import path

from chat import views, views_conversations, views_notifications, views_versions

urlpatterns = [
    path("", views.chat_page, name="chat"),
    path("c/<int:conversation_id>/", views.chat_page, name="chat-conversation"),
    path("send", views.chat_send, name="chat-send"),
    path("stream", views.chat_stream, name="chat-stream"),
    path("turn/<str:turn_key>", views.chat_turn, name="chat-turn"),
    path("preview/<int:pk>/", views.chat_preview, name="chat-preview"),
    path("documents/<int:pk>/", views.document_page, name="chat-document"),
    path(
        "documents/<int:pk>/versions/",
        views_versions.document_versions,
        name="chat-document-versions",
    ),
    path(
        "documents/<int:pk>/versions/<int:number>/restore/",
        views_versions.document_version_restore,
        name="chat-document-version-restore",
    ),
    path(
        "c/<int:conversation_id>/rename",
        views_conversations.conversation_rename_view,
        name="chat-conversation-rename",
    ),
    path(
        "c/<int:conversation_id>/delete",
        views_conversations.conversation_delete_view,
        name="chat-conversation-delete",
    ),
    path("notifications/", views_notifications.notifications_page, name="chat-notifications"),
    path(
        "notifications/<int:notification_id>/read",
        views_notifications.notification_read,
        name="chat-notification-read",
    ),
    path(
        "notifications/read",
        views_notifications.notifications_read_all,
        name="chat-notifications-read-all",
    ),
    path("m/<int:message_id>/feedback", views_conversations.feedback_view, name="chat-feedback"),
]
