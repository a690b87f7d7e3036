// Each file in this target keeps the code of one DocC article compiling and checks
// that it does what the article says. `make docs` (docs/check-doc-snippets.py) fails
// when a ```swift block of an article is not found, line for line, in a file that
// names the article by its catalog path (`StateGraph.docc/GettingStarted.md`, in the
// file's first comment), so an edit to either shows up.
//
// The snippets `print`; the `print` below shadows the standard library's inside this
// module, so a test can collect what a snippet printed and compare it with the article.

@_exported import StateGraphTestSupport  // PrintLog, Counter, Recorder, for every file
import Foundation

/// Records the line in the running test's log (handlers that run synchronously on the
/// test's thread see its task-local log), then prints it as usual.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  let line = items.map { "\($0)" }.joined(separator: separator)
  PrintLog.current?.append(line)
  Swift.print(line, terminator: terminator)
}

/// Runs `body` and returns the lines it printed.
func printedLines(_ body: () throws -> Void) rethrows -> [String] {
  let log = PrintLog()
  try PrintLog.$current.withValue(log) { try body() }
  return log.take()
}

/// Runs `body`, which may wait for scheduled handler runs, and returns the lines it
/// printed (scheduled runs inherit the task-local log).
func printedLines(_ body: () async throws -> Void) async rethrows -> [String] {
  let log = PrintLog()
  try await PrintLog.$current.withValue(log) { try await body() }
  return log.take()
}

/// A fresh UserDefaults suite for one test, removed afterwards.
func withScratchDefaults(_ body: (_ suite: String) throws -> Void) rethrows {
  let suite = "StateGraphDocArticleTests.\(UUID().uuidString)"
  defer { UserDefaults.standard.removePersistentDomain(forName: suite) }
  try body(suite)
}
