package analytics

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkHasherRow is the cost Record adds to a request: two keyed
// hashes and a day key.
func BenchmarkHasherRow(b *testing.B) {
	h, _ := NewHasher(testSecret, DefaultSourceLabels)
	e := scanEvent(time.Now(), "example.com", "192.0.2.1", "web", "A", "pass")
	for b.Loop() {
		_ = h.Row(e)
	}
}

// BenchmarkSQLiteInsert writes batches of DefaultBatchSize rows to a
// SQLite file (WAL, synchronous=FULL); rows/s is the writer's ceiling.
func BenchmarkSQLiteInsert(b *testing.B) {
	s, err := OpenSQLite(context.Background(), b.TempDir()+"/bench.db")
	require.NoError(b, err)
	defer s.Close()
	h, _ := NewHasher(testSecret, DefaultSourceLabels)
	batch := make([]Row, DefaultBatchSize)
	for i := range batch {
		batch[i] = h.Row(scanEvent(time.Now(), fmt.Sprintf("d%d.example", i), "192.0.2.1", "", "A", "pass"))
	}
	for b.Loop() {
		require.NoError(b, s.Insert(context.Background(), batch))
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "rows/s")
}
