@_exported import StateGraph
@_exported import TypedIdentifier
