/// Which push service wakes devices after a command is queued (SYNC.md §5).
public enum PushProvider: String, Sendable, Hashable, CaseIterable {
    /// No push: devices pick commands up on their next scheduled or heartbeat sync.
    case none
    /// Apple Push Notification service: a background push (`content-available: 1`).
    case apns
    /// Firebase Cloud Messaging: a data-only message.
    case fcm
}
