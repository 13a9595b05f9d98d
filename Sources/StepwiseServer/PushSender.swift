/// Sends silent pushes after a command is queued.
///
/// Sending is fire-and-forget: ``send(_:)`` must return at once (start any network work in a
/// task of its own) and never throw; a lost push only delays the command until the device's
/// next heartbeat sync.
///
/// ```swift
/// struct RecordingPushSender: PushSender {
///     let sent = Mutex<[SilentPush]>([])
///     func send(_ push: SilentPush) { sent.withLock { $0.append(push) } }
/// }
/// ```
public protocol PushSender: Sendable {
    /// Starts sending `push`.
    ///
    /// - Parameter push: the device and its token.
    func send(_ push: SilentPush)
}
