package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// ErrCrawlRunning means another crawl holds the database's crawl lock.
var ErrCrawlRunning = errors.New("another crawl is writing this database")

// LockCrawl takes the crawl lock of the database at path: an advisory lock
// on path+".lock" that the kernel drops when the process dies, so a killed
// crawl never leaves it behind. With wait it waits for the holder (until
// ctx ends); without, it fails at once with ErrCrawlRunning, naming the
// holder's pid and start time. Readers never take it: queries and the TUI
// keep working during a crawl (WAL).
func LockCrawl(ctx context.Context, path string, wait bool) (unlock func(), err error) {
	lockPath := path + ".lock"
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("crawl lock %s: %w", lockPath, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("crawl lock %s: %w", lockPath, err)
		}
		if !wait {
			holder, _ := os.ReadFile(lockPath)
			f.Close()
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "unknown process"
			}
			return nil, fmt.Errorf("%s: %w (%s); wait for it or pass --wait", path, ErrCrawlRunning, who)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprintf("pid %d, started %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))), 0)
	return func() {
		f.Truncate(0)
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// CrawlAlive reports whether a crawl of the database at path is running:
// the lock file names a live process (LockCrawl writes its pid and clears
// it on unlock; a killed crawl leaves the pid of a process that is gone).
// Nothing is locked to find out, so a crawl starting meanwhile is never
// refused.
func CrawlAlive(path string) bool {
	b, err := os.ReadFile(path + ".lock")
	if err != nil {
		return false
	}
	var pid int
	if _, err := fmt.Sscanf(string(b), "pid %d", &pid); err != nil || pid <= 0 {
		return false
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
