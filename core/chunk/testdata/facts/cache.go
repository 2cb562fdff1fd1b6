package cache

import "sync"

var mu sync.Mutex

// warm fills the local cache: Get and Put of string keys are not routes.
func warm(c *Cache, store *Store) {
	var u User
	c.Get("user:1", &u)
	store.Put("user:1", u)
	c.Delete("session:9", true)
}
