package ledger

import (
	"database/sql"
	"time"
)

// OpenPool 打开账本数据库的连接池。
// 连接池耗尽时，请求会在这里排队等待，直到超时。
func OpenPool(dsn string, size int) (*sql.DB, error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(size)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return db, nil
}

// 重试记账：幂等键相同的请求只记一次账。
func RetryPosting(post func() error, attempts int) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = post(); err == nil {
			return nil
		}
		time.Sleep(time.Duration(i+1) * 200 * time.Millisecond)
	}
	return err
}
