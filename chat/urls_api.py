"""Chat API routes (mounted under /api/)."""

from django.urls import path

from chat import apis

urlpatterns = [
    path("kb/chat", apis.ChatApi.as_view(), name="chat-api"),
    path(
        "kb/documents/<int:pk>/preview",
        apis.DocumentPreviewApi.as_view(),
        name="chat-api-document-preview",
    ),
    path(
        "chat/messages/<int:pk>/citations",
        apis.MessageCitationsApi.as_view(),
        name="chat-api-message-citations",
    ),
    path(
        "kb/records/<int:pk>/issues",
        apis.RecordIssuesApi.as_view(),
        name="chat-api-record-issues",
    ),
    path("chat/notifications", apis.NotificationListApi.as_view(), name="chat-api-notifications"),
    path(
        "chat/notifications/<int:pk>/read",
        apis.NotificationReadApi.as_view(),
        name="chat-api-notification-read",
    ),
]
