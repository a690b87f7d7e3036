import Foundation
import StateGraph
import Testing

// `@GraphStored` on static properties (of a class, a struct, an enum) and on globals, as
// swift-state-graph 0.27 allows: one node each, made where it is declared.

@GraphStored private var parityGlobalCount: Int = 42
@GraphStored private var parityGlobalNote: String?

private final class SharedModel {
  @GraphStored static var shared: Int = 0
  @GraphStored var instanceValue: Int = 0
}

private enum ParitySettings {
  @GraphStored static var volume: Double = 0.5 {
    didSet { history.append(oldValue) }
  }
  nonisolated(unsafe) static var history: [Double] = []
}

private struct Limits {
  @GraphStored private(set) static var maximum: Int = 10
  static func raise() { maximum += 1 }
}

@Suite("Static and global @GraphStored", .serialized)
struct MacroStaticPropertyTests {
  @Test func aStaticPropertyReadsAndWrites() {
    SharedModel.shared = 10
    #expect(SharedModel.shared == 10)
    #expect(SharedModel.$shared.name == "shared")
    let instance = SharedModel()
    instance.instanceValue = 5
    #expect(instance.instanceValue == 5)
    #expect(SharedModel.shared == 10)
  }

  @Test func aStaticPropertyIsOneNodeThatObserversAndComputationsFollow() {
    SharedModel.shared = 0
    let doubled = Computed { _ in SharedModel.shared * 2 }
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      SharedModel.$shared.onChange { seen.append($0) }
    }
    SharedModel.shared = 10
    SharedModel.$shared.wrappedValue = 42
    #expect(seen.values == [0, 10, 42])
    #expect(doubled.wrappedValue == 84)
    #expect(SharedModel.$shared === SharedModel.$shared)
    _ = subscription
  }

  @Test func aStaticPropertyOfAnEnumRunsItsObservers() {
    ParitySettings.history = []
    ParitySettings.volume = 0.8
    ParitySettings.volume = 0.2
    #expect(ParitySettings.history == [0.5, 0.8])
    #expect(ParitySettings.volume == 0.2)
  }

  @Test func aPrivateSetterStaysPrivate() {
    let before = Limits.maximum
    Limits.raise()
    #expect(Limits.maximum == before + 1)
  }

  @Test func aGlobalReadsWritesAndIsObserved() {
    parityGlobalCount = 42
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      $parityGlobalCount.onChange { seen.append($0) }
    }
    parityGlobalCount = 999
    #expect(parityGlobalCount == 999)
    #expect(seen.values == [42, 999])
    #expect(parityGlobalNote == nil)
    parityGlobalNote = "set"
    #expect($parityGlobalNote.wrappedValue == "set")
    _ = subscription
  }
}
