enum ServerModulePlaceholder {}
