"""The tenant's sign-in settings in the console (superusers: the tenant's administrators): the
identity provider (its client secret write-only), the group -> project role mapping, and the
audit of sign-ins, provisioning and role changes (read-only)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers

from portal.admin_site import NotFoundOutOfScopeMixin, ReadOnlyAdminMixin, site
from portal.identity import oidc, services
from portal.identity.models import (
    GroupRoleMapping,
    IdentityEvent,
    IdentityProvider,
    ScimGroup,
    ScimToken,
)


class SuperuserOnlyMixin:
    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)

    has_change_permission = has_view_permission
    has_add_permission = has_module_permission

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)


class IdentityProviderForm(forms.ModelForm):
    issuer = forms.URLField(
        max_length=500,
        assume_scheme="https",
        help_text=IdentityProvider._meta.get_field("issuer").help_text,
    )
    # write-only: never rendered back (render_value=False), blank on change keeps the stored one
    client_secret = forms.CharField(
        widget=forms.PasswordInput(render_value=False),
        required=False,
        strip=True,
        help_text="Stored encrypted and never shown again; leave empty to keep the current one.",
    )

    class Meta:
        model = IdentityProvider
        fields = [
            "name",
            "issuer",
            "client_id",
            "client_secret",
            "enabled",
            "allow_user_creation",
            "passwords_allowed",
            "groups_claim",
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.instance.client_secret_encrypted and not cleaned.get("client_secret"):
            self.add_error("client_secret", "Enter the client secret the provider gave you.")
        issuer = cleaned.get("issuer")
        if issuer and cleaned.get("enabled"):
            try:  # a typo here would break every sign-in: check it now, while the admin is here
                oidc.discover(issuer)
            except oidc.SignInError as error:
                self.add_error("issuer", error.message)
        return cleaned


@admin.register(IdentityProvider, site=site)
class IdentityProviderAdmin(NotFoundOutOfScopeMixin, SuperuserOnlyMixin, admin.ModelAdmin):
    form = IdentityProviderForm
    list_display = ["name", "issuer", "client_id", "enabled", "passwords_allowed", "updated_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # one provider per tenant
        return self.has_module_permission(request) and not IdentityProvider.objects.exists()

    def save_model(
        self, request: HttpRequest, obj: IdentityProvider, form: Any, change: bool
    ) -> None:
        services.provider_save(
            provider=obj, client_secret=form.cleaned_data.get("client_secret"), actor=request.user
        )


@admin.register(GroupRoleMapping, site=site)
class GroupRoleMappingAdmin(NotFoundOutOfScopeMixin, SuperuserOnlyMixin, admin.ModelAdmin):
    list_display = ["group", "project", "role"]
    list_filter = ["role"]
    search_fields = ["group", "project__key"]
    list_select_related = ["project"]


@admin.register(IdentityEvent, site=site)
class IdentityEventAdmin(
    ReadOnlyAdminMixin, NotFoundOutOfScopeMixin, SuperuserOnlyMixin, admin.ModelAdmin
):
    list_display = ["at", "kind", "source", "username", "detail", "address"]
    list_filter = ["kind", "source"]
    search_fields = ["username", "detail"]
    date_hierarchy = "at"


@admin.register(ScimToken, site=site)
class ScimTokenAdmin(NotFoundOutOfScopeMixin, SuperuserOnlyMixin, admin.ModelAdmin):
    """Create (or rotate: a new one replaces the old) and revoke the tenant's SCIM token; its
    secret is shown once, on the page that creates it."""

    list_display = ["prefix", "created", "last_used_at"]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: ScimToken, form: Any, change: bool) -> None:
        token, secret = services.scim_token_rotate(actor=request.user)
        obj.pk, obj.prefix = token.pk, token.prefix
        request.scim_secret = secret  # type: ignore[attr-defined]  # for response_add, this once

    def response_add(
        self, request: HttpRequest, obj: ScimToken, post_url_continue: str | None = None
    ) -> HttpResponse:
        response = TemplateResponse(
            request,
            "admin/identity/scim_token_created.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "secret": request.scim_secret,  # type: ignore[attr-defined]
                "base_url": request.build_absolute_uri("/scim/v2/"),
                "title": "SCIM token created",
            },
        )
        add_never_cache_headers(response)  # the secret must not stay in any cache
        return response


@admin.register(ScimGroup, site=site)
class ScimGroupAdmin(
    ReadOnlyAdminMixin, NotFoundOutOfScopeMixin, SuperuserOnlyMixin, admin.ModelAdmin
):
    """The groups the provider provisions, read-only: SCIM owns them."""

    list_display = ["display_name", "external_id", "updated"]
    search_fields = ["display_name"]
    fields = ["display_name", "external_id", "members"]
    readonly_fields = ["display_name", "external_id", "members"]
