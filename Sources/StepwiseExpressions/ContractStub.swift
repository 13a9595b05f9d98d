// TEMPORARY stub of API-CONTRACT.md so the rest of the package compiles while the real module is
// written. The owner of StepwiseExpressions deletes this file as soon as its real types exist.
public import StepwiseJSON
public struct ExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    public let position: Int; public let message: String
    public var description: String { "expression error at position \(position): \(message)" }
}
public struct Expression: Sendable {
    public let source: String
    public static func compile(_ text: String) throws(ExpressionError) -> Expression { Expression(source: text) }
    public var warnings: [String] { [] }
    public func evaluate(_ scope: EvaluationScope) -> EvaluationResult { .value(.null) }
}
public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible { public let message: String; public var description: String { message } }
public struct Template: Sendable { public let source: String
    public static func compile(_ text: String) throws(TemplateError) -> Template { Template(source: text) }
    public var warnings: [String] { [] }
    public func evaluate(_ scope: EvaluationScope) -> EvaluationResult { .value(.null) } }
public struct LocatedMessage: Sendable, Hashable { public let pointer: JSONPointer; public let message: String }
public struct TemplatedValue: Sendable {
    public static func compile(_ value: JSONValue, at pointer: JSONPointer) -> (value: TemplatedValue?, problems: [LocatedMessage], warnings: [LocatedMessage]) { (TemplatedValue(), [], []) }
}
public enum EvaluationResult: Sendable, Hashable { case value(JSONValue), error(String) }
extension JSONValue { public var isTruthy: Bool { false } }
public struct EvaluationScope {
    public var data: JSONValue = [:]
    public var config: JSONValue = [:]
    public var outputs: JSONObject = [:]
    public init() {}
}
