import Foundation
import Testing
@testable import Kiosk

@Suite struct MailboxTests {
    @Test func newestWinsAndOrderIsKept() {
        let box = Mailbox<Int>(capacity: 3)
        #expect(box.push(1) == nil)
        #expect(box.push(2) == nil)
        #expect(box.push(3) == nil)
        #expect(box.push(4) == 1)
        #expect(box.push(5) == 2)
        #expect(box.count == 3)
        #expect(box.pop(timeout: 0) == 3)
        #expect(box.pop(timeout: 0) == 4)
        #expect(box.pop(timeout: 0) == 5)
        #expect(box.pop(timeout: 0) == nil)
        // Many pushes: storage is compacted, capacity holds.
        for i in 0..<10_000 { box.push(i) }
        #expect(box.drain() == [9_997, 9_998, 9_999])
    }

    @Test func popWaitsForAnotherThreadAndCloseWakesIt() {
        let box = Mailbox<String>(capacity: 2)
        Thread { Thread.sleep(forTimeInterval: 0.05); box.push("late") }.start()
        #expect(box.pop(timeout: 5) == "late")
        let start = Date()
        Thread { Thread.sleep(forTimeInterval: 0.05); box.close() }.start()
        #expect(box.pop(timeout: 5) == nil)
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(box.isClosed)
    }
}
