// PLACEHOLDER: replaced by the implementation.
