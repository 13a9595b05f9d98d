import HTTPTypes
import Hummingbird
import NIOCore

extension SyncServer {
    /// `GET /manifests/<path>`: a file of the publish directory, with ETag and 304; with
    /// `headersOnly` (`HEAD`), the same headers and no body.
    func handleManifestFile(_ request: Request, path: String, headersOnly: Bool = false) throws(SyncServerError) -> Response {
        guard let directory = publishDirectory, let file = directory.file(at: path) else {
            throw SyncServerError(.notFound, "no such file in the publish directory")
        }
        var headers: HTTPFields = [:]
        headers[.eTag] = file.entityTag
        headers[.cacheControl] = file.cacheControl
        let ifNoneMatch = request.headers[values: .ifNoneMatch].joined(separator: ",")
        if !ifNoneMatch.isEmpty, PublishDirectory.matches(ifNoneMatch: ifNoneMatch, entityTag: file.entityTag) {
            return Response(status: .notModified, headers: headers, body: ResponseBody())
        }
        headers[.contentType] = file.contentType
        headers[.contentLength] = String(file.bytes.count)
        if headersOnly { return Response(status: .ok, headers: headers, body: ResponseBody()) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }
}
