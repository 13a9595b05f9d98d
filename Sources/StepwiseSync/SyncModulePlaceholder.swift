enum SyncModulePlaceholder {}
