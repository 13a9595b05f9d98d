public import ArgumentParser
import StepwiseExecution
import StepwiseExpressions
import StepwiseJSON

/// `stepwise eval EXPR`: compiles an expression as a router condition and prints its value.
///
/// Exit status: 0 with the value as JSON; 1 when the expression fails to compile or evaluates
/// to an error (the message shows the position); 2 when `--data` or another input is unusable.
public struct EvalCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate an expression against JSON data and print the value as JSON.",
        discussion: """
            The expression is compiled exactly as a router condition. Exit status: 0 value printed, \
            1 compile or runtime error, 2 unusable input.
            """
    )

    @Argument(help: "The expression, e.g. \"context.data.terms_decision == 'declined'\".")
    var expression: String

    @Option(help: "context.data as inline JSON (an object).")
    var data: String?

    @Option(help: "A file holding context.data as JSON.")
    var dataFile: String?

    @Option(help: "context.config as inline JSON (an object).")
    var config: String?

    @Option(help: "Prior step outputs as a JSON object keyed by block id.")
    var outputs: String?

    @Flag(help: "Also print whether a router would take the branch (truthiness).")
    var truthy = false

    public init() {}

    public func validate() throws {
        if data != nil && dataFile != nil { throw ValidationError("use either --data or --data-file, not both") }
    }

    public func run() async throws {
        // now(), uuid() and random() as an engine would answer them: the real time and a fresh seed.
        let output = Self.execute(
            expression: expression, data: data, dataFile: dataFile, config: config, outputs: outputs, truthy: truthy,
            now: SystemClock().now(), seed: UInt64.random(in: .min ... .max))
        try output.finish()
    }

    static func parseObject(_ text: String, option: String) throws(InputError) -> JSONValue {
        try parseObject(Array(text.utf8), option: option)
    }

    /// `bytes` as a JSON object; bytes that are not UTF-8 are refused, never replaced.
    static func parseObject(_ bytes: [UInt8], option: String) throws(InputError) -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw InputError(message: "\(option) is not valid JSON: \(error)")
        }
        guard case .object = value else { throw InputError(message: "\(option) must be a JSON object, got \(value.typeName)") }
        return value
    }

    /// Compiles and evaluates, rendering the value or the error.
    static func execute(
        expression: String, data: String? = nil, dataFile: String? = nil, config: String? = nil,
        outputs: String? = nil, truthy: Bool = false, now: Int64 = 0, seed: UInt64 = 0
    ) -> CommandOutput {
        var scope = EvaluationScope(nowMilliseconds: now, random: RandomSource(seed: seed))
        do {
            if let data { scope.data = try parseObject(data, option: "--data") }
            if let dataFile {
                let bytes = try InputFiles.read(dataFile)
                scope.data = try parseObject(bytes, option: "--data-file \(dataFile)")
            }
            if let config { scope.config = try parseObject(config, option: "--config") }
            if let outputs, case .object(let o) = try parseObject(outputs, option: "--outputs") { scope.outputs = o }
        } catch {
            return CommandOutput(standardError: "error: \(error)\n", exitCode: 2)
        }
        let compiled: Expression
        do {
            compiled = try Expression.compile(expression)
        } catch {
            return CommandOutput(standardError: "error: \(error)\n" + caret(expression, at: error.position), exitCode: 1)
        }
        switch compiled.evaluate(scope) {
        case .value(let v):
            // Integral numbers without a fraction (`10`, not `10.0`), as json() and templates write them.
            var text = JSONWriter.string(v, options: .integralDoublesAsIntegers) + "\n"
            if truthy { text += "truthy: \(v.isTruthy)\n" }
            return CommandOutput(standardOutput: text)
        case .error(let message):
            return CommandOutput(standardError: "error: \(message)\n", exitCode: 1)
        }
    }

    /// The expression on one line and a caret under the character at `position` (Unicode scalars).
    static func caret(_ text: String, at position: Int) -> String {
        guard !text.contains("\n") else { return "" }
        let width = min(position, text.unicodeScalars.count)
        return "  \(text)\n  \(String(repeating: " ", count: width))^\n"
    }
}
