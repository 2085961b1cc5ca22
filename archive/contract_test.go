package archive

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/snowluma/snowluma-mcp/internal/reference"
)

// EnvTestPostgres names the variable that points the contract tests at a
// PostgreSQL database they may create schemas in (.ci/run starts one):
// a postgres:// URL.
const EnvTestPostgres = "SNOWLUMA_MCP_TEST_POSTGRES"

// An opener opens a new, empty archive of one store for a test; mod
// changes the options first.
type opener func(t testing.TB, mod func(*Options)) *Store

// eachStore runs the archive's contract test f on every store: the SQLite
// file, and PostgreSQL when EnvTestPostgres names one. Without it the
// PostgreSQL half says how to run it and is skipped, or fails under CI.
func eachStore(t *testing.T, f func(t *testing.T, open opener)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { f(t, openFile) })
	t.Run("postgres", func(t *testing.T) {
		if testPostgres(t) == "" {
			return
		}
		f(t, openPostgresTest)
	})
}

// testPostgres returns EnvTestPostgres, or "" after skipping t (failing
// it under CI).
func testPostgres(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvTestPostgres)
	if u == "" {
		msg := "no PostgreSQL: set " + EnvTestPostgres + "=postgres://user@127.0.0.1:5432/db (.ci/run starts a throwaway one) to run the archive's contract on it"
		if reference.UnderCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return u
}

// openFile opens a new archive file in t's temporary directory.
func openFile(t testing.TB, mod func(*Options)) *Store {
	t.Helper()
	o := Options{Path: filepath.Join(t.TempDir(), "a", "archive.db"), Groups: Selection{All: true}, Users: Selection{All: true}, SelfID: self}
	if mod != nil {
		mod(&o)
	}
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newSchema creates an empty schema in the test database and returns the
// URL that opens an archive in it; the schema is dropped after t.
func newSchema(t testing.TB) string {
	t.Helper()
	name := newSchemaName(t)
	u, err := url.Parse(testPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// newSchemaName creates an empty schema in the test database, dropped
// after t, and returns its name.
func newSchemaName(t testing.TB) string {
	t.Helper()
	base := testPostgres(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("the test database: %v", err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("t_%x", rand.Uint64())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, base)
		if err == nil {
			c.Exec(ctx, "DROP SCHEMA "+name+" CASCADE")
			c.Close(ctx)
		}
	})
	return name
}

// openPostgresTest opens a new archive in a schema of its own.
func openPostgresTest(t testing.TB, mod func(*Options)) *Store {
	t.Helper()
	o := Options{Path: newSchema(t), Groups: Selection{All: true}, Users: Selection{All: true}, SelfID: self}
	if mod != nil {
		mod(&o)
	}
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
