package api

import (
	"net/http"
	"path"

	"github.com/julienschmidt/httprouter"
)

type server struct{ basePath string }

// routes registers the admin API on an httprouter.Router.
func (s *server) routes(mux *http.ServeMux) *httprouter.Router {
	router := httprouter.New()
	bp := func(p string) string { return path.Join(s.basePath, p) }
	router.Handle("GET", "/ping", s.ping)
	router.HandlerFunc(http.MethodPost, "/topics/:topic/pause", s.pauseTopic)
	router.Handle("DELETE", bp("/topics/:topic"), s.deleteTopic)
	mux.HandleFunc("/healthz", s.health)
	return router
}
