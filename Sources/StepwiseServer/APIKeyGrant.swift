/// What an API key allows: one tenant, or any tenant (an admin key naming one with
/// `X-Tenant-Id`).
///
/// ```swift
/// try await store.addAPIKey("k-123", grant: .tenant(.defaultTenant), now: now)
/// try await store.addAPIKey("admin-1", grant: .admin, now: now)
/// ```
public enum APIKeyGrant: Hashable, Sendable {
    /// A tenant key: every request is scoped to this tenant.
    case tenant(TenantID)
    /// An admin key: each request names its tenant with `X-Tenant-Id`.
    case admin
}
