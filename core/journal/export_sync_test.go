package journal

// FlushSyncingWith is Flush with the journal's fsync replaced, for the
// tests of what a lost or failed fsync must not cost (flush_sync_test.go).
var FlushSyncingWith = flush
