import StepwiseJSON
import StepwiseTesting
import Testing

/// The validator on small schemas: each keyword, the error report, and refusal of unusable schemas.
struct JSONSchemaValidatorTests {
    private func validator(_ schemaText: String, referencing others: [String] = []) throws -> JSONSchemaValidator {
        try JSONSchemaValidator(schema: try JSONParser.parse(schemaText), referencing: others.map { try JSONParser.parse($0) })
    }

    private func violations(_ schemaText: String, _ instanceText: String) throws -> [String] {
        try validator(schemaText).validate(try JSONParser.parse(instanceText)).map(\.description)
    }

    private func isValid(_ schemaText: String, _ instanceText: String) throws -> Bool {
        let v = try validator(schemaText)
        let instance = try JSONParser.parse(instanceText)
        let valid = v.validate(instance).isEmpty
        #expect(v.isValid(instance) == valid, "isValid and validate disagree on \(instanceText)")
        return valid
    }

    private func schemaError(_ schemaText: String, referencing others: [String] = []) throws -> JSONSchemaError? {
        do {
            _ = try validator(schemaText, referencing: others)
            return nil
        } catch let error as JSONSchemaError {
            return error
        }
    }

    // MARK: - Types and values

    @Test func integerMeansAnyIntegralNumber() throws {
        let schema = #"{"type": "integer"}"#
        #expect(try isValid(schema, "3"))
        #expect(try isValid(schema, "3.0"))
        #expect(try isValid(schema, "-0"))
        #expect(try isValid(schema, "1e3"))
        #expect(try !isValid(schema, "3.5"))
        #expect(try !isValid(schema, "\"3\""))
        #expect(try !isValid(schema, "true"))
    }

    @Test func typeListsAndNames() throws {
        let schema = #"{"type": ["string", "null"]}"#
        #expect(try isValid(schema, "null"))
        #expect(try isValid(schema, #""x""#))
        #expect(try violations(schema, "1.5") == ["/: type: expected string or null, got number"])
        #expect(try violations(#"{"type": "number"}"#, "[]") == ["/: type: expected number, got array"])
        #expect(try isValid(#"{"type": "number"}"#, "7"))
        #expect(try isValid(#"{"type": "boolean"}"#, "false"))
        #expect(try !isValid(#"{"type": "object"}"#, "[]"))
        #expect(try !isValid(#"{"type": "array"}"#, "{}"))
    }

    @Test func enumAndConstCompareNumbersByValue() throws {
        #expect(try isValid(#"{"enum": [1, "a", [1, 2]]}"#, "1.0"))
        #expect(try isValid(#"{"enum": [1, "a", [1, 2]]}"#, "[1.0, 2]"))
        #expect(try !isValid(#"{"enum": [1, "a"]}"#, "\"1\""))
        #expect(try isValid(#"{"const": {"a": [true, null]}}"#, #"{"a": [true, null]}"#))
        #expect(try violations(#"{"const": false}"#, "true") == ["/: const: expected false, got true"])
        #expect(try violations(#"{"enum": ["x", "y"]}"#, #""z""#) == [#"/: enum: value "z" is not one of: "x", "y""#])
    }

    // MARK: - Objects

    @Test func requiredReportsEachMissingMemberAtTheObject() throws {
        let schema = #"{"type": "object", "required": ["a", "b", "c"]}"#
        #expect(
            try violations(schema, #"{"b": 1}"#) == [
                "/: required: missing property 'a'", "/: required: missing property 'c'",
            ])
        #expect(try isValid(#"{"required": ["a"]}"#, "[]"))  // required applies to objects only
    }

    @Test func propertiesDescendWithPointers() throws {
        let schema = #"{"properties": {"a/b": {"properties": {"~x": {"type": "integer"}}}}}"#
        #expect(try violations(schema, #"{"a/b": {"~x": "no"}}"#) == ["/a~1b/~0x: type: expected integer, got string"])
    }

    @Test func additionalAndPatternProperties() throws {
        let schema = #"""
            {"properties": {"id": {}}, "patternProperties": {"^x-": {"type": "string"}},
             "additionalProperties": false}
            """#
        #expect(try isValid(schema, #"{"id": 1, "x-note": "ok"}"#))
        #expect(try violations(schema, #"{"id": 1, "x-note": 2}"#) == ["/x-note: type: expected string, got integer"])
        #expect(try violations(schema, #"{"other": 1}"#) == ["/other: additionalProperties: property 'other' is not allowed"])
        let typed = #"{"additionalProperties": {"type": "integer"}}"#
        #expect(try violations(typed, #"{"a": 1, "b": "2"}"#) == ["/b: type: expected integer, got string"])
    }

    @Test func propertyCountsNamesAndDependencies() throws {
        #expect(try !isValid(#"{"minProperties": 2}"#, #"{"a": 1}"#))
        #expect(try !isValid(#"{"maxProperties": 1}"#, #"{"a": 1, "b": 2}"#))
        #expect(try !isValid(#"{"propertyNames": {"pattern": "^[a-z]+$"}}"#, #"{"aB": 1}"#))
        #expect(try isValid(#"{"propertyNames": {"pattern": "^[a-z]+$"}}"#, #"{"ab": 1}"#))
        let dependent = #"{"dependentRequired": {"fail": ["retryable"]}}"#
        #expect(try violations(dependent, #"{"fail": "x"}"#) == ["/: dependentRequired: property 'fail' requires property 'retryable'"])
        #expect(try isValid(dependent, #"{"output": 1}"#))
    }

    // MARK: - Arrays

    @Test func itemsAfterPrefixItems() throws {
        let schema = #"{"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}"#
        #expect(try isValid(schema, #"["a", 1, 2]"#))
        #expect(try violations(schema, #"[1, 2, "b"]"#) == [
            "/0: type: expected string, got integer", "/2: type: expected integer, got string",
        ])
    }

    @Test func arraySizesAndUniqueness() throws {
        #expect(try violations(#"{"minItems": 2}"#, "[1]") == ["/: minItems: array has 1 items, fewer than the minimum 2"])
        #expect(try !isValid(#"{"maxItems": 1}"#, "[1, 2]"))
        #expect(try violations(#"{"uniqueItems": true}"#, #"[1, {"a": 2}, 1.0]"#) == [
            "/: uniqueItems: items 0 and 2 are equal; items must be unique"
        ])
        #expect(try isValid(#"{"uniqueItems": true}"#, #"[1, "1", [1]]"#))
        #expect(try isValid(#"{"uniqueItems": false}"#, "[1, 1]"))
    }

    @Test func containsWithBounds() throws {
        let schema = #"{"contains": {"minimum": 10}, "minContains": 2, "maxContains": 3}"#
        #expect(try !isValid(schema, "[1, 10]"))
        #expect(try isValid(schema, "[10, 1, 11]"))
        #expect(try !isValid(schema, "[10, 11, 12, 13]"))
        #expect(try !isValid(#"{"contains": {"const": 1}}"#, "[]"))
    }

    // MARK: - Numbers and strings

    @Test func numericBoundsAreExact() throws {
        let schema = #"{"maximum": 9007199254740992}"#
        #expect(try isValid(schema, "9007199254740992"))
        #expect(try !isValid(schema, "9007199254740993"))
        #expect(try isValid(#"{"maximum": 9007199254740.992}"#, "9007199254740.992"))
        #expect(try !isValid(#"{"maximum": 9007199254740.992}"#, "9007199254741"))
        #expect(try !isValid(#"{"minimum": 0}"#, "-0.5"))
        #expect(try isValid(#"{"minimum": 0}"#, "-0"))
        #expect(try !isValid(#"{"exclusiveMinimum": 0}"#, "0.0"))
        #expect(try isValid(#"{"exclusiveMinimum": 0}"#, "1e-300"))
        #expect(try !isValid(#"{"exclusiveMaximum": 1.5}"#, "1.5"))
        #expect(try isValid(#"{"maximum": 3}"#, "\"not a number\""))
        #expect(try violations(#"{"minimum": 1}"#, "0") == ["/: minimum: 0 is less than the minimum 1"])
    }

    @Test func stringLengthCountsUnicodeScalars() throws {
        #expect(try isValid(#"{"maxLength": 3}"#, #""São""#))
        #expect(try !isValid(#"{"minLength": 2}"#, #""é""#))
        #expect(try isValid(#"{"minLength": 2}"#, #""e\u0301""#))  // two scalars, one grapheme
        #expect(try !isValid(#"{"minLength": 1}"#, #""""#))
    }

    @Test func patternIsAnUnanchoredSearch() throws {
        let blank = #"{"pattern": "\\S"}"#
        #expect(try isValid(blank, #"" x ""#))
        #expect(try !isValid(blank, #""  \t\n""#))
        #expect(try !isValid(blank, #""\u00a0""#))
        let anchored = #"{"pattern": "^[0-9a-f]{4}$"}"#
        #expect(try isValid(anchored, #""beef""#))
        #expect(try !isValid(anchored, #""beef\n""#))
        #expect(try violations(anchored, #""xyz""#) == [#"/: pattern: string "xyz" does not match the pattern '^[0-9a-f]{4}$'"#])
    }

    // MARK: - Applicators

    @Test func allOfReportsEveryFailure() throws {
        let schema = #"{"allOf": [{"type": "integer"}, {"minimum": 5}]}"#
        #expect(try violations(schema, "2.5") == [
            "/: type: expected integer, got number", "/: minimum: 2.5 is less than the minimum 5",
        ])
    }

    @Test func anyOfReportsOneViolationWithEachReason() throws {
        let schema = #"{"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]}"#
        #expect(try isValid(schema, "3"))
        #expect(try isValid(schema, #""a""#))
        let found = try validator(schema).validate(try JSONParser.parse("-1"))
        #expect(found.count == 1)
        #expect(found.first?.keyword == "anyOf")
        #expect(found.first?.message.contains("minimum") == true)
        #expect(found.first?.message.contains("expected string") == true)
    }

    @Test func oneOfNeedsExactlyOneMatch() throws {
        let schema = #"{"oneOf": [{"type": "integer"}, {"minimum": 2}]}"#
        #expect(try isValid(schema, "1"))
        #expect(try isValid(schema, "2.5"))
        #expect(try violations(schema, "3") == ["/: oneOf: alternatives 0, 1 all match; exactly one must"])
        #expect(try !isValid(schema, "1.5"))
    }

    @Test func notAndBooleanSchemas() throws {
        #expect(try !isValid(#"{"not": {"type": "string"}}"#, #""x""#))
        #expect(try isValid(#"{"not": {"type": "string"}}"#, "1"))
        #expect(try isValid("true", "[1]"))
        #expect(try violations("false", "1") == ["/: false: no value is allowed here"])
        #expect(try violations(#"{"properties": {"a": false}}"#, #"{"a": 1}"#) == ["/a: false: no value is allowed here"])
    }

    @Test func ifThenElse() throws {
        let schema = #"""
            {"if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
             "then": {"required": ["alpha"]}, "else": {"required": ["other"]}}
            """#
        #expect(try isValid(schema, #"{"kind": "a", "alpha": 1}"#))
        #expect(try violations(schema, #"{"kind": "a"}"#) == ["/: required: missing property 'alpha'"])
        #expect(try violations(schema, #"{"kind": "b"}"#) == ["/: required: missing property 'other'"])
        #expect(try isValid(#"{"if": {"type": "string"}, "then": {"minLength": 1}}"#, "5"))
    }

    // MARK: - References

    @Test func localReferencesAndRecursion() throws {
        let schema = #"""
            {"$defs": {"node": {"type": "object", "required": ["id"],
                                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
             "$ref": "#/$defs/node"}
            """#
        #expect(try isValid(schema, #"{"id": 1, "children": [{"id": 2, "children": [{"id": 3}]}]}"#))
        #expect(try violations(schema, #"{"id": 1, "children": [{"children": [{}]}]}"#) == [
            "/children/0: required: missing property 'id'",
            "/children/0/children/0: required: missing property 'id'",
        ])
    }

    @Test func referencesToOtherDocumentsByRelativeID() throws {
        let main = #"""
            {"$id": "https://stepwise.example/schemas/main.json",
             "properties": {"size": {"$ref": "common.json#/$defs/size"}, "whole": {"$ref": "./common.json"}}}
            """#
        let common = #"""
            {"$id": "https://stepwise.example/schemas/common.json", "type": ["object", "integer"],
             "$defs": {"size": {"type": "integer", "minimum": 1}}}
            """#
        let v = try validator(main, referencing: [common])
        #expect(v.validate(try JSONParser.parse(#"{"size": 2, "whole": {}}"#)).isEmpty)
        let found = v.validate(try JSONParser.parse(#"{"size": 0, "whole": "x"}"#))
        #expect(found.map(\.description) == [
            "/size: minimum: 0 is less than the minimum 1", "/whole: type: expected object or integer, got string",
        ])
        #expect(found.first?.schemaLocation == "https://stepwise.example/schemas/common.json#/$defs/size/minimum")
    }

    @Test func percentEncodedAndEscapedReferenceTokens() throws {
        let schema = ##"{"$defs": {"a b": {"type": "string"}, "c/d": {"type": "integer"}}, "properties": {"x": {"$ref": "#/$defs/a%20b"}, "y": {"$ref": "#/$defs/c~1d"}}}"##
        #expect(try isValid(schema, #"{"x": "s", "y": 1}"#))
        #expect(try !isValid(schema, #"{"x": 1}"#))
        #expect(try !isValid(schema, #"{"y": "s"}"#))
    }

    // MARK: - Unusable schemas

    @Test(arguments: [
        #"{"format": "email"}"#,
        #"{"multipleOf": 2}"#,
        #"{"properties": {"a": {"unevaluatedProperties": false}}}"#,
        #"{"$defs": {"x": {"typo": 1}}}"#,
        ##"{"items": {"$dynamicRef": "#x"}}"##,
        #"{"allOf": [{"$anchor": "x"}]}"#,
    ])
    func unknownKeywordsAreRefused(schema: String) throws {
        #expect(try schemaError(schema)?.code == .unknownKeyword)
    }

    @Test func unknownKeywordErrorNamesItsLocation() throws {
        let error = try #require(try schemaError(#"{"$defs": {"x": {"properties": {"a": {"formatt": 1}}}}}"#))
        #expect(error.code == .unknownKeyword)
        #expect(error.context.hasSuffix("#/$defs/x/properties/a/formatt"))
        #expect(error.message.contains("formatt"))
    }

    @Test(arguments: [
        #"{"minItems": -1}"#,
        #"{"minLength": 1.5}"#,
        #"{"type": "float"}"#,
        #"{"type": ["string", "string"]}"#,
        #"{"required": ["a", "a"]}"#,
        #"{"pattern": "("}"#,
        #"{"allOf": []}"#,
        #"{"items": [{"type": "string"}]}"#,
        #"{"properties": {"a": 5}}"#,
        #"{"minimum": "0"}"#,
        #"{"then": {}}"#,
        #"{"minContains": 1}"#,
        #"{"$schema": "http://json-schema.org/draft-07/schema#"}"#,
        #"{"title": 5}"#,
        #"{"enum": []}"#,
    ])
    func malformedKeywordValuesAreRefused(schema: String) throws {
        #expect(try schemaError(schema)?.code == .invalidKeywordValue)
    }

    @Test func unresolvedAndCyclicReferencesAreRefused() throws {
        #expect(try schemaError(##"{"$ref": "#/$defs/missing"}"##)?.code == .unresolvedReference)
        #expect(try schemaError(#"{"$ref": "other.json"}"#)?.code == .unresolvedReference)  // no base URI
        #expect(try schemaError(##"{"$ref": "#anchor"}"##)?.code == .unresolvedReference)
        #expect(try schemaError(##"{"enum": [1], "properties": {"a": {"$ref": "#/enum/0"}}}"##)?.code == .unresolvedReference)
        #expect(try schemaError(##"{"$ref": "#"}"##)?.code == .referenceCycle)
        #expect(try schemaError(##"{"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}}}"##)?.code == .referenceCycle)
        // Recursion through a member or an element descends into the instance: not a cycle.
        #expect(try schemaError(##"{"properties": {"next": {"$ref": "#"}}, "items": {"$ref": "#"}}"##) == nil)
    }

    @Test func documentIDsMustBeAbsoluteAndUnique() throws {
        let a = #"{"$id": "https://stepwise.example/a.json"}"#
        #expect(try schemaError(a, referencing: [a])?.code == .duplicateSchemaID)
        #expect(try schemaError(#"{"$id": "a.json"}"#)?.code == .invalidKeywordValue)
        #expect(try schemaError(#"{"properties": {"x": {"$id": "https://stepwise.example/x.json"}}}"#)?.code == .unknownKeyword)
    }

    @Test func annotationsAreAccepted() throws {
        let schema = #"""
            {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://stepwise.example/t.json",
             "$comment": "c", "title": "t", "description": "d", "default": 1, "examples": [1],
             "deprecated": false, "readOnly": true, "writeOnly": false}
            """#
        #expect(try isValid(schema, "\"anything\""))
    }
}
