/// The push provider `none`: pushes are dropped; devices rely on their heartbeat sync.
public struct NoPushSender: PushSender {
    /// Creates the sender.
    public init() {}

    /// Does nothing.
    ///
    /// - Parameter push: ignored.
    public func send(_ push: SilentPush) {}
}
