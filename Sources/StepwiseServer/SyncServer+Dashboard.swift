import HTTPTypes
import Hummingbird
import NIOCore
import StepwiseCrypto
import StepwiseJSON

extension SyncServer {
    /// The cookie that keeps the web page's API key.
    static let keyCookie = "stepwise_key"

    /// The web page's CSRF token for `key`: forms carry it, posts must return it. Derived from
    /// the key, so another site (which cannot read the key) cannot forge it.
    static func csrfToken(forKey key: String) -> String {
        SHA256.hexDigest(of: Array("stepwise-dashboard-csrf\u{0}\(key)".utf8))
    }

    /// The page's API key: `x-api-key`, else the cookie.
    func dashboardKey(_ request: Request) -> String? {
        if let header = request.headers[.apiKey], !header.isEmpty { return header }
        guard let cookie = request.cookies[Self.keyCookie]?.value, !cookie.isEmpty else { return nil }
        return HTML.percentDecode(cookie)
    }

    /// `GET /`: the web page. `?key=K` signs in (sets the cookie) and redirects to `/`.
    func handleDashboard(_ request: Request) async -> Response {
        let tenantParameter = queryValue(request, "tenant") ?? request.headers[.tenantID]
        if let key = queryValue(request, "key") {
            return await signIn(key: key, tenantParameter: tenantParameter)
        }
        guard let key = dashboardKey(request) else {
            return Self.htmlResponse(DashboardPage.signIn(message: nil), status: .unauthorized)
        }
        let tenant: TenantID
        do throws(SyncServerError) {
            tenant = try await self.tenant(forKey: key, requestedTenant: tenantParameter)
        } catch {
            return Self.htmlResponse(DashboardPage.signIn(message: error.message), status: error.status)
        }
        let now = clock.now()
        do throws(SyncServerError) {
            let page = DashboardPage(
                tenant: tenant, tenantParameter: tenantParameter, csrfToken: Self.csrfToken(forKey: key), now: now,
                notice: queryValue(request, "notice").flatMap(DashboardPage.Notice.init(rawValue:)),
                approvals: try await store.approvals(tenant: tenant, state: .pending, deviceID: nil, limit: 100, now: now),
                statuses: try await store.statuses(tenant: tenant, deviceID: nil, limit: 100),
                devices: try await store.devices(tenant: tenant, limit: 200),
                commands: try await store.commands(tenant: tenant, deviceID: nil, limit: 50),
                telemetry: try await store.telemetry(tenant: tenant, limit: 20))
            return Self.htmlResponse(page.render(), status: .ok)
        } catch {
            return Self.htmlResponse(DashboardPage.signIn(message: "The server failed: \(error.message)"), status: error.status)
        }
    }

    /// `POST /dashboard/login` with the form fields `key` and `tenant`.
    func handleDashboardLogin(_ request: Request) async -> Response {
        guard let body = try? await readBody(request) else {
            return Self.htmlResponse(DashboardPage.signIn(message: "The form could not be read."), status: .badRequest)
        }
        let fields = HTML.formFields(body)
        let tenant = fields["tenant"].flatMap { $0.isEmpty ? nil : $0 }
        return await signIn(key: fields["key"] ?? "", tenantParameter: tenant)
    }

    /// `GET /dashboard/logout`: clears the cookie.
    func handleDashboardLogout() -> Response {
        var headers: HTTPFields = [:]
        headers[.location] = "/"
        headers[.setCookie] = "\(Self.keyCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
        return JSONResponse.empty(status: .seeOther, headers: headers)
    }

    /// Checks `key`, then sets the cookie and redirects to the page.
    private func signIn(key: String, tenantParameter: String?) async -> Response {
        do throws(SyncServerError) {
            _ = try await tenant(forKey: key, requestedTenant: tenantParameter)
        } catch {
            return Self.htmlResponse(DashboardPage.signIn(message: error.message), status: error.status)
        }
        var headers: HTTPFields = [:]
        headers[.location] = tenantParameter.map { "/?tenant=" + HTML.percentEncode($0) } ?? "/"
        headers[.setCookie] = "\(Self.keyCookie)=\(HTML.percentEncode(key)); Path=/; HttpOnly; SameSite=Strict"
        return JSONResponse.empty(status: .seeOther, headers: headers)
    }

    /// `POST /dashboard/approvals/{id}/resolve` with the form fields `value`, `csrf` and
    /// `tenant`: resolves like the API (queues `complete_step`), then redirects to the page.
    func handleDashboardResolve(_ request: Request, id: String) async -> Response {
        guard let key = dashboardKey(request) else {
            return Self.htmlResponse(DashboardPage.signIn(message: nil), status: .unauthorized)
        }
        guard let body = try? await readBody(request) else {
            return Self.htmlResponse(DashboardPage.signIn(message: "The form could not be read."), status: .badRequest)
        }
        let fields = HTML.formFields(body)
        let tenantParameter = fields["tenant"].flatMap { $0.isEmpty ? nil : $0 }
        let tenant: TenantID
        do throws(SyncServerError) {
            tenant = try await self.tenant(forKey: key, requestedTenant: tenantParameter)
        } catch {
            return Self.htmlResponse(DashboardPage.signIn(message: error.message), status: error.status)
        }
        func back(_ notice: DashboardPage.Notice) -> Response {
            var location = "/?notice=\(notice.rawValue)"
            if let tenantParameter { location += "&tenant=" + HTML.percentEncode(tenantParameter) }
            var headers: HTTPFields = [:]
            headers[.location] = location
            return JSONResponse.empty(status: .seeOther, headers: headers)
        }
        guard fields["csrf"] == Self.csrfToken(forKey: key) else { return back(.badToken) }
        let submitted = fields["value"] ?? ""
        do throws(SyncServerError) {
            guard let approval = try await store.approval(id, tenant: tenant, now: clock.now()), approval.state == .pending
            else { return back(.notPending) }
            var value = JSONValue.string(submitted)
            let choices = approval.choiceValues
            if !choices.isEmpty {
                guard let match = choices.first(where: { DashboardPage.choiceText($0) == submitted }) else {
                    return back(.invalidChoice)
                }
                value = match
            }
            _ = try await resolveApproval(id, tenant: tenant, output: ["value": value])
            return back(.resolved)
        } catch where error.code == .notFound {
            return back(.notPending)
        } catch where error.code == .badRequest {
            return back(.invalidChoice)
        } catch {
            return back(.failed)
        }
    }

    /// An HTML response with a strict content security policy.
    static func htmlResponse(_ html: String, status: HTTPResponse.Status) -> Response {
        let bytes = Array(html.utf8)
        var headers: HTTPFields = [:]
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentLength] = String(bytes.count)
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] =
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        headers[HTTPField.Name("x-content-type-options")!] = "nosniff"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
