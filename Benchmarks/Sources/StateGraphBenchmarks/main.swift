// StateGraph benchmark runner.
//
//   swift run -c release StateGraphBenchmarks            full run, prints the tables
//   swift run -c release StateGraphBenchmarks --quick    CI smoke run: every workload
//                                                         once, small, verified, untimed
//   options: --samples N (default 9), --filter TEXT (workload names containing TEXT)
//   --profile OPS    for callgrind: only the StateGraph side of the workloads matching
//                    --filter, OPS ops each (creation: OPS stored + computed pairs)
//   --node-memory    the allocations one stored and one computed node make, by size
//
// Every workload checks its own results (values, exact computation and
// effect counts) against a hand-written baseline and, where there is one, a
// closed form or the published expected values; any mismatch is printed and
// the runner exits with status 1.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Progress goes to standard error, the report to standard output.
func progress(_ text: String) {
  var line = text + "\n"
  line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

func usage() -> Never {
  print(
    "usage: StateGraphBenchmarks [--quick] [--samples N] [--filter TEXT] [--profile OPS]"
      + " [--node-memory]")
  exit(2)
}

var config = RunConfig()
var profileOps: Int?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--quick": config.quick = true
  case "--samples":
    guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else { usage() }
    config.samples = value
  case "--filter":
    guard let value = arguments.popFirst() else { usage() }
    config.filter = value
  case "--profile":
    // For valgrind --tool=callgrind: build the StateGraph side of the
    // workloads matching --filter and run N ops of each, nothing else.
    guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else { usage() }
    profileOps = value
  case "--node-memory":
    nodeMemoryReport()
    exit(0)
  case "--help", "-h": usage()
  default:
    print("unknown argument \(argument)")
    usage()
  }
}

if let profileOps {
  let all =
    propagationWorkloads(config) + kairoWorkloads(config) + cellxWorkloads(config)
    + dynamicGraphWorkloads(config) + observerWorkloads(config) + transactionWorkloads(config)
    + scalingWorkloads(config) + entityStoreWorkloads(config)
  for workload in all where config.includes(workload.name) {
    let graph = workload.makeGraph()
    graph.run(0..<profileOps)
    print("\(workload.name): ran \(profileOps) ops, \(graph.tally)")
  }
  if config.includes("creation") { profileCreation(pairs: profileOps) }
  exit(0)
}

#if DEBUG
  if !config.quick {
    print("error: benchmarks need a release build: swift run -c release StateGraphBenchmarks")
    exit(2)
  }
#endif

/// The report: sections in order, each with its unit.
struct Section {
  var title: String
  var unit: String
  var rows: [Row] = []
}
var sections: [Section] = []
var passed = 0
var failed = 0

/// Runs one workload or probe, counting it as passed or failed.
@MainActor func measure(_ name: String, _ body: () -> [Row]) -> [Row] {
  guard config.includes(name) else { return [] }
  let failuresBefore = Verify.failureCount
  let start = nowNanoseconds()
  let rows = body()
  let seconds = Double(nowNanoseconds() - start) / 1e9
  let ok = Verify.failureCount == failuresBefore
  if ok { passed += 1 } else { failed += 1 }
  let status = ok ? "ok" : "FAILED"
  progress("  \(status)  \(name)  (\(format(seconds, digits: 1)) s)")
  return rows
}

@MainActor func speedSection(_ title: String, _ workloads: [SpeedWorkload]) {
  var section = Section(title: title, unit: "ns/op")
  for workload in workloads {
    section.rows += measure(workload.name) { [SpeedRunner.run(workload, config)] }
  }
  if !section.rows.isEmpty { sections.append(section) }
}

@MainActor func customSection(_ title: String, unit: String, _ name: String, _ body: () -> [Row]) {
  let rows = measure(name, body)
  if !rows.isEmpty { sections.append(Section(title: rows[0].section, unit: unit, rows: rows)) }
}

// ------------------------------------------------------------------ header

func machineDescription() -> String {
  var cpu = "unknown CPU"
  if let file = fopen("/proc/cpuinfo", "r") {
    defer { fclose(file) }
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    while getline(&line, &capacity, file) > 0 {
      let text = String(cString: line!)
      if text.hasPrefix("model name"), let colon = text.firstIndex(of: ":") {
        cpu = text[text.index(after: colon)...].trimmingCharacters()
        break
      }
    }
    free(line)
  }
  var system = utsname()
  uname(&system)
  let kernel = withUnsafeBytes(of: &system.release) {
    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
  }
  let machine = withUnsafeBytes(of: &system.machine) {
    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
  }
  return "\(cpu), \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores, \(machine), Linux \(kernel)"
}

extension StringProtocol {
  func trimmingCharacters() -> String {
    var text = Substring(self)
    while let first = text.first, first.isWhitespace { text.removeFirst() }
    while let last = text.last, last.isWhitespace { text.removeLast() }
    return String(text)
  }
}

let mode =
  config.quick
  ? "quick check (results only, no timing)"
  : "release build, median of \(config.samples) samples"
let counting = Heap.isCounting ? "on (malloc interposer)" : "unavailable on this platform"
print("StateGraph benchmarks — \(mode)")
print("machine: \(machineDescription())")
print("allocation counting: \(counting)")
fflush(nil)  // the header before the progress lines
progress("running:")

// ---------------------------------------------------------------- workloads

speedSection("Propagation", propagationWorkloads(config))
speedSection("Kairo (js-reactivity-benchmark)", kairoWorkloads(config))
speedSection("CellX (js-reactivity-benchmark)", cellxWorkloads(config))
speedSection("Dynamic graphs (js-reactivity-benchmark)", dynamicGraphWorkloads(config))
speedSection("Observers", observerWorkloads(config))
speedSection("Transactions", transactionWorkloads(config))
speedSection("EntityStore", entityStoreWorkloads(config))
customSection("Creation", unit: "ns/op", "creation") { creationRows(config) }
customSection("Memory", unit: "B", "memory") { memoryRows(config) }
customSection("Allocations", unit: "allocs/op", "steady-state allocations") {
  allocationRows(config)
}
customSection("Scaling", unit: "ns/op", "scaling") { scalingRows(config) }

// ------------------------------------------------------------------- report

if !config.quick {
  for section in sections {
    print("\n## \(section.title)\n")
    var table = TextTable(
      header: [
        "workload", "op", "baseline \(section.unit)", "StateGraph \(section.unit)", "ratio",
        "target", "met", "allocs/op", "bytes/node", "note",
      ])
    table.rightAligned = [2, 3, 4, 7, 8]
    for row in section.rows {
      table.rows.append([
        row.name, row.op,
        row.baseline.map(formatMeasure) ?? "—",
        row.graph.map(formatMeasure) ?? "—",
        row.ratio.map { format($0, digits: $0 < 10 ? 2 : 1) + "×" } ?? "—",
        row.target?.label ?? "",
        row.met.map { $0 ? "yes" : "NO, \(row.miss)" } ?? "",
        row.allocationsPerOp.map(formatMeasure) ?? "—",
        row.bytesPerNode.map(formatMeasure) ?? "—",
        row.note,
      ])
    }
    print(table.render())
  }

  let targeted = sections.flatMap(\.rows).filter { $0.met != nil }
  let missed = targeted.filter { $0.met == false }
  print("\n## Targets: \(targeted.count - missed.count) of \(targeted.count) met\n")
  for row in missed {
    let measured =
      row.ratio.map { format($0, digits: 2) + "×" } ?? formatMeasure(row.allocationsPerOp ?? 0)
    print("- \(row.name): \(row.target!.label), measured \(measured) (\(row.miss))")
  }
}

if !Verify.failures.isEmpty {
  print("\nVERIFICATION FAILED — these results are wrong, whatever their speed:")
  for failure in Verify.failures { print("  \(failure)") }
  if Verify.failureCount > Verify.failures.count {
    print("  … and \(Verify.failureCount - Verify.failures.count) more")
  }
}
print("\nbenchmarks: \(passed) passed, \(failed) failed")
exit(Verify.failures.isEmpty ? 0 : 1)
