import StepwiseJSON

/// Turns parsed syntax into evaluation nodes, specialising the common shapes: single-member
/// data paths, comparisons against a literal, negative number literals.
enum ExpressionCompiler {
    static func compile(_ syntax: ExpressionSyntax) -> ExpressionNode {
        switch syntax {
        case .literal(let v):
            return LiteralNode(v)
        case .path(let path, _):
            if path.root == .data, path.segments.count == 1 {
                return DataMemberNode(segment: path.segments[0])
            }
            return PathNode(path)
        case .list(let elements):
            return ListNode(elements.map(compile))
        case .call(let function, let arguments):
            return FunctionCallNode(function: function, arguments: arguments.map(compile))
        case .has(let path):
            return HasNode(path)
        case .prefix(.not, let operand):
            return NotNode(compile(operand))
        case .prefix(.negate, let operand):
            if case .literal(let v) = operand, let n = ValueSemantics.number(v), v.numberValue != nil {
                return LiteralNode(ValueSemantics.numberValue(-n))
            }
            return NegateNode(compile(operand))
        case .arithmetic(let first, let rest):
            return ArithmeticNode(first: compile(first), operators: rest.map(\.0), operands: rest.map { compile($0.1) })
        case .comparison(let op, let lhs, let rhs):
            return compileComparison(op, lhs, rhs)
        case .and(let terms):
            return AndNode(terms.map(compile))
        case .or(let terms):
            return OrNode(terms.map(compile))
        case .conditional(let c, let a, let b):
            return ConditionalNode(condition: compile(c), whenTrue: compile(a), whenFalse: compile(b))
        case .postfix(let base, let accesses):
            return PostfixChainNode(
                base: compile(base),
                accesses: accesses.map { access in
                    switch access {
                    case .index(let e): .index(compile(e))
                    case .member(let segments): .member(segments)
                    }
                })
        }
    }

    /// The literal value of a syntax node that is a literal or a negated number literal.
    private static func literalValue(_ syntax: ExpressionSyntax) -> JSONValue? {
        switch syntax {
        case .literal(let v):
            return v
        case .prefix(.negate, .literal(let v)):
            guard v.numberValue != nil, let n = ValueSemantics.number(v) else { return nil }
            return ValueSemantics.numberValue(-n)
        default:
            return nil
        }
    }

    private static func relational(_ op: ExpressionSyntax.ComparisonOperator) -> RelationalOperator? {
        switch op {
        case .less: .less
        case .lessOrEqual: .lessOrEqual
        case .greater: .greater
        case .greaterOrEqual: .greaterOrEqual
        default: nil
        }
    }

    private static func flipped(_ op: RelationalOperator) -> RelationalOperator {
        switch op {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }

    private static func compileComparison(
        _ op: ExpressionSyntax.ComparisonOperator, _ lhs: ExpressionSyntax, _ rhs: ExpressionSyntax
    ) -> ExpressionNode {
        let leftLiteral = literalValue(lhs)
        let rightLiteral = literalValue(rhs)
        switch op {
        case .equal, .notEqual:
            if let rightLiteral, leftLiteral == nil {
                return EqualsLiteralNode(operand: compile(lhs), literal: rightLiteral, negated: op == .notEqual)
            }
            if let leftLiteral, rightLiteral == nil {
                return EqualsLiteralNode(operand: compile(rhs), literal: leftLiteral, negated: op == .notEqual)
            }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let r = relational(op)!
            if let rightLiteral, leftLiteral == nil {
                return CompareLiteralNode(operand: compile(lhs), literal: rightLiteral, op: r)
            }
            if let leftLiteral, rightLiteral == nil {
                return CompareLiteralNode(operand: compile(rhs), literal: leftLiteral, op: flipped(r))
            }
        case .isIn:
            break
        }
        return ComparisonNode(op, compile(lhs), compile(rhs))
    }
}
