import StepwiseJSON

/// Describes each push it would send to APNs or FCM instead of sending it.
///
/// The reference server runs without network access to Apple or Google and without their
/// credentials, so `stepwise serve --push-provider apns|fcm` uses this sender: each line names
/// the provider, the device, the redacted token and the exact body a real sender would post.
///
/// ```swift
/// let sender = LoggingPushSender(provider: .apns) { print($0) }
/// ```
public struct LoggingPushSender: PushSender {
    /// The provider whose requests are described.
    public let provider: PushProvider
    private let log: @Sendable (String) -> Void

    /// Creates the sender.
    ///
    /// - Parameters:
    ///   - provider: `apns` or `fcm` (`none` logs that the push was dropped).
    ///   - log: where the lines go.
    public init(provider: PushProvider, log: @escaping @Sendable (String) -> Void) {
        self.provider = provider
        self.log = log
    }

    /// Logs the push.
    ///
    /// - Parameter push: the push.
    public func send(_ push: SilentPush) {
        let target = "device \(push.deviceID) (tenant \(push.tenant), token \(push.redactedToken)) for command \(push.commandID)"
        switch provider {
        case .none:
            log("push: none configured; \(target) will pick the command up on its next sync")
        case .apns:
            log("push (apns, not sent: no APNs access here): background push to \(target): \(JSONWriter.string(SilentPush.apnsPayload))")
        case .fcm:
            var message = push.fcmMessage
            if case .object(var outer) = message, case .object(var inner)? = outer["message"] {
                inner["token"] = .string(push.redactedToken)
                outer["message"] = .object(inner)
                message = .object(outer)
            }
            log("push (fcm, not sent: no FCM access here): data message to \(target): \(JSONWriter.string(message))")
        }
    }
}
