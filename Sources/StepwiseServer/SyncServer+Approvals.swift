import Hummingbird
import StepwiseJSON

extension SyncServer {
    /// `GET /mobile/approvals?state=&device_id=&limit=`; `state` defaults to `pending` (as
    /// orch8's endpoint lists pending approvals); `state=all` lists every state.
    func handleListApprovals(_ request: Request) async throws(SyncServerError) -> Response {
        let tenant = try await authenticate(request)
        var state: ApprovalState? = .pending
        if let text = queryValue(request, "state") {
            if text == "all" {
                state = nil
            } else if let parsed = ApprovalState(rawValue: text) {
                state = parsed
            } else {
                throw SyncServerError(.badRequest, "state must be pending, resolved, expired or all")
            }
        }
        let page = try await store.approvals(
            tenant: tenant, state: state, deviceID: queryValue(request, "device_id"), limit: try listLimit(request),
            now: clock.now())
        return JSONResponse.page(page, \.json)
    }

    /// `POST /mobile/approvals/{id}/resolve` with `{"output": {...}}` → 200 `{"command_id"}`.
    func handleResolve(_ request: Request, id: String) async throws(SyncServerError) -> Response {
        let tenant = try await authenticate(request)
        let body = FieldReader(try await readJSONObject(request))
        guard let output = try body.objectOrJSONText("output") else {
            throw SyncServerError(.badRequest, "output is required and must be an object")
        }
        try checkDeliverable(.object(output), what: "output")
        let commandID = try await resolveApproval(id, tenant: tenant, output: .object(output))
        return JSONResponse.make(body: ["command_id": .string(commandID)])
    }

    /// Resolves a pending approval: validates the output against its choices, queues the
    /// `complete_step` command `{instance_id, block_id, step_name, output}`, marks the approval
    /// resolved (one transaction) and pushes.
    ///
    /// - Returns: the command id.
    /// - Throws: 404 when the approval is unknown, another tenant's, or not pending; 400 when
    ///   it has choices and `output.value` is not one of them.
    func resolveApproval(_ id: String, tenant: TenantID, output: JSONValue) async throws(SyncServerError) -> String {
        let now = clock.now()
        guard let approval = try await store.approval(id, tenant: tenant, now: now), approval.state == .pending else {
            throw SyncServerError(.notFound, "approval '\(id)' not found or not pending")
        }
        let allowed = approval.choiceValues
        if !allowed.isEmpty {
            guard let value = output["value"], allowed.contains(value) else {
                let names = allowed.map { $0.stringValue ?? JSONWriter.string($0) }.joined(separator: ", ")
                throw SyncServerError(.badRequest, "output.value must be one of the approval's choices: \(names)")
            }
        }
        let command = NewCommand(
            id: ServerIdentifier.make(), tenant: tenant, deviceID: approval.deviceID, type: "complete_step",
            payload: [
                "instance_id": .string(approval.instanceID), "block_id": .string(approval.blockID),
                "step_name": .string(approval.blockID), "output": output,
            ],
            createdAt: now, expiresAt: commandExpiry(now: now))
        guard try await store.resolveApproval(id, tenant: tenant, resolution: output, command: command, now: now) else {
            throw SyncServerError(.notFound, "approval '\(id)' not found or not pending")
        }
        await pushIfPossible(deviceID: approval.deviceID, tenant: tenant, commandID: command.id)
        return command.id
    }
}
