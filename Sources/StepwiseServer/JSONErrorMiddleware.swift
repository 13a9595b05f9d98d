import Hummingbird
import Logging
import StepwiseJSON

/// Turns every error into SYNC.md §5's `{"error": "<message>"}` body.
///
/// A ``SyncServerError`` keeps its status and message; another `HTTPResponseError` (an unknown
/// route, a body over the cap) keeps its status with its reason phrase; anything else is a 500
/// with a generic message, logged with its details.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as SyncServerError {
            if error.status.code >= 500 {
                context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            }
            return error.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            let message = error.status.reasonPhrase.lowercased()
            return JSONResponse.make(status: error.status, body: ["error": .string(message)])
        } catch {
            context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return JSONResponse.make(status: .internalServerError, body: ["error": "internal server error"])
        }
    }
}
