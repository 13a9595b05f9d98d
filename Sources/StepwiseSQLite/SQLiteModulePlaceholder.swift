enum SQLiteModulePlaceholder {}
