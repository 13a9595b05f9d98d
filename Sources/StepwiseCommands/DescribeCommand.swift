public import ArgumentParser
import StepwiseExpressions
import StepwiseJSON
import StepwiseSequences

/// `stepwise describe FILE...`: prints the block tree of valid sequences.
public struct DescribeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Print the block tree of sequence documents: blocks, handlers, waits and conditions.",
        discussion: """
            A file holding a JSON array of documents (a bundle) is described element by element. Exit status as \
            for validate: 0 all valid, 1 any invalid, 2 unusable input.
            """
    )

    @Argument(help: "Sequence files or folders.")
    var paths: [String]

    public init() {}

    public func run() async throws {
        let output = Self.execute(paths: paths, style: .standardOutput)
        try output.finish()
    }

    static func execute(paths: [String], style: TerminalStyle = .plain) -> CommandOutput {
        let (files, missing) = InputFiles.expand(paths)
        var out = ""
        var errors = missing.map { "error: \($0.path): \($0.reason)\n" }.joined()
        var exitCode: Int32 = missing.isEmpty ? 0 : 2
        for path in files {
            let bytes: [UInt8]
            do {
                bytes = try InputFiles.read(path)
            } catch {
                errors += "error: \(error)\n"
                exitCode = 2
                continue
            }
            // A bundle is described element by element.
            for document in FileDocument.load(bytes, path: path) {
                let label = document.label
                guard let sequence = document.result.sequence else {
                    // As `validate`: not JSON at all is unusable input (2), a broken sequence is 1.
                    errors += "error: \(label) is invalid; run `stepwise validate \(path)` for the problems\n"
                    exitCode = max(exitCode, document.isUnusable ? 2 : 1)
                    continue
                }
                out += style.bold("\(sequence.name) v\(sequence.version)")
                out += " (\(label): \(sequence.blockCount) block\(sequence.blockCount == 1 ? "" : "s"); handlers: \(sequence.handlerNames.joined(separator: ", ")))\n"
                out += BlockTreeRenderer(style: style).render(sequence.blocks, prefix: "")
                if let hooks = sequence.onFailure {
                    out += "on_failure\n" + BlockTreeRenderer(style: style).render(hooks, prefix: "")
                }
                if let hooks = sequence.onCancel {
                    out += "on_cancel\n" + BlockTreeRenderer(style: style).render(hooks, prefix: "")
                }
            }
        }
        return CommandOutput(standardOutput: out, standardError: errors, exitCode: exitCode)
    }
}

/// Draws a block list as an indented tree.
struct BlockTreeRenderer {
    let style: TerminalStyle

    func render(_ blocks: [Block], prefix: String) -> String {
        var out = ""
        for (i, block) in blocks.enumerated() {
            let last = i == blocks.count - 1
            out += prefix + (last ? "└─ " : "├─ ") + line(for: block) + "\n"
            let childPrefix = prefix + (last ? "   " : "│  ")
            out += children(of: block, prefix: childPrefix)
        }
        return out
    }

    private func labelled(_ groups: [(String, [Block])], prefix: String) -> String {
        var out = ""
        for (i, group) in groups.enumerated() {
            let last = i == groups.count - 1
            out += prefix + (last ? "└─ " : "├─ ") + style.dim(group.0) + "\n"
            out += render(group.1, prefix: prefix + (last ? "   " : "│  "))
        }
        return out
    }

    private func children(of block: Block, prefix: String) -> String {
        switch block.kind {
        case .step, .subSequence:
            return ""
        case .router(let r):
            var groups = r.routes.map { ("when \($0.condition.source)", $0.blocks) }
            if let d = r.defaultBlocks { groups.append(("default", d)) }
            return labelled(groups, prefix: prefix)
        case .parallel(let p):
            return labelled(p.branches.enumerated().map { ("branch \($0.offset)", $0.element) }, prefix: prefix)
        case .race(let r):
            return labelled(r.branches.enumerated().map { ("branch \($0.offset)", $0.element) }, prefix: prefix)
        case .loop(let l):
            return render(l.body, prefix: prefix)
        case .forEach(let f):
            return render(f.body, prefix: prefix)
        case .tryCatch(let t):
            var groups = [("try", t.tryBlocks)]
            if let c = t.catchBlocks { groups.append(("catch", c)) }
            if let f = t.finallyBlocks { groups.append(("finally", f)) }
            return labelled(groups, prefix: prefix)
        case .abSplit(let a):
            return labelled(a.variants.map { ("variant \($0.name) (weight \($0.weight))", $0.blocks) }, prefix: prefix)
        case .cancellationScope(let c):
            return render(c.blocks, prefix: prefix)
        }
    }

    private func line(for block: Block) -> String {
        let head = "\(style.bold(block.type.rawValue)) \(block.id)"
        switch block.kind {
        case .step(let s):
            var parts = ["→ \(s.handler)"]
            if let w = s.when { parts.append("when \(w.source)") }
            if let d = s.delay { parts.append("delay \(d.durationMilliseconds) ms") }
            if let r = s.retry { parts.append("retry ×\(r.maxAttempts)") }
            if let t = s.timeoutMilliseconds { parts.append("timeout \(t) ms") }
            if !s.isCancellable { parts.append("not cancellable") }
            if let wait = s.waitForInput {
                var w = "waits for input"
                if let choices = wait.choices { w += " [\(choices.map(\.value).joined(separator: " | "))]" }
                if let storeAs = wait.storeAs { w += " → data.\(storeAs)" }
                parts.append(w)
            }
            return head + " " + parts.joined(separator: ", ")
        case .loop(let l):
            return head + " while \(l.condition.source) (max \(l.maxIterations))"
        case .forEach(let f):
            return head + " over \(f.collectionText) as \(f.itemVariable)"
                + (f.maxConcurrency > 1 ? " (\(f.maxConcurrency) at once)" : "")
        case .subSequence(let s):
            return head + " → \(s.sequenceName)" + (s.version.map { " v\($0)" } ?? " (latest)")
        case .parallel(let p):
            return head + (p.failFast ? " (fail fast)" : "")
        case .race(let r):
            return head + " (\(r.semantics.rawValue))"
        default:
            return head
        }
    }
}
