"""Enterprise sign-in of a tenant: its OpenID Connect provider, the group -> project role
mapping, and the links between the provider's subjects and the tenant's users."""
