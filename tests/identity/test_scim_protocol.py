"""The SCIM protocol module alone (no database): filters, and the PATCH bodies Okta and
Azure AD send, read into the changes they ask for."""

from __future__ import annotations

import pytest

from portal.identity import scim

USERS = {"username": "username", "emails.value": "email"}


def test_filters_take_eq_on_known_attributes_with_escaped_quotes():
    assert scim.parse_filter('userName eq "a\\"b@x.test"', USERS) == ("username", 'a"b@x.test')
    assert scim.parse_filter('emails.value EQ "a@x.test"', USERS) == ("email", "a@x.test")
    for bad in ('title eq "x"', 'userName co "x"', 'userName eq "a" or userName eq "b"', ""):
        with pytest.raises(scim.ScimError) as refused:
            scim.parse_filter(bad, USERS)
        assert (refused.value.status, refused.value.scim_type) == (400, "invalidFilter")


def test_user_patches_of_okta_and_azure():
    okta = scim.user_change_from_patch(
        {"Operations": [{"op": "replace", "value": {"active": False, "name": {"givenName": "A"}}}]}
    )
    assert (okta.active, okta.given_name, okta.username) == (False, "A", None)
    azure = scim.user_change_from_patch(
        {
            "Operations": [
                {"op": "Replace", "path": "active", "value": "True"},
                {"op": "Add", "path": 'emails[type eq "work"].value', "value": "a@x.test"},
                {"op": "Replace", "path": "userName", "value": "a@x.test"},
            ]
        }
    )
    assert (azure.active, azure.email, azure.username) == (True, "a@x.test", "a@x.test")
    with pytest.raises(scim.ScimError):
        scim.user_change_from_patch(
            {"Operations": [{"op": "replace", "path": "active", "value": "yes"}]}
        )
    with pytest.raises(scim.ScimError):
        scim.user_change_from_patch({"Operations": "replace"})


def test_group_patches_of_okta_and_azure():
    change = scim.group_change_from_patch(
        {
            "Operations": [
                {"op": "add", "path": "members", "value": [{"value": "1"}, {"value": "2"}]},
                {"op": "remove", "path": 'members[value eq "3"]'},
                {"op": "Remove", "path": "members", "value": [{"value": "4"}]},
                {"op": "replace", "value": {"id": "9", "displayName": "eng"}},
            ]
        }
    )
    assert (change.add, change.remove, change.replace, change.display_name) == (
        ["1", "2"],
        ["3", "4"],
        None,
        "eng",
    )
    replaced = scim.group_change_from_patch(
        {"Operations": [{"op": "replace", "path": "members", "value": [{"value": "5"}]}]}
    )
    assert replaced.replace == ["5"]
    with pytest.raises(scim.ScimError) as refused:
        scim.group_change_from_patch({"Operations": [{"op": "add", "path": "owners", "value": []}]})
    assert refused.value.scim_type == "invalidPath"


def test_a_new_user_needs_a_username_and_takes_the_primary_email():
    change = scim.user_change_from_resource(
        {
            "userName": "a",
            "emails": [{"value": "other@x.test"}, {"value": "main@x.test", "primary": True}],
        }
    )
    assert (change.username, change.email, change.active) == ("a", "main@x.test", True)
    with pytest.raises(scim.ScimError):
        scim.user_change_from_resource({"emails": []})
