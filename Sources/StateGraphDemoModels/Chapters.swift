/// The demo's chapters, in order. Each one is a file of its own.
package let chapters: [(String, () async -> Void)] = [
  ("Stored and Computed nodes", storedAndComputed),
  ("Macros: a counter view model", counterViewModel),
  ("Full name and initials", personViewModel),
  ("Shopping cart: a cascade", shoppingCart),
  ("A library of books", library),
  ("withGraphTracking: product availability", productAvailability),
  ("withGraphTrackingGroup: conditional tracking", trackingGroup),
  ("Batches and transactions", batches),
  ("A persisted setting", persistedSetting),
  ("Normalized data: what a like recomputes", socialMedia),
  ("Seeing the graph: traces, snapshots, a picture", seeingTheGraph),
]

/// Prints an indented line, so output reads as a story.
func say(_ line: String) { print("  " + line) }
