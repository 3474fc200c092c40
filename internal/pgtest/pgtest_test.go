package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestStart: a cluster comes up on loopback and a new database answers.
func TestStart(t *testing.T) {
	c := Start(t)
	url := c.NewDatabase(t, "probe")
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var db, addr string
	if err := conn.QueryRow(context.Background(), "SELECT current_database(), host(inet_server_addr())").Scan(&db, &addr); err != nil || db != "probe" || addr != "127.0.0.1" {
		t.Errorf("database %q on %q: %v", db, addr, err)
	}
}
