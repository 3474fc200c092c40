// Package analytics keeps the service's privacy-preserving usage figures
// (doc/privacy.md): per answered diagnostic, the UTC day,
// the endpoint, a keyed hash of the domain, a visitor hash, the grade and
// the per-check statuses, and a source label. Nothing else.
//
// A [Writer] implements httpapi.Recorder. It hashes an event on the
// request's goroutine (HMAC-SHA-256 keyed with the server secret; the
// visitor hash under a key derived from the secret and the UTC day, so a
// visitor cannot be linked across days), queues the row without blocking,
// and one goroutine writes the queue in batches (a batch waits up to
// [DefaultBatchWait] for more rows after its first). A full queue drops rows
// and counts them; a failing store never slows or fails a diagnostic. A
// failed batch is held in a retry buffer as large as the queue and
// retried, oldest first, after [DefaultRetryPause] and then with a pause
// that doubles up to [DefaultMaxRetryPause]: an outage loses no row while
// the buffer has room; a full buffer drops its oldest rows and counts
// them. Failures are logged at most once per 10 s.
//
// A [Keeper] opens the store for a service and keeps it: a store that
// cannot be opened (PostgreSQL down; a SQLite path that is a directory,
// a FIFO or read-only) never stops the service, it is retried in the
// background ([DefaultRetryInterval]); a SQLite file that is not a
// database is moved aside and a new one started. Its Ping answers from a
// cached state (the writer's last batch, its queue, a background ping)
// and never waits.
//
// Two [Store] implementations share one SQL schema, applied by versioned
// migrations at open: [SQLite] (modernc.org/sqlite, no cgo, WAL; the
// embedded default) and [Postgres] (pgx v5, for many instances sharing one
// database). Raw rows roll up into daily aggregates ([Store.Rollup]); raw
// rows older than the retention are deleted ([Store.Prune]); aggregates
// stay.
//
// # What this package does not do
//
// It never stores or logs a raw domain, address, selector, user agent or
// utm_source value: the utm_source is kept only when it is one of the
// configured labels, else it becomes "other" ("direct" when absent). It
// does not record requests that were refused (4xx, 429, 5xx).
//
// # Limits
//
// [DefaultQueueSize] queued rows, [DefaultBatchSize] rows per batch,
// [DefaultBatchWait] before a batch that is not full is written,
// [DefaultRetention] for raw rows, [MinSecretBytes] for a given secret.
package analytics
