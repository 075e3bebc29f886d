"""SCIM 2.0 of a tenant host, mounted at /scim/v2/."""

from django.urls import path

from portal.identity import apis

urlpatterns = [
    path("Users", apis.ScimUsersApi.as_view(), name="scim-users"),
    path("Users/<str:user_id>", apis.ScimUserApi.as_view(), name="scim-user"),
    path("Groups", apis.ScimGroupsApi.as_view(), name="scim-groups"),
    path("Groups/<str:group_id>", apis.ScimGroupApi.as_view(), name="scim-group"),
    path(
        "ServiceProviderConfig",
        apis.ServiceProviderConfigApi.as_view(),
        name="scim-service-provider-config",
    ),
]
