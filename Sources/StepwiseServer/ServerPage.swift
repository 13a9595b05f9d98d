/// One page of a list endpoint: up to `limit` items, newest first, and how many match in all.
///
/// ```swift
/// let page = try await store.devices(tenant: tenant, limit: 100)
/// print(page.items.count, "of", page.total)
/// ```
public struct ServerPage<Item: Sendable>: Sendable {
    /// The items, newest first.
    public var items: [Item]
    /// How many items match the filter, beyond the limit too.
    public var total: Int

    /// Creates a page.
    ///
    /// - Parameters:
    ///   - items: the items, newest first.
    ///   - total: how many match in all.
    public init(items: [Item], total: Int) {
        self.items = items
        self.total = total
    }
}
