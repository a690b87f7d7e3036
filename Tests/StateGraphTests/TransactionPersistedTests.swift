import Foundation
import Testing

@testable import StateGraph

/// A transaction's commit saves its persisted nodes first, with no lock held, then applies
/// them together with its in-memory nodes, under every written node's value lock.
@Suite("withGraphTransaction: persisted nodes")
struct TransactionPersistedTests {
  /// The second persisted save stops while another thread reads a computed over a
  /// persisted and an in-memory node of the commit: neither is applied yet, so it reads
  /// both old; once the commit ends, both new.
  @Test func aReaderNeverSeesAPersistedNodeNewBesideAnInMemoryOneOld() {
    let plain = Stored(wrappedValue: 0)
    let persisted = Stored(wrappedValue: 0, backed: .custom(SaveCountingBacking()))
    let pausing = PausingBacking()
    let gated = Stored(wrappedValue: 0, backed: .custom(pausing))
    let pair = Computed { _ in [persisted.wrappedValue, plain.wrappedValue] }
    #expect(pair.wrappedValue == [0, 0])
    pausing.gate.arm()
    let seen = Locked<[Int]>([])
    let reader = startThread {
      guard pausing.gate.paused.wait(seconds: 20) else { return }
      seen.withLock { $0 = pair.wrappedValue }
      pausing.gate.resume.signal()
    }
    withGraphTransaction {
      persisted.wrappedValue = 1
      gated.wrappedValue = 1
      plain.wrappedValue = 1
    }
    #expect(reader.wait(seconds: 20))
    #expect(seen.withLock { $0 } == [0, 0])
    #expect(pair.wrappedValue == [1, 1])
    #expect(pausing.gate.value == .integer(1))
  }

  /// With every lock held and the first node applied, a reader of the persisted node
  /// waits for the rest of the commit: it is applied in the same locked group.
  @Test func aPersistedNodeIsAppliedInTheLockedGroup() {
    let plain = Stored(wrappedValue: 0)
    let persisted = Stored(wrappedValue: 0, backed: .custom(SaveCountingBacking()))
    let pair = Computed { _ in [plain.wrappedValue, persisted.wrappedValue] }
    #expect(pair.wrappedValue == [0, 0])
    let result = Locked<[Int]>([])
    let thread = ThreadState.current  // the hook is this thread's: other tests' commits skip it
    var reader: DispatchSemaphore?
    thread.pauseInCommitForTesting = {
      reader = startThread { result.withLock { $0 = pair.wrappedValue } }
      // The reader blocks on a lock of the group until the commit releases it.
      #expect(reader!.wait(timeout: .now() + .milliseconds(200)) == .timedOut)
    }
    defer { thread.pauseInCommitForTesting = nil }
    withGraphTransaction {
      plain.wrappedValue = 1
      persisted.wrappedValue = 1
    }
    thread.pauseInCommitForTesting = nil
    #expect(reader?.wait(seconds: 5) == true)
    #expect(result.withLock { $0 } == [1, 1])
  }

  /// A transaction committed into a batch that then throws: the persisted node and its
  /// place go back, and the place's other node, told after the commit, follows.
  @Test func aBatchRollingBackACommittedTransactionRestoresThePlace() {
    let backing = SaveCountingBacking()
    let persisted = Stored(wrappedValue: 0, backed: .custom(backing))
    let sibling = Stored(wrappedValue: 0, backed: .custom(backing))
    let plain = Stored(wrappedValue: 0)
    struct Failure: Error {}
    #expect(throws: Failure.self) {
      try withGraphBatch {
        withGraphTransaction {
          persisted.wrappedValue = 4
          plain.wrappedValue = 4
        }
        #expect(persisted.wrappedValue == 4)
        #expect(sibling.wrappedValue == 4)
        throw Failure()
      }
    }
    #expect(persisted.wrappedValue == 0)
    #expect(sibling.wrappedValue == 0)
    #expect(plain.wrappedValue == 0)
    #expect(backing.saves == [.integer(4), nil])  // the place held nothing before
  }

  /// A value the place's codec cannot take is reported and applied nowhere; the
  /// transaction's other writes are.
  @Test func aValueThatCannotBeSavedIsNotApplied() {
    let backing = SaveCountingBacking()
    let persisted = Stored(wrappedValue: Unencodable(), backed: .custom(backing))
    let plain = Stored(wrappedValue: 0)
    withGraphTransaction {
      persisted.wrappedValue = Unencodable(value: .nan)
      plain.wrappedValue = 1
    }
    #expect(persisted.wrappedValue == Unencodable())
    #expect(plain.wrappedValue == 1)
    #expect(backing.saves == [])
  }
}

/// A `Codable` value that JSON cannot encode when it holds a NaN.
struct Unencodable: Codable, Equatable {
  var value = 0.0

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.value.bitPattern == rhs.value.bitPattern }
}
