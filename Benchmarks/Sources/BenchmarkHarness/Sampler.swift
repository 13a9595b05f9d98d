/// Times a benchmark and its baseline side by side with `ContinuousClock`.
///
/// Both sides warm up first; the warm-up also sizes batches so one sample takes about
/// `measureSeconds / 100`. Samples then alternate between the two sides until each side has
/// had `measureSeconds` of samples, so drift and noise on the machine affect both alike.
struct Sampler {
    var warmUpSeconds: Double
    var measureSeconds: Double

    /// One side being measured.
    private struct Side {
        let body: () throws -> Void
        var iterations = 1
        var perOperation: [Double] = []
        var measured: Double = 0
    }

    func measure(
        body: @escaping () throws -> Void, baseline: (() throws -> Void)?
    ) throws -> (subject: TimeFigures, baseline: TimeFigures?) {
        var sides = [Side(body: body)]
        if let baseline { sides.append(Side(body: baseline)) }

        let sampleTarget = max(measureSeconds / 100, 0.000_5)
        for i in sides.indices {
            let perOp = try warmUp(sides[i].body)
            sides[i].iterations = max(1, Int((sampleTarget / perOp).rounded()))
        }
        while sides.contains(where: { $0.measured < measureSeconds }) {
            for i in sides.indices where sides[i].measured < measureSeconds {
                let seconds = try time(sides[i].body, iterations: sides[i].iterations)
                sides[i].measured += seconds
                sides[i].perOperation.append(seconds * 1e9 / Double(sides[i].iterations))
            }
        }
        let figures = sides.map { TimeFigures(perOperation: $0.perOperation, iterationsPerSample: $0.iterations) }
        return (figures[0], figures.count > 1 ? figures[1] : nil)
    }

    /// Runs `body` for the warm-up time; returns the seconds per call seen at its end.
    private func warmUp(_ body: () throws -> Void) throws -> Double {
        var iterations = 1
        var spent = 0.0
        var perOp = 0.0
        repeat {
            let seconds = try time(body, iterations: iterations)
            spent += seconds
            perOp = seconds / Double(iterations)
            if seconds < 0.01 { iterations *= 2 }
        } while spent < warmUpSeconds
        return max(perOp, 1e-9)
    }

    /// Seconds taken by `iterations` calls of `body`.
    private func time(_ body: () throws -> Void, iterations: Int) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<iterations { try body() }
        return Self.seconds(start.duration(to: clock.now))
    }

    static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) * 1e-18
    }
}
