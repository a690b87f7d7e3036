// Every file of this target sees the shared test support (counters, recorders,
// lifetime trackers, bounded waits) through this one import.
@_exported import StateGraphTestSupport
