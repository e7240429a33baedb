import HandoffControl
import Testing
@testable import HandoffDaemon

/// A control client's lines, from its connection's handler to the task that serves it.
@Suite(.timeLimit(.minutes(1))) struct ControlLinesTests {
    @Test func linesComeInOrderWhetherQueuedOrAwaited() async {
        let lines = ControlLines()
        lines.yield(.framed(.line(Array("a".utf8))))
        lines.yield(.framed(.tooLong(limit: 8)))
        #expect(await lines.next()?.asFramed == .line(Array("a".utf8)))
        #expect(await lines.next()?.asFramed == .tooLong(limit: 8))
        // Awaited before the line comes: the reader is resumed with it.
        let reader = Task { await lines.next() }
        let deadline = ContinuousClock.now + .seconds(10)
        while !lines.hasReader, ContinuousClock.now < deadline { await Task.yield() }
        #expect(lines.hasReader)
        lines.yield(.framed(.line(Array("b".utf8))))
        #expect(await reader.value?.asFramed == .line(Array("b".utf8)))
    }

    @Test func theEndComesAfterTheLinesQueuedAndNothingIsTakenAfterIt() async {
        let lines = ControlLines()
        lines.yield(.framed(.line(Array("a".utf8))))
        lines.finish()
        lines.yield(.framed(.line(Array("late".utf8))))
        #expect(await lines.next()?.asFramed == .line(Array("a".utf8)))
        #expect(await lines.next() == nil)
        #expect(await lines.next() == nil)
    }

    @Test func aWaitingReaderIsEndedByFinishOrByItsCancellation() async {
        let finished = ControlLines()
        let reader = Task { await finished.next() }
        let deadline = ContinuousClock.now + .seconds(10)
        while !finished.hasReader, ContinuousClock.now < deadline { await Task.yield() }
        finished.finish()
        #expect(await reader.value == nil)

        let cancelled = ControlLines()
        let waiting = Task { await cancelled.next() }
        waiting.cancel()
        #expect(await waiting.value == nil)
        // A cancelled reader ended the queue, as a cancelled `for await` ends a stream.
        cancelled.yield(.framed(.line(Array("x".utf8))))
        #expect(await cancelled.next() == nil)

        // And what was queued behind it is not handed out (shutdown starts no request queued).
        let queued = ControlLines()
        queued.yield(.framed(.line(Array("a".utf8))))
        let reader2 = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await queued.next()
        }
        #expect(await reader2.value == nil)
    }
}

extension ServedLine {
    /// The line as framed, if the handler handed it over so.
    var asFramed: LineFramer.Item? {
        if case .framed(let item) = self { item } else { nil }
    }
}
