package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStart: a cluster comes up on loopback and a new database answers.
func TestStart(t *testing.T) {
	c := Start(t)
	url := c.NewDatabase(t, "probe")
	conn, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var db, addr string
	err = conn.QueryRow(context.Background(), "SELECT current_database(), host(inet_server_addr())").Scan(&db, &addr)
	assert.NoError(t, err, "database %q on %q", db, addr)
	assert.Equal(t, "probe", db, "database %q on %q: %v", db, addr, err)
	assert.Equal(t, "127.0.0.1", addr, "database %q on %q: %v", db, addr, err)
}
