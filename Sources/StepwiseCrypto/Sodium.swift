internal import CSodium

/// One-time libsodium initialisation.
///
/// `sodium_init()` is thread-safe and idempotent since libsodium 1.0.11; a `static let` makes
/// Swift run it once, lazily, before the first cryptographic call.
enum Sodium {
    static let initialized: Bool = {
        // 0: initialised now; 1: already initialised; -1: failure (no entropy source).
        sodium_init() >= 0
    }()

    static func ensureInitialized() {
        precondition(initialized, "libsodium failed to initialise")
    }
}
