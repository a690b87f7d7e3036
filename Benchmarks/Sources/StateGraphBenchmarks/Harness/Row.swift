/// A speed or memory target for the library, checked against a row.
enum Target {
  /// StateGraph time ÷ baseline time (or bytes ÷ bytes) at most `max`.
  case ratio(max: Double, label: String)
  /// Heap allocations per op: exactly zero.
  case zeroAllocations
  /// Time ratio between two graph sizes at most `max`.
  case scaling(max: Double)

  var label: String {
    switch self {
    case .ratio(let max, let label): return "\(label) ≤\(format(max, digits: max < 10 ? 1 : 0))×"
    case .zeroAllocations: return "0 allocs"
    case .scaling(let max): return "≤\(format(max, digits: 1))×"
    }
  }
}

/// One line of the report.
struct Row {
  var section: String
  var name: String
  var op: String
  /// Baseline and StateGraph measurements in the section's unit (ns per op,
  /// or bytes), nil when not measured (quick mode, or not applicable).
  var baseline: Double?
  var graph: Double?
  /// Overrides baseline/graph as the checked ratio (scaling rows).
  var ratioOverride: Double?
  var allocationsPerOp: Double?
  /// StateGraph heap bytes per node, where it applies.
  var bytesPerNode: Double?
  var target: Target?
  var note = ""

  var ratio: Double? {
    if let ratioOverride { return ratioOverride }
    guard let baseline, let graph, baseline > 0 else { return nil }
    return graph / baseline
  }

  /// nil when there is no target or nothing was measured.
  var met: Bool? {
    guard let target else { return nil }
    switch target {
    case .ratio(let max, _), .scaling(let max):
      return ratio.map { $0 <= max }
    case .zeroAllocations:
      return allocationsPerOp.map { $0 == 0 }
    }
  }

  /// How far off the target: "3.2× over" or "" when met or unmeasured.
  var miss: String {
    guard met == false, let target else { return "" }
    switch target {
    case .ratio(let max, _), .scaling(let max):
      return "\(format(ratio! / max, digits: 1))× over"
    case .zeroAllocations:
      return "\(format(allocationsPerOp!, digits: 2)) allocs/op"
    }
  }
}

// ------------------------------------------------------------ formatting

/// Fixed-point formatting without Foundation.
func format(_ value: Double, digits: Int) -> String {
  if value.isNaN { return "nan" }
  if value.isInfinite { return value < 0 ? "-inf" : "inf" }
  var scale = 1.0
  for _ in 0..<digits { scale *= 10 }
  let scaled = (abs(value) * scale).rounded()
  let whole = Int(scaled / scale)
  var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
  if digits > 0 {
    let fraction = Int(scaled - Double(whole) * scale)
    var fractionText = String(fraction)
    while fractionText.count < digits { fractionText = "0" + fractionText }
    text += "." + fractionText
  }
  return text
}

/// Three significant figures for values of any size: 0.513, 12.4, 1530.
func formatMeasure(_ value: Double) -> String {
  switch abs(value) {
  case 0: return "0"
  case ..<1: return format(value, digits: 3)
  case ..<10: return format(value, digits: 2)
  case ..<100: return format(value, digits: 1)
  default: return format(value, digits: 0)
  }
}

/// A plain-text table with a header row, columns padded to fit.
struct TextTable {
  var header: [String]
  var rows: [[String]] = []
  /// Columns aligned right (numbers).
  var rightAligned: Set<Int> = []

  func render() -> String {
    let widths = header.indices.map { column in
      ([header] + rows).map { $0[column].count }.max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return rightAligned.contains(column) ? padding + cell : cell + padding
      }.joined(separator: " | ")
    }
    let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "-|-")
    return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
  }
}
