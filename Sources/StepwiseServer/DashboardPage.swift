import StepwiseJSON

/// The server-rendered web page at `GET /`: pending approvals with their choices as buttons,
/// instance statuses with step timelines, devices, recent commands and telemetry.
///
/// Everything that came from a device or a client is HTML-escaped; the page loads no external
/// asset (its CSS is inline) and its forms post back to this server only.
struct DashboardPage {
    var tenant: TenantID
    /// The `tenant` parameter to carry in links and forms (admin keys), if any.
    var tenantParameter: String?
    var csrfToken: String
    var now: Int64
    var notice: Notice?
    var approvals: ServerPage<ApprovalRecord>
    var statuses: ServerPage<InstanceStatusRecord>
    var devices: ServerPage<DeviceRecord>
    var commands: ServerPage<CommandRecord>
    var telemetry: ServerPage<TelemetryEvent>

    /// A message shown after a form post (fixed texts: nothing from the URL is echoed).
    enum Notice: String {
        case resolved, notPending = "not_pending", invalidChoice = "invalid_choice", badToken = "bad_token", failed

        var text: String {
            switch self {
            case .resolved: "Approval resolved: a complete_step command is queued for the device."
            case .notPending: "That approval is no longer pending."
            case .invalidChoice: "That value is not one of the approval's choices."
            case .badToken: "The form was stale or forged; reload the page and try again."
            case .failed: "The approval could not be resolved; see the server log."
            }
        }

        var isError: Bool { self != .resolved }
    }

    func render() -> String {
        var html = Self.head(title: "Stepwise sync server")
        html += "<header><h1>Stepwise sync server</h1><p>Tenant <b>\(HTML.escape(tenant.rawValue))</b> · "
        html += "\(devices.total) device\(devices.total == 1 ? "" : "s") · \(approvals.total) pending approval"
        html += "\(approvals.total == 1 ? "" : "s") · \(statuses.total) instance\(statuses.total == 1 ? "" : "s") · "
        html += "<a href=\"\(HTML.escape(homeLink))\">Refresh</a> · <span class=\"muted\">\(ServerTime.format(now))</span></p></header>\n"
        if let notice {
            html += "<p class=\"notice\(notice.isError ? " error" : "")\" role=\"status\">\(HTML.escape(notice.text))</p>\n"
        }
        html += approvalsSection()
        html += instancesSection()
        html += devicesSection()
        html += commandsSection()
        html += telemetrySection()
        html += """
            <footer class="muted">API clients send <code>x-api-key</code>. This page accepts the key once as
            <code>/?key=…</code> (then kept in an HttpOnly cookie) · <a href="/dashboard/logout">Sign out</a></footer>
            </body></html>

            """
        return html
    }

    var homeLink: String {
        tenantParameter.map { "/?tenant=" + HTML.percentEncode($0) } ?? "/"
    }

    // MARK: Sections

    func approvalsSection() -> String {
        var html = "<section id=\"approvals\"><h2>Pending approvals (\(approvals.total))</h2>\n"
        if approvals.items.isEmpty {
            html += "<p class=\"muted\">No approval is waiting.</p>"
        }
        for approval in approvals.items {
            html += "<article class=\"card approval\">"
            html += "<p class=\"prompt\">\(HTML.escape(approval.prompt ?? "Input requested"))</p>"
            html += "<dl>"
            html += Self.term("Step", approval.blockID)
            html += Self.term("Sequence", approval.sequenceName ?? "—")
            html += Self.term("Instance", approval.instanceID)
            html += Self.term("Device", approval.deviceID)
            if let storeAs = approval.storeAs { html += Self.term("Stored as", storeAs) }
            html += Self.term("Since", ServerTime.format(approval.createdAt))
            html += Self.term("Expires", ServerTime.format(approval.expiresAt))
            html += "</dl>"
            html += "<form method=\"post\" action=\"/dashboard/approvals/\(HTML.escape(HTML.percentEncode(approval.id)))/resolve\">"
            html += "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrfToken))\">"
            if let tenantParameter {
                html += "<input type=\"hidden\" name=\"tenant\" value=\"\(HTML.escape(tenantParameter))\">"
            }
            let choices = approval.choices.arrayValue ?? []
            if choices.isEmpty {
                html += "<label>Value <input name=\"value\" required></label> <button type=\"submit\">Complete</button>"
            } else {
                for choice in choices {
                    guard let value = choice["value"] else { continue }
                    let label = choice["label"]?.stringValue ?? Self.choiceText(value)
                    html += "<button type=\"submit\" name=\"value\" value=\"\(HTML.escape(Self.choiceText(value)))\">"
                    html += "\(HTML.escape(label))</button> "
                }
            }
            html += "</form></article>\n"
        }
        return html + "</section>\n"
    }

    func instancesSection() -> String {
        var html = "<section id=\"instances\"><h2>Instances (\(statuses.total))</h2>\n"
        if statuses.items.isEmpty {
            html += "<p class=\"muted\">No device has reported an instance yet.</p>"
        }
        for status in statuses.items {
            let version = status.sequenceVersion.map { " v\($0)" } ?? ""
            html += "<article class=\"card instance\"><h3>\(HTML.escape(status.sequenceName.isEmpty ? "(unnamed)" : status.sequenceName))"
            html += "\(HTML.escape(version)) \(Self.badge(status.state))</h3><dl>"
            html += Self.term("Instance", status.instanceID)
            html += Self.term("Device", status.deviceID)
            if let step = status.currentStep {
                html += Self.term("Current step", step + (status.handler.map { " (\($0))" } ?? ""))
            }
            if let parent = status.parentInstanceID { html += Self.term("Parent", parent) }
            html += Self.term("Reported", ServerTime.format(status.reportedAt))
            html += "</dl>"
            if !status.error.isNull {
                html += "<p class=\"error\">\(HTML.escape(status.error.stringValue ?? JSONWriter.string(status.error)))</p>"
            }
            html += timeline(status.steps)
            html += "</article>\n"
        }
        return html + "</section>\n"
    }

    func timeline(_ steps: JSONValue) -> String {
        let items = steps.arrayValue ?? []
        guard !items.isEmpty else { return "<p class=\"muted\">No steps reported.</p>" }
        var html = "<ol class=\"timeline\">"
        for step in items {
            let state = step["state"]?.stringValue ?? "unknown"
            let started = step["started_at"]?.stringValue
            let completed = step["completed_at"]?.stringValue
            html += "<li class=\"step \(Self.stateClass(state))\"><span class=\"dot\" aria-hidden=\"true\"></span>"
            html += "<b>\(HTML.escape(step["block_id"]?.stringValue ?? "?"))</b> "
            html += "<span class=\"muted\">\(HTML.escape(step["block_type"]?.stringValue ?? ""))</span> "
            html += "<span class=\"state\">\(HTML.escape(state))</span>"
            if let handler = step["handler"]?.stringValue { html += " · \(HTML.escape(handler))" }
            if let started {
                html += " · <span class=\"muted\">\(HTML.escape(started))"
                if let completed { html += " → \(HTML.escape(completed))" }
                if let start = ServerTime.parse(started), let end = completed.flatMap(ServerTime.parse), end >= start {
                    html += " (\(Self.duration(end - start)))"
                }
                html += "</span>"
            }
            html += "</li>"
        }
        return html + "</ol>"
    }

    func devicesSection() -> String {
        var html = "<section id=\"devices\"><h2>Devices (\(devices.total))</h2>\n"
        guard !devices.items.isEmpty else { return html + "<p class=\"muted\">No device is registered.</p></section>\n" }
        html += "<table><thead><tr><th>Device</th><th>Platform</th><th>App</th><th>Push</th><th>Registered</th><th>Last sync</th></tr></thead><tbody>"
        for device in devices.items {
            html += "<tr><td><code>\(HTML.escape(device.deviceID))</code></td><td>\(HTML.escape(device.platform))</td>"
            html += "<td>\(HTML.escape(device.appVersion ?? "—"))</td><td>\((device.pushToken ?? "").isEmpty ? "no" : "yes")</td>"
            html += "<td>\(ServerTime.format(device.registeredAt))</td>"
            html += "<td>\(device.lastSyncAt.map(ServerTime.format) ?? "never")</td></tr>"
        }
        return html + "</tbody></table></section>\n"
    }

    func commandsSection() -> String {
        var html = "<section id=\"commands\"><h2>Recent commands (\(commands.total))</h2>\n"
        guard !commands.items.isEmpty else { return html + "<p class=\"muted\">No command was queued.</p></section>\n" }
        html += "<table><thead><tr><th>Command</th><th>Type</th><th>Device</th><th>State</th><th>Deliveries</th><th>Result</th></tr></thead><tbody>"
        for record in commands.items {
            let state = record.state(at: now).rawValue
            var result = "—"
            if let outcome = record.result {
                result = outcome.outcome + (outcome.error.map { ": \($0)" } ?? "")
                    + (outcome.instanceID.map { " → \($0)" } ?? "")
            }
            html += "<tr><td><code>\(HTML.escape(record.command.id))</code></td><td>\(HTML.escape(record.command.type))</td>"
            html += "<td><code>\(HTML.escape(record.command.deviceID))</code></td><td>\(Self.badge(state))</td>"
            html += "<td>\(record.deliveryCount)</td><td>\(HTML.escape(result))</td></tr>"
        }
        return html + "</tbody></table></section>\n"
    }

    func telemetrySection() -> String {
        guard !telemetry.items.isEmpty else { return "" }
        var html = "<section id=\"telemetry\"><h2>Recent telemetry (\(telemetry.total))</h2><table><thead><tr>"
        html += "<th>Time</th><th>Device</th><th>Event</th></tr></thead><tbody>"
        for event in telemetry.items {
            html += "<tr><td>\(HTML.escape(event.timestamp))</td><td><code>\(HTML.escape(event.deviceID))</code></td>"
            html += "<td>\(HTML.escape(event.eventType))</td></tr>"
        }
        return html + "</tbody></table></section>\n"
    }

    // MARK: Pieces

    /// The text a choice's value is submitted as: the string itself, or its JSON text.
    static func choiceText(_ value: JSONValue) -> String {
        value.stringValue ?? JSONWriter.string(value)
    }

    static func term(_ name: String, _ value: String) -> String {
        "<dt>\(HTML.escape(name))</dt><dd>\(HTML.escape(value))</dd>"
    }

    static func badge(_ state: String) -> String {
        "<span class=\"badge \(stateClass(state))\">\(HTML.escape(state))</span>"
    }

    /// A CSS class for a state name, from a fixed list.
    static func stateClass(_ state: String) -> String {
        switch state.lowercased() {
        case "completed", "acked", "done", "resolved": "s-ok"
        case "running", "delivered", "scheduled", "queued": "s-run"
        case "waiting", "paused", "pending", "awaiting_input": "s-wait"
        case "failed", "rejected", "expired": "s-bad"
        case "cancelled", "skipped": "s-off"
        default: "s-other"
        }
    }

    static func duration(_ ms: Int64) -> String {
        if ms < 1000 { return "\(ms) ms" }
        if ms < 60_000 { return "\(ms / 1000).\(ms % 1000 / 100) s" }
        if ms < 3_600_000 { return "\(ms / 60_000) min \(ms % 60_000 / 1000) s" }
        return "\(ms / 3_600_000) h \(ms % 3_600_000 / 60_000) min"
    }

    static func head(title: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title))</title>
        <style>
        body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 1.25rem;color:#1d2330;background:#f6f7f9}
        h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.1rem;margin:1.6rem 0 .6rem}h3{font-size:1rem;margin:0 0 .4rem}
        .muted{color:#667085}.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:.8rem 1rem;margin:.6rem 0}
        .prompt{font-weight:600;margin:0 0 .4rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.2rem 0 .6rem}
        dt{color:#667085}dd{margin:0;word-break:break-all}button{font:inherit;padding:.35rem .9rem;border-radius:6px;border:1px solid #2f5bd3;
        background:#2f5bd3;color:#fff;cursor:pointer;margin:.15rem .3rem .15rem 0}button:hover{background:#2448a8}
        input{font:inherit;padding:.3rem .5rem;border:1px solid #c4c9d2;border-radius:6px}
        table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde1e7}th,td{text-align:left;padding:.35rem .6rem;
        border-bottom:1px solid #eceff3;font-size:.9rem;vertical-align:top}code{font-size:.85rem}
        .badge{display:inline-block;font-size:.75rem;padding:.05rem .5rem;border-radius:99px;background:#e5e7eb;font-weight:600}
        .timeline{list-style:none;margin:.2rem 0 0;padding:0 0 0 .3rem;border-left:2px solid #e5e7eb}
        .timeline li{position:relative;padding:.15rem 0 .15rem 1rem;font-size:.9rem}
        .dot{position:absolute;left:-.45rem;top:.55rem;width:.7rem;height:.7rem;border-radius:50%;background:#c4c9d2}
        .s-ok .dot,.badge.s-ok{background:#2e9d5b;color:#fff}.s-run .dot,.badge.s-run{background:#2f5bd3;color:#fff}
        .s-wait .dot,.badge.s-wait{background:#d99a15;color:#fff}.s-bad .dot,.badge.s-bad{background:#c93a3a;color:#fff}
        .s-off .dot,.badge.s-off{background:#98a2b3;color:#fff}
        .notice{background:#e7f6ec;border:1px solid #9bd3ae;padding:.5rem .8rem;border-radius:6px}
        .notice.error,.error{background:#fdecec;border:1px solid #f1b0b0;padding:.4rem .7rem;border-radius:6px}
        footer{margin:2rem 0 1rem;font-size:.85rem}
        </style></head><body>

        """
    }

    /// The sign-in page shown without a valid key.
    static func signIn(message: String?) -> String {
        var html = head(title: "Stepwise sync server — sign in")
        html += "<header><h1>Stepwise sync server</h1></header>"
        if let message { html += "<p class=\"notice error\">\(HTML.escape(message))</p>" }
        html += """
            <form class="card" method="post" action="/dashboard/login">
            <p>Enter the API key that <code>stepwise serve</code> printed (or open <code>/?key=YOUR_KEY</code>).
            The key is kept in an HttpOnly cookie for this browser session.</p>
            <label>API key <input type="password" name="key" autocomplete="off" required></label>
            <label>Tenant (admin keys only) <input name="tenant"></label>
            <button type="submit">Sign in</button></form></body></html>

            """
        return html
    }
}
