import StepwiseJSON

/// Recursive-descent parser for the expression grammar (SEMANTICS §3.2–§3.3, §3.9).
///
/// Nesting is counted explicitly: every parenthesis, list literal, call argument list, index
/// bracket, ternary branch and prefix operator adds one level, and a level above
/// ``maximumDepth`` is a compile error, so the parser's own recursion stays bounded. Chains of
/// `&&`, `||`, `+ -` and `* / %` are parsed iteratively into flat nodes.
struct ExpressionParser {
    /// The deepest accepted nesting.
    static let maximumDepth = 64

    private let tokens: [ExpressionToken]
    private let startPosition: Int
    private var index = 0
    /// Nondeterministic functions called, in order of first appearance.
    private(set) var nondeterministicCalls: [BuiltinFunction] = []

    /// Prepares to parse `tokens`; `startPosition` is where the lexed range begins (reported
    /// for an empty expression).
    init(tokens: [ExpressionToken], startPosition: Int) {
        self.tokens = tokens
        self.startPosition = startPosition
    }

    private var current: ExpressionToken { tokens[index] }

    @discardableResult
    private mutating func advance() -> ExpressionToken {
        let t = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return t
    }

    private func isPunctuation(_ p: ExpressionToken.Punctuation) -> Bool {
        if case .punctuation(let q) = current.kind { return q == p }
        return false
    }

    private var isEnd: Bool {
        if case .end = current.kind { return true }
        return false
    }

    private func nest(_ depth: Int, at token: ExpressionToken) throws(ExpressionError) -> Int {
        let next = depth + 1
        guard next <= Self.maximumDepth else {
            throw ExpressionError(position: token.position, message: "nesting deeper than \(Self.maximumDepth)")
        }
        return next
    }

    private func unexpected(_ token: ExpressionToken) -> ExpressionError {
        if case .end = token.kind {
            return ExpressionError(position: token.position, message: "unexpected end of expression")
        }
        return ExpressionError(position: token.position, message: "unexpected token \(token.quoted)")
    }

    private func missing(_ closer: String) -> ExpressionError {
        if isEnd { return ExpressionError(position: current.position, message: "missing '\(closer)'") }
        return ExpressionError(position: current.position, message: "missing '\(closer)' before \(current.quoted)")
    }

    /// Parses the whole token list.
    mutating func parse() throws(ExpressionError) -> ExpressionSyntax {
        if isEnd { throw ExpressionError(position: startPosition, message: "empty expression") }
        let expression = try parseTernary(depth: 0)
        guard isEnd else { throw unexpected(current) }
        return expression
    }

    private mutating func parseTernary(depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        let condition = try parseOr(depth: depth)
        guard isPunctuation(.question) else { return condition }
        let question = advance()
        let branchDepth = try nest(depth, at: question)
        let whenTrue = try parseTernary(depth: branchDepth)
        guard isPunctuation(.colon) else {
            throw ExpressionError(position: current.position, message: "ternary missing ':'")
        }
        advance()
        let whenFalse = try parseTernary(depth: branchDepth)
        return .conditional(condition, whenTrue, whenFalse)
    }

    private mutating func parseOr(depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        let first = try parseAnd(depth: depth)
        guard isPunctuation(.or) else { return first }
        var terms = [first]
        while isPunctuation(.or) {
            advance()
            terms.append(try parseAnd(depth: depth))
        }
        return .or(terms)
    }

    private mutating func parseAnd(depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        let first = try parseComparison(depth: depth)
        guard isPunctuation(.and) else { return first }
        var terms = [first]
        while isPunctuation(.and) {
            advance()
            terms.append(try parseComparison(depth: depth))
        }
        return .and(terms)
    }

    private func comparisonOperator() -> ExpressionSyntax.ComparisonOperator? {
        switch current.kind {
        case .inKeyword: return .isIn
        case .punctuation(let p):
            switch p {
            case .equal: return .equal
            case .notEqual: return .notEqual
            case .less: return .less
            case .lessOrEqual: return .lessOrEqual
            case .greater: return .greater
            case .greaterOrEqual: return .greaterOrEqual
            default: return nil
            }
        default: return nil
        }
    }

    private mutating func parseComparison(depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        let lhs = try parseAdditive(depth: depth)
        guard let op = comparisonOperator() else { return lhs }
        advance()
        let rhs = try parseAdditive(depth: depth)
        if comparisonOperator() != nil {
            throw ExpressionError(
                position: current.position,
                message: "chained comparison \(current.quoted): comparisons do not chain; combine them with &&")
        }
        return .comparison(op, lhs, rhs)
    }

    private mutating func parseAdditive(depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        let first = try parseMultiplicative(depth: depth)
        var rest: [(ExpressionSyntax.ArithmeticOperator, ExpressionSyntax)] = []
        while true {
            let op: ExpressionSyntax.ArithmeticOperator
            if isPunctuation(.plus) { op = .add } else if isPunctuation(.minus) { op = .subtract } else { break }
            advance()
            rest.append((op, try parseMultiplicative(depth: depth)))
        }
        return rest.isEmpty ? first : .arithmetic(first: first, rest: rest)
    }

    private mutating func parseMultiplicative(depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        let first = try parseUnary(depth: depth)
        var rest: [(ExpressionSyntax.ArithmeticOperator, ExpressionSyntax)] = []
        while true {
            let op: ExpressionSyntax.ArithmeticOperator
            if isPunctuation(.times) {
                op = .multiply
            } else if isPunctuation(.divide) {
                op = .divide
            } else if isPunctuation(.remainder) {
                op = .remainder
            } else {
                break
            }
            advance()
            rest.append((op, try parseUnary(depth: depth)))
        }
        return rest.isEmpty ? first : .arithmetic(first: first, rest: rest)
    }

    private mutating func parseUnary(depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        var operators: [ExpressionSyntax.PrefixOperator] = []
        var level = depth
        while true {
            if isPunctuation(.not) {
                operators.append(.not)
            } else if isPunctuation(.minus) {
                operators.append(.negate)
            } else {
                break
            }
            level = try nest(level, at: current)
            advance()
        }
        var operand = try parsePostfix(depth: level)
        for op in operators.reversed() { operand = .prefix(op, operand) }
        return operand
    }

    private mutating func parsePostfix(depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        let base = try parsePrimary(depth: depth)
        var accesses: [ExpressionSyntax.PostfixAccess] = []
        while true {
            if isPunctuation(.openBracket) {
                let open = advance()
                let level = try nest(depth, at: open)
                let subscriptExpression = try parseTernary(depth: level)
                guard isPunctuation(.closeBracket) else { throw missing("]") }
                advance()
                accesses.append(.index(subscriptExpression))
            } else if case .member(let text) = current.kind {
                advance()
                accesses.append(.member(text.split(separator: ".").map { PathSegment(String($0)) }))
            } else {
                return accesses.isEmpty ? base : .postfix(base, accesses)
            }
        }
    }

    private mutating func parsePrimary(depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        let token = current
        switch token.kind {
        case .number(let v), .literal(let v):
            advance()
            return .literal(v)
        case .string(let s):
            advance()
            return .literal(.string(s))
        case .word(let word):
            advance()
            if isPunctuation(.openParen) { return try parseCall(name: word, nameToken: token, depth: depth) }
            return .path(ValuePath(words: ValuePath.dottedWords(word)), text: word)
        case .punctuation(.openBracket):
            return try parseList(depth: depth)
        case .punctuation(.openParen):
            advance()
            if isPunctuation(.closeParen) { throw ExpressionError(position: token.position, message: "empty ()") }
            let level = try nest(depth, at: token)
            let inner = try parseTernary(depth: level)
            guard isPunctuation(.closeParen) else { throw missing(")") }
            advance()
            return inner
        default:
            throw unexpected(token)
        }
    }

    private mutating func parseList(depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        let open = advance()
        let level = try nest(depth, at: open)
        var elements: [ExpressionSyntax] = []
        if isPunctuation(.closeBracket) {
            advance()
            return .list(elements)
        }
        while true {
            elements.append(try parseTernary(depth: level))
            if isPunctuation(.comma) {
                advance()
                if isPunctuation(.closeBracket) {
                    advance()
                    break
                }
                continue
            }
            guard isPunctuation(.closeBracket) else { throw missing("]") }
            advance()
            break
        }
        return .list(elements)
    }

    private mutating func parseCall(name: String, nameToken: ExpressionToken, depth: Int) throws(ExpressionError) -> ExpressionSyntax {
        guard let function = BuiltinFunction(rawValue: name) else {
            throw ExpressionError(position: nameToken.position, message: "unknown function '\(name)'")
        }
        let open = advance()
        let level = try nest(depth, at: open)
        var arguments: [ExpressionSyntax] = []
        var argumentPositions: [Int] = []
        if isPunctuation(.closeParen) {
            advance()
        } else {
            while true {
                argumentPositions.append(current.position)
                arguments.append(try parseTernary(depth: level))
                if isPunctuation(.comma) {
                    advance()
                    if isPunctuation(.closeParen) {
                        advance()
                        break
                    }
                    continue
                }
                guard isPunctuation(.closeParen) else { throw missing(")") }
                advance()
                break
            }
        }
        guard function.arity.contains(arguments.count) else {
            throw ExpressionError(
                position: nameToken.position,
                message: "wrong arity: \(name)() takes \(function.arityDescription), got \(arguments.count)")
        }
        if function.isNondeterministic, !nondeterministicCalls.contains(function) {
            nondeterministicCalls.append(function)
        }
        if function == .has {
            guard case .path(let path, _) = arguments[0] else {
                throw ExpressionError(
                    position: argumentPositions[0], message: "has without a path: the argument of has() must be a path")
            }
            return .has(path)
        }
        return .call(function, arguments)
    }
}
