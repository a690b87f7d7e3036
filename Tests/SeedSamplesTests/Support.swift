// Every file of this target sees the shared test support (`PrintLog`, `Counter`)
// through this one import.
@_exported import StateGraphTestSupport
