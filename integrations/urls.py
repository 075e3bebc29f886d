from django.urls import path

from integrations.apis import McpApi

urlpatterns = [
    path("", McpApi.as_view(), name="mcp"),
]
