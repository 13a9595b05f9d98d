public import StepwiseSequences

/// The device's power state as the host reports it (SEMANTICS §6.4).
public enum PowerState: String, Sendable, Hashable, CaseIterable {
    /// On external power.
    case charging
    /// On battery, not low.
    case unplugged
    /// Battery low: intervals ×2.
    case lowBattery
    /// Battery critical: intervals ×4.
    case criticalBattery

    /// The interval multiplier for heartbeats and sync.
    public var intervalMultiplier: UInt64 {
        switch self {
        case .charging, .unplugged: 1
        case .lowBattery: 2
        case .criticalBattery: 4
        }
    }
}

/// The device's network state as the host reports it.
public enum NetworkState: String, Sendable, Hashable, CaseIterable {
    /// No connection.
    case offline
    /// A metered connection (cellular).
    case metered
    /// An unmetered connection (Wi-Fi, ethernet).
    case unmetered
}

/// The last reported device state; `nil` members were never reported (and count as met).
public struct DeviceConditions: Sendable, Hashable {
    /// Last reported power state.
    public var power: PowerState?
    /// Last reported network state.
    public var network: NetworkState?

    /// Creates conditions.
    public init(power: PowerState? = nil, network: NetworkState? = nil) {
        self.power = power
        self.network = network
    }

    /// Whether `requirement` holds now (SEMANTICS §2.5).
    public func satisfies(_ requirement: RunWhen) -> Bool {
        switch requirement.network {
        case .any: break
        case .connected: if network == .offline { return false }
        case .unmetered: if let network, network != .unmetered { return false }
        }
        if let charging = requirement.charging, let power {
            if charging != (power == .charging) { return false }
        }
        if requirement.batteryNotLow == true, let power {
            if power != .charging && power != .unplugged { return false }
        }
        return true
    }

    /// Why `requirement` does not hold, for "why isn't this running?".
    public func unmetReason(_ requirement: RunWhen) -> String? {
        var reasons: [String] = []
        switch requirement.network {
        case .any: break
        case .connected: if network == .offline { reasons.append("needs a network connection (offline)") }
        case .unmetered:
            if let network, network != .unmetered { reasons.append("needs an unmetered network (\(network.rawValue))") }
        }
        if let charging = requirement.charging, let power, charging != (power == .charging) {
            reasons.append(charging ? "needs the device charging (\(power.rawValue))" : "needs the device not charging")
        }
        if requirement.batteryNotLow == true, let power, power != .charging && power != .unplugged {
            reasons.append("needs a battery that is not low (\(power.rawValue))")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }
}
