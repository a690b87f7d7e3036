public enum TypedIdentifierPlaceholder {}
