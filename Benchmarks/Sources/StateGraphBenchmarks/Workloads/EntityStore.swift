// EntityStore (StateGraphNormalization): 100k entities, lookups, and one
// entity updated while 1000 readers of other entities stay untouched.
//
// SLOT: the normalization module is being written. When `EntityStore` lands,
// add the workloads here (baseline: a [ID: Entity] dictionary of plain final
// classes with hand-wired readers), import StateGraphNormalization in this
// file, add the product to Package.swift, and return them below; main.swift
// already runs and reports whatever this returns.
func entityStoreWorkloads(_ config: RunConfig) -> [SpeedWorkload] { [] }

/// Shown in the report while the slot is empty.
let entityStorePending =
  "EntityStore: not measured yet (StateGraphNormalization has no EntityStore)"
