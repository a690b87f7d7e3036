import StateGraph

// cellx (js-reactivity-benchmark, after Riim/cellx's perf page): layers of
// four cells, each reading cells of the previous layer, an effect on every
// cell. One op is one batch writing the four start cells, then reading the
// last layer. Ops alternate between the benchmark's write (4, 3, 2, 1) and
// the initial values (1, 2, 3, 4), so every op changes the whole grid; the
// last layer must show the benchmark's published values.

/// js-reactivity-benchmark's expected last layer: before and after the write.
private let cellxGolden: [Int: (before: [Int], after: [Int])] = [
  1000: ([-3, -6, -2, 2], [-2, -4, 2, 3]),
  2500: ([-3, -6, -2, 2], [-2, -4, 2, 3]),
  5000: ([2, 4, -1, -6], [-2, 1, -4, -4]),
]

private let cellxStart = [1, 2, 3, 4]
private let cellxWrite = [4, 3, 2, 1]

func cellxWorkloads(_ config: RunConfig) -> [SpeedWorkload] {
  [1000, 5000].map { layers in
    SpeedWorkload(
      section: "CellX (js-reactivity-benchmark)", name: "cellx \(layers) layers",
      op: "batch of 4 writes, \(4 * layers) effects", target: .ratio(max: 4, label: "prop."),
      verifyOps: 4,
      makeBaseline: { CellxBaseline(layers: layers) }, makeGraph: { CellxGraph(layers: layers) })
  }
}

/// Checks the last layer after op `i` against the published values.
private func checkLastLayer(_ a: Int, _ b: Int, _ c: Int, _ d: Int, layers: Int, op i: Int) {
  guard let golden = cellxGolden[layers] else { return }
  let e = i % 2 == 0 ? golden.after : golden.before
  if a != e[0] || b != e[1] || c != e[2] || d != e[3] {
    Verify.fail("cellx \(layers): last layer \([a, b, c, d]), expected \(e)")
  }
}

final class CellxBaseline: Subject {
  final class Layer {
    var p1: Int, p2: Int, p3: Int, p4: Int
    init(_ p1: Int, _ p2: Int, _ p3: Int, _ p4: Int) {
      (self.p1, self.p2, self.p3, self.p4) = (p1, p2, p3, p4)
    }
  }
  private let start = Layer(1, 2, 3, 4)
  private var layers: [Layer] = []
  private(set) var tally = Tally()
  private let layerCount: Int

  init(layers count: Int) {
    layerCount = count
    var previous = start
    for _ in 0..<count {
      let layer = Layer(
        previous.p2, previous.p1 - previous.p3, previous.p2 + previous.p4, previous.p3)
      layers.append(layer)
      previous = layer
    }
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      let values = i % 2 == 0 ? cellxWrite : cellxStart
      // The batch: four writes, then each layer recomputes the cells whose
      // inputs changed; every changed cell runs its effect.
      var c1 = start.p1 != values[0]
      var c2 = start.p2 != values[1]
      var c3 = start.p3 != values[2]
      var c4 = start.p4 != values[3]
      (start.p1, start.p2, start.p3, start.p4) = (values[0], values[1], values[2], values[3])
      var previous = start
      for layer in layers {
        guard c1 || c2 || c3 || c4 else { break }
        var n1 = false
        var n2 = false
        var n3 = false
        var n4 = false
        if c2 {
          let v = previous.p2
          tally.recomputes += 1
          if v != layer.p1 { (layer.p1, n1) = (v, true) }
        }
        if c1 || c3 {
          let v = previous.p1 - previous.p3
          tally.recomputes += 1
          if v != layer.p2 { (layer.p2, n2) = (v, true) }
        }
        if c2 || c4 {
          let v = previous.p2 + previous.p4
          tally.recomputes += 1
          if v != layer.p3 { (layer.p3, n3) = (v, true) }
        }
        if c3 {
          let v = previous.p3
          tally.recomputes += 1
          if v != layer.p4 { (layer.p4, n4) = (v, true) }
        }
        tally.effects += (n1 ? 1 : 0) + (n2 ? 1 : 0) + (n3 ? 1 : 0) + (n4 ? 1 : 0)
        (c1, c2, c3, c4) = (n1, n2, n3, n4)
        previous = layer
      }
      let end = layers[layers.count - 1]
      tally.checksum &+= end.p1 &+ end.p2 &+ end.p3 &+ end.p4
      checkLastLayer(end.p1, end.p2, end.p3, end.p4, layers: layerCount, op: i)
    }
  }
}

final class CellxGraph: Subject {
  private let start = cellxStart.map { Stored(wrappedValue: $0) }
  private var end: [Computed<Int>] = []
  private let counter = Counter()
  private let effectCounter = Counter()
  private var subscription: StateGraphSubscription?
  private var checksum = 0
  private let layerCount: Int
  var tally: Tally {
    Tally(checksum: checksum, recomputes: counter.count, effects: effectCounter.count)
  }

  init(layers count: Int) {
    layerCount = count
    let (counter, effectCounter) = (self.counter, self.effectCounter)
    var cells: [Computed<Int>] = []
    let s = start
    var layer = [
      Computed { _ in
        counter.count += 1
        return s[1].wrappedValue
      },
      Computed { _ in
        counter.count += 1
        return s[0].wrappedValue - s[2].wrappedValue
      },
      Computed { _ in
        counter.count += 1
        return s[1].wrappedValue + s[3].wrappedValue
      },
      Computed { _ in
        counter.count += 1
        return s[2].wrappedValue
      },
    ]
    cells += layer
    for _ in 1..<count {
      let (m1, m2, m3, m4) = (layer[0], layer[1], layer[2], layer[3])
      layer = [
        Computed { _ in
          counter.count += 1
          return m2.wrappedValue
        },
        Computed { _ in
          counter.count += 1
          return m1.wrappedValue - m3.wrappedValue
        },
        Computed { _ in
          counter.count += 1
          return m2.wrappedValue + m4.wrappedValue
        },
        Computed { _ in
          counter.count += 1
          return m3.wrappedValue
        },
      ]
      cells += layer
    }
    end = layer
    let all = cells
    subscription = withGraphTracking {
      for cell in all {
        cell.onChange { _ in effectCounter.count += 1 }
      }
    }
    (counter.count, effectCounter.count) = (0, 0)
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      let values = i % 2 == 0 ? cellxWrite : cellxStart
      let start = self.start
      withGraphBatch {
        for k in 0..<4 { start[k].wrappedValue = values[k] }
      }
      let (a, b, c, d) = (
        end[0].wrappedValue, end[1].wrappedValue, end[2].wrappedValue, end[3].wrappedValue
      )
      checksum &+= a &+ b &+ c &+ d
      checkLastLayer(a, b, c, d, layers: layerCount, op: i)
    }
  }
}
