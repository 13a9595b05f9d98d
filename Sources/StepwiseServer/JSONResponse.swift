import Hummingbird
import NIOCore
import StepwiseJSON

/// Builds JSON and plain responses.
enum JSONResponse {
    /// A response whose body is `body` as compact JSON, `content-type: application/json`.
    static func make(status: HTTPResponse.Status = .ok, body: JSONValue, headers: HTTPFields = [:]) -> Response {
        let bytes = JSONWriter.bytes(body)
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.contentLength] = String(bytes.count)
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A response with a status and no body.
    static func empty(status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentLength] = "0"
        return Response(status: status, headers: fields, body: ResponseBody())
    }

    /// `{"items": [...], "total": n}`.
    static func page<Item>(_ page: ServerPage<Item>, _ encode: (Item) -> JSONValue) -> Response {
        make(body: ["items": .array(page.items.map(encode)), "total": .integer(Int64(page.total))])
    }
}
