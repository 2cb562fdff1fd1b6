// Package pgtest starts a throwaway PostgreSQL server for tests: initdb
// in a temporary directory, pg_ctl on a free loopback port, one fresh
// database per test. Tests skip, saying why, when the PostgreSQL binaries
// are not installed.
//
// initdb refuses to run as root, so under root the server runs as the
// "postgres" system user, which owns the temporary directory.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

// server is the package's one server, started by the first test that
// asks for a database.
type server struct {
	dir, data string
	port      int
	cred      *syscall.Credential
	err       error // why there is no server (the test skips or fails)
	skip      bool
}

var (
	once sync.Once
	srv  server
	dbs  atomic.Int64
)

// Main runs the tests of a package that uses DSN and stops the server
// afterwards: call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// DSN returns the address of a new, empty database on the test server,
// starting the server on first use. It skips the test when PostgreSQL is
// not installed.
func DSN(t testing.TB) string {
	t.Helper()
	once.Do(start)
	if srv.skip {
		t.Skip(srv.err)
	}
	if srv.err != nil {
		t.Fatal(srv.err)
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbs.Add(1))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.dsn("postgres"))
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	return srv.dsn(name)
}

// Logs returns the server's log, for a failing test to show.
func Logs() string {
	b, _ := os.ReadFile(filepath.Join(srv.dir, "server.log"))
	return string(b)
}

func (s *server) dsn(db string) string {
	return fmt.Sprintf("postgres://coderag@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

func start() {
	initdb, err := findBin("initdb")
	if err != nil {
		srv.skip, srv.err = true, err
		return
	}
	pgctl, err := findBin("pg_ctl")
	if err != nil {
		srv.skip, srv.err = true, err
		return
	}
	srv.dir, err = os.MkdirTemp("", "coderag-pg-")
	if err != nil {
		srv.err = err
		return
	}
	srv.data = filepath.Join(srv.dir, "data")
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			srv.skip, srv.err = true, fmt.Errorf("running as root and there is no postgres user to run PostgreSQL as: %w", err)
			return
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		srv.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(srv.dir, uid, gid); err != nil {
			srv.err = err
			return
		}
	}
	if err := srv.run(initdb, "-D", srv.data, "-A", "trust", "-U", "coderag", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		srv.err = err
		return
	}
	// A free port: listen, note it, let it go. Another process could take
	// it before the server starts; pg_ctl then fails and says so.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.err = err
		return
	}
	srv.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
		srv.port, srv.dir)
	if err := srv.run(pgctl, "-D", srv.data, "-o", opts, "-l", filepath.Join(srv.dir, "server.log"), "-w", "-t", "60", "start"); err != nil {
		srv.err = fmt.Errorf("%w\n%s", err, Logs())
	}
}

// Stop stops the server and removes its directory.
func Stop() {
	if srv.dir == "" {
		return
	}
	if pgctl, err := findBin("pg_ctl"); err == nil && srv.port != 0 {
		srv.run(pgctl, "-D", srv.data, "-m", "immediate", "-w", "stop")
	}
	os.RemoveAll(srv.dir)
}

func (s *server) run(bin string, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Dir = s.dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
	return nil
}

// findBin finds a PostgreSQL program on PATH or in Debian's versioned
// directories.
func findBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name); len(m) > 0 {
		return m[len(m)-1], nil
	}
	return "", fmt.Errorf("PostgreSQL's %s is not installed (not on PATH nor in /usr/lib/postgresql/*/bin): skipping the PostgreSQL tests", name)
}
