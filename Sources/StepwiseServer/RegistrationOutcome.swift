/// What a registration did.
public enum RegistrationOutcome: Hashable, Sendable {
    /// A new device of the tenant.
    case created
    /// A known device of the tenant, updated.
    case updated
}
