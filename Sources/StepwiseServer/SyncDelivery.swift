/// What the store hands back for a sync response.
public struct SyncDelivery: Sendable {
    /// The oldest unacknowledged, unexpired commands of the device, up to the batch's limit,
    /// in queue order. Their delivery count already includes this delivery.
    public var commands: [CommandRecord]
    /// How many unacknowledged, unexpired commands the device has in all.
    public var pendingCount: Int

    /// Creates a delivery.
    ///
    /// - Parameters:
    ///   - commands: the commands to send.
    ///   - pendingCount: all pending commands of the device.
    public init(commands: [CommandRecord], pendingCount: Int) {
        self.commands = commands
        self.pendingCount = pendingCount
    }
}
