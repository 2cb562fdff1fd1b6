package sqlite

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrCrawlRunning means another crawl holds the database's crawl lock.
var ErrCrawlRunning = errors.New("another crawl is writing this database")

// crawlLocks are the descriptors this process has opened on databases to
// lock them, by absolute path, and whether it holds the lock. A
// descriptor is never closed: closing any descriptor of a file drops
// every POSIX lock the process holds on it, SQLite's own among them.
var crawlLocks struct {
	sync.Mutex
	files map[string]*os.File
	held  map[string]bool
}

// lockFile returns this process's descriptor of the database at path for
// locking, opening it (and creating an empty file, which SQLite takes as
// a new database) the first time.
func lockFile(path string) (*os.File, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("crawl lock %s: %w", path, err)
	}
	if f := crawlLocks.files[abs]; f != nil {
		return f, abs, nil
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		// The first thing a crawl writes: say what it was for.
		return nil, "", fmt.Errorf("open the index %s for writing: %w", path, unwrapPath(err))
	}
	if crawlLocks.files == nil {
		crawlLocks.files, crawlLocks.held = map[string]*os.File{}, map[string]bool{}
	}
	crawlLocks.files[abs] = f
	return f, abs, nil
}

// LockCrawl takes the crawl lock of the database at path: an advisory
// lock (flock) on the database file itself, which the kernel drops when
// the process dies, so a killed crawl never leaves it behind and no other
// file is made. SQLite's own locks are POSIX record locks, which flock
// does not touch. With wait it waits for the holder (until ctx ends);
// without, it fails at once with ErrCrawlRunning, naming the holder's pid
// where the system says (Linux). Readers never take it: queries and the
// TUI keep working during a crawl (WAL).
func LockCrawl(ctx context.Context, path string, wait bool) (unlock func(), err error) {
	for {
		crawlLocks.Lock()
		f, abs, err := lockFile(path)
		if err != nil {
			crawlLocks.Unlock()
			return nil, err
		}
		if !crawlLocks.held[abs] {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if err == nil {
				crawlLocks.held[abs] = true
				crawlLocks.Unlock()
				// A lock file of coderag before 2026-11 is not used any more.
				if b, err := os.ReadFile(path + ".lock"); err == nil && len(strings.TrimSpace(string(b))) == 0 {
					os.Remove(path + ".lock")
				}
				return func() {
					crawlLocks.Lock()
					defer crawlLocks.Unlock()
					syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
					crawlLocks.held[abs] = false
				}, nil
			}
			if !errors.Is(err, syscall.EWOULDBLOCK) {
				crawlLocks.Unlock()
				return nil, fmt.Errorf("crawl lock %s: %w", path, err)
			}
		}
		crawlLocks.Unlock()
		if !wait {
			who := "this process"
			if pid := lockHolder(abs); pid > 0 && pid != os.Getpid() {
				who = "pid " + strconv.Itoa(pid)
			} else if pid == 0 {
				who = "another process"
			}
			return nil, fmt.Errorf("%s: %w (%s); wait for it or pass --wait", path, ErrCrawlRunning, who)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// lockHolder returns the pid holding an exclusive flock on the file at
// path, from /proc/locks (Linux); 0 when none is listed, -1 when the
// system does not say.
func lockHolder(path string) int {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return -1
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return -1
	}
	defer f.Close()
	// 1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "FLOCK" || fs[3] != "WRITE" {
			continue
		}
		dev := strings.Split(fs[5], ":")
		if len(dev) != 3 || dev[2] != strconv.FormatUint(sys.Ino, 10) {
			continue
		}
		if pid, err := strconv.Atoi(fs[4]); err == nil {
			return pid
		}
	}
	return 0
}

// CrawlAlive reports whether a crawl of the database at path is running:
// some process holds its crawl lock. On Linux nothing is locked to find
// out (the kernel's lock table says), so a crawl starting meanwhile is
// never refused; elsewhere a shared lock is tried for an instant.
func CrawlAlive(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	crawlLocks.Lock()
	defer crawlLocks.Unlock()
	if crawlLocks.held[abs] {
		return true
	}
	switch pid := lockHolder(abs); {
	case pid > 0:
		return true
	case pid == 0:
		return false
	}
	f, _, err := lockFile(path)
	if err != nil {
		return false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// unwrapPath drops the *fs.PathError around err, whose path the message
// names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
