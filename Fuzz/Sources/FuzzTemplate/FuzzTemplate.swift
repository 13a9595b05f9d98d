import FuzzSupport
import Stepwise

/// Fuzzes `Template.compile`/`render` and `TemplatedValue.compile`/`resolve`.
///
/// The input's bytes are one template string; when they also parse as JSON, the document is
/// compiled as step `params` (every string at any depth is a template). Invariants: compile
/// errors and render errors have bounded messages; rendering is deterministic and yields valid
/// JSON; a whole-string template renders a value, an inline one a string; a `TemplatedValue`
/// with problems has no value, and static values resolve to themselves.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    checkTemplate(String(decoding: bytes, as: UTF8.self))
    if let document = try? JSONParser.parse(bytes) {
        checkTemplatedValue(document)
    }
    return 0
}

private func checkTemplate(_ text: String) {
    let template: Template
    do {
        template = try Template.compile(text)
    } catch {
        checkMessage(error.message, "TemplateError at compile time")
        return
    }
    fuzzCheck(template.source == text, "the template does not keep its source")
    for warning in template.warnings { checkMessage(warning, "template warning") }
    let first = render(template)
    fuzzCheck(first == render(template), "rendering is not deterministic")
    if let value = first.value {
        JSONInvariants.checkRoundTrip(value, "rendered template")
        if !template.isWhole {
            fuzzCheck(value.stringValue != nil, "an inline template rendered a \(value.typeName)")
        }
        if !text.contains("{{") {
            fuzzCheck(value == .string(text), "a string without '{{' does not render as itself")
        }
    }
}

private func render(_ template: Template) -> EvaluationResult {
    do {
        return .value(try template.render(FuzzScope.make()))
    } catch {
        checkMessage(error.message, "TemplateError at render time")
        return .error(error.message)
    }
}

private func checkTemplatedValue(_ document: JSONValue) {
    let pointer = JSONPointer(tokens: ["blocks", "0", "params"])
    let compiled = TemplatedValue.compile(document, at: pointer)
    for problem in compiled.problems {
        checkMessage(problem.message, "TemplatedValue problem")
        fuzzCheck(problem.pointer.tokens.starts(with: pointer.tokens), "problem pointer outside the value")
    }
    for warning in compiled.warnings {
        fuzzCheck(warning.pointer.tokens.starts(with: pointer.tokens), "warning pointer outside the value")
    }
    guard let value = compiled.value else {
        fuzzCheck(!compiled.problems.isEmpty, "no value and no problem")
        return
    }
    fuzzCheck(compiled.problems.isEmpty, "a value with problems")
    fuzzCheck(value.original == document, "the value does not keep the original")
    do {
        let resolved = try value.resolve(FuzzScope.make())
        if value.isStatic { fuzzCheck(resolved == document, "a static value resolves to something else") }
        JSONInvariants.checkRoundTrip(resolved, "resolved params")
    } catch {
        checkMessage(error.message, "TemplateError while resolving")
    }
}
