import HummingbirdTesting
import HTTPTypes
import Testing
import StepwiseJSON
@testable import StepwiseServer

@Suite("The web page")
struct DashboardTests {
    static let cookie = "stepwise_key=\(ServerHarness.key)"

    @Test("without a key the page asks to sign in (401)")
    func signInPage() async throws {
        try await ServerHarness.run { _, client in
            let response = try await client.send(.get, "/", key: nil)
            #expect(response.status == .unauthorized)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.text.contains("<form class=\"card\" method=\"post\" action=\"/dashboard/login\">"))
            let wrong = try await client.send(.get, "/", key: nil, headers: [.cookie: "stepwise_key=wrong"])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.text.contains("invalid API key"))
        }
    }

    @Test("?key= and the login form set an HttpOnly cookie and redirect to the page")
    func signIn() async throws {
        try await ServerHarness.run { _, client in
            let viaQuery = try await client.send(.get, "/?key=\(ServerHarness.key)", key: nil)
            #expect(viaQuery.status == .seeOther)
            #expect(viaQuery.headers[.location] == "/")
            #expect(viaQuery.headers[.setCookie] == "stepwise_key=\(ServerHarness.key); Path=/; HttpOnly; SameSite=Strict")
            let viaForm = try await client.send(
                .post, "/dashboard/login", key: nil, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: "key=\(ServerHarness.key)&tenant=")
            #expect(viaForm.status == .seeOther)
            #expect(viaForm.headers[.setCookie]?.hasPrefix("stepwise_key=\(ServerHarness.key);") == true)
            let bad = try await client.send(.get, "/?key=nope", key: nil)
            #expect(bad.status == .unauthorized)
            #expect(bad.headers[.setCookie] == nil)
            let logout = try await client.send(.get, "/dashboard/logout", key: nil)
            #expect(logout.headers[.setCookie]?.contains("Max-Age=0") == true)
            let page = try await client.send(.get, "/", key: nil, headers: [.cookie: Self.cookie])
            #expect(page.status == .ok)
        }
    }

    @Test("the page lists pending approvals with choice buttons, instances with timelines, devices; all escaped")
    func pageContent() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("<b>device</b>")
            let steps: JSONValue = [
                [
                    "block_id": "init_profile", "block_type": "step", "state": "completed", "handler": "init_profile",
                    "started_at": "2026-05-19T10:29:58.120Z", "completed_at": "2026-05-19T10:29:58.310Z",
                ],
                [
                    "block_id": "show_terms", "block_type": "step", "state": "waiting", "handler": "show_terms",
                    "started_at": "2026-05-19T10:30:00.004Z", "completed_at": nil,
                ],
            ]
            _ = try await client.sync(
                "<b>device</b>", statuses: [statusUpdate(instanceA, state: "Waiting", steps: steps)],
                approvals: [
                    approvalRequest(
                        instanceA, prompt: "<script>alert('x')</script> & accept?",
                        choices: [["label": "Yes \"please\"", "value": "accepted"], ["label": "No", "value": "declined"]])
                ])
            let page = try await client.send(.get, "/", key: nil, headers: [.cookie: Self.cookie])
            #expect(page.status == .ok)
            let html = page.text
            #expect(!html.contains("<script>"))
            #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; accept?"))
            #expect(!html.contains("<b>device</b>"))
            #expect(html.contains("&lt;b&gt;device&lt;/b&gt;"))
            #expect(html.contains("Pending approvals (1)"))
            #expect(html.contains("<button type=\"submit\" name=\"value\" value=\"accepted\">Yes &quot;please&quot;</button>"))
            #expect(html.contains("<button type=\"submit\" name=\"value\" value=\"declined\">No</button>"))
            #expect(html.contains("name=\"csrf\" value=\"\(SyncServer.csrfToken(forKey: ServerHarness.key))\""))
            #expect(html.contains("<ol class=\"timeline\">"))
            #expect(html.contains("<b>init_profile</b>"))
            #expect(html.contains("(190 ms)"))
            #expect(html.contains("<li class=\"step s-wait\">"))
            #expect(html.contains("onboarding-flow v1 <span class=\"badge s-wait\">Waiting</span>"))
            #expect(page.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'") == true)
            #expect(!html.contains("src=\"http"))
        }
    }

    @Test("a choice button resolves the approval (complete_step queued) and redirects back")
    func formResolve() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA)])
            let id = try #require(try await client.send(.get, "/mobile/approvals").json["items"]?[0]?["id"]?.stringValue)
            let form: HTTPFields = [.cookie: Self.cookie, .contentType: "application/x-www-form-urlencoded"]
            let csrf = SyncServer.csrfToken(forKey: ServerHarness.key)

            let forged = try await client.send(.post, "/dashboard/approvals/\(id)/resolve", key: nil, headers: form, body: "value=accepted&csrf=bad")
            #expect(forged.status == .seeOther)
            #expect(forged.headers[.location] == "/?notice=bad_token")
            let invalid = try await client.send(
                .post, "/dashboard/approvals/\(id)/resolve", key: nil, headers: form, body: "value=maybe&csrf=\(csrf)")
            #expect(invalid.headers[.location] == "/?notice=invalid_choice")
            #expect(try await client.send(.get, "/mobile/approvals").json["total"] == 1)

            let resolved = try await client.send(
                .post, "/dashboard/approvals/\(id)/resolve", key: nil, headers: form, body: "value=declined&csrf=\(csrf)")
            #expect(resolved.status == .seeOther)
            #expect(resolved.headers[.location] == "/?notice=resolved")
            let command = try await client.sync("d1").json["commands"]?[0]
            #expect(command?["type"] == "complete_step")
            #expect(command?["payload"]?["output"] == ["value": "declined"])

            let again = try await client.send(
                .post, "/dashboard/approvals/\(id)/resolve", key: nil, headers: form, body: "value=declined&csrf=\(csrf)")
            #expect(again.headers[.location] == "/?notice=not_pending")
            let page = try await client.send(.get, "/?notice=resolved", key: nil, headers: [.cookie: Self.cookie])
            #expect(page.text.contains("Approval resolved"))
            #expect(page.text.contains("Pending approvals (0)"))
            _ = harness
        }
    }

    @Test("an admin key on the page names its tenant and carries it in forms")
    func adminTenant() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA)])
            let cookie: HTTPFields = [.cookie: "stepwise_key=\(ServerHarness.adminKey)"]
            #expect(try await client.send(.get, "/", key: nil, headers: cookie).status == .badRequest)
            let page = try await client.send(.get, "/?tenant=default", key: nil, headers: cookie)
            #expect(page.status == .ok)
            #expect(page.text.contains("<input type=\"hidden\" name=\"tenant\" value=\"default\">"))
        }
    }
}
