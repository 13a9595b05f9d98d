// Placeholder until the engine lands.
enum ExecutionModulePlaceholder {}
