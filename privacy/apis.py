"""GET /api/auth/me/export: the caller's personal data export (GDPR art. 15)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from privacy.registry import PERSONAL_DATA
from privacy.services import user_data_export
from privacy.views import export_filename


class MyDataExportApi(APIView):
    """Everything this tenant holds about you: profile, memberships, conversations, chat log,
    audit rows you authored."""

    @extend_schema(
        responses={
            200: inline_serializer(
                "PersonalDataExport",
                {
                    "format": serializers.CharField(),
                    "tenant": serializers.CharField(),
                    "exported_at": serializers.DateTimeField(),
                    # one section per registry entry: an object (profile) or a list of rows
                    **{entry.key: serializers.JSONField() for entry in PERSONAL_DATA},
                },
            )
        },
        summary="Export everything this tenant holds about you",
    )
    def get(self, request: Request) -> Response:
        user = request.user
        if isinstance(user, AnonymousUser):  # IsAuthenticated already refused; narrows the type
            raise NotAuthenticated
        response = Response(user_data_export(user=user))
        filename = export_filename(request.user.get_username())
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
