"""The provider's claims: email (verified, as a company directory's are) and the groups claim."""

from __future__ import annotations

from typing import Any

from oauth2_provider.oauth2_validators import OAuth2Validator


class GroupsValidator(OAuth2Validator):
    oidc_claim_scope = None  # every claim below, whatever the scopes

    def get_additional_claims(self, request: Any) -> dict[str, Any]:
        user = request.user
        return {
            "email": user.email,
            "email_verified": bool(user.email) and not user.last_name == "unverified",
            "name": user.first_name or user.username,
            "preferred_username": user.username,
            "groups": sorted(user.groups.values_list("name", flat=True)),
        }
