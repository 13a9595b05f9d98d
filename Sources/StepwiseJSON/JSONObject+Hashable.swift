extension JSONObject: Hashable {
    /// Hashes consistently with `==`: independent of key order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        var sum = 0
        for (key, value) in self {
            var h = Hasher()
            h.combine(key)
            h.combine(value)
            sum = sum &+ h.finalize()
        }
        hasher.combine(sum)
    }
}
