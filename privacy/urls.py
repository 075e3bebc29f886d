from django.urls import path

from privacy import apis, views

urlpatterns = [
    path("account/", views.account, name="account"),
    path("account/export.json", views.account_export, name="account-export"),
    path("api/auth/me/export", apis.MyDataExportApi.as_view(), name="api-me-export"),
]
