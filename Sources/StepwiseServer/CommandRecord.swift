public import StepwiseJSON

/// A queued command and its delivery history.
public struct CommandRecord: Sendable, Hashable {
    /// The command as queued.
    public var command: NewCommand
    /// How many sync responses carried it.
    public var deliveryCount: Int
    /// When it was last delivered.
    public var lastDeliveredAt: Int64?
    /// When the device acknowledged it.
    public var ackedAt: Int64?
    /// The device's result, if reported.
    public var result: CommandResult?

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - command: the command.
    ///   - deliveryCount: deliveries so far.
    ///   - lastDeliveredAt: last delivery time.
    ///   - ackedAt: acknowledgement time.
    ///   - result: the device's result.
    public init(
        command: NewCommand, deliveryCount: Int = 0, lastDeliveredAt: Int64? = nil, ackedAt: Int64? = nil,
        result: CommandResult? = nil
    ) {
        self.command = command
        self.deliveryCount = deliveryCount
        self.lastDeliveredAt = lastDeliveredAt
        self.ackedAt = ackedAt
        self.result = result
    }

    /// The command's state at `now`.
    ///
    /// - Parameter now: the current time (ms since the epoch).
    /// - Returns: ``CommandState/acked`` once acknowledged; else ``CommandState/expired`` at or
    ///   after its expiry; else delivered or queued.
    public func state(at now: Int64) -> CommandState {
        if ackedAt != nil { return .acked }
        if now >= command.expiresAt { return .expired }
        return deliveryCount > 0 ? .delivered : .queued
    }

    /// A listing of the command (its payload without secrets).
    ///
    /// - Parameter now: the current time, for the state.
    /// - Returns: `{"id", "device_id", "type", "payload", "state", "delivery_count",
    ///   "created_at", "expires_at", "acked_at", "result"}`.
    public func json(at now: Int64) -> JSONValue {
        [
            "id": .string(command.id), "device_id": .string(command.deviceID), "type": .string(command.type),
            "payload": command.payload, "state": .string(state(at: now).rawValue),
            "delivery_count": .integer(Int64(deliveryCount)), "created_at": .string(ServerTime.format(command.createdAt)),
            "expires_at": .string(ServerTime.format(command.expiresAt)),
            "acked_at": ackedAt.map { .string(ServerTime.format($0)) } ?? .null, "result": result?.json ?? .null,
        ]
    }
}
