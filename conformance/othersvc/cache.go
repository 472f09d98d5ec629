package othersvc

// The caches of the second implementation (othersvc.go): answers
// kept by a key for a while, and served again from there.

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// otherCache keeps answers by key.
type otherCache struct {
	mu      sync.Mutex
	entries map[string]otherCached
}

// otherCached is an answer kept until a time.
type otherCached struct {
	status int
	header http.Header
	body   []byte
	until  time.Time
}

// cached answers from the cache's entry under key while it is fresh, and
// otherwise with serve, whose answer it keeps for ttl.
func (o *otherSvc) cached(w http.ResponseWriter, key string, ttl time.Duration, serve func(http.ResponseWriter)) {
	now := o.Clock.Now()
	o.cache.mu.Lock()
	c, ok := o.cache.entries[key]
	o.cache.mu.Unlock()
	if !ok || !now.Before(c.until) {
		rec := httptest.NewRecorder()
		serve(rec)
		c = otherCached{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes(), until: now.Add(ttl)}
		o.cache.mu.Lock()
		o.cache.entries[key] = c
		o.cache.mu.Unlock()
	}
	maps.Copy(w.Header(), c.header)
	w.WriteHeader(c.status)
	_, _ = w.Write(c.body)
}

// evict drops the entries whose key starts with prefix.
func (o *otherSvc) evict(prefix string) {
	o.cache.mu.Lock()
	defer o.cache.mu.Unlock()
	maps.DeleteFunc(o.cache.entries, func(key string, _ otherCached) bool { return strings.HasPrefix(key, prefix) })
}

// cachedList serves a page of the list, through the list's cache when there is
// one.
func (o *otherSvc) cachedList(w http.ResponseWriter, r *http.Request, user string) {
	serve := func(w http.ResponseWriter) { o.list(w, r, user) }
	switch {
	case o.Flaws.ListCacheShared:
		o.cached(w, "list "+r.URL.RawQuery, 30*time.Second, serve)
	default:
		serve(w)
	}
}

// cachedRead serves an event, through the event's cache when there is
// one.
func (o *otherSvc) cachedRead(w http.ResponseWriter, r *http.Request, id, user string) {
	serve := func(w http.ResponseWriter) { o.read(w, id, user) }
	switch {
	case o.Flaws.EventCacheNotPurged && r.Header.Get("Authorization") == "":
		o.cached(w, "shared event "+id, time.Minute, serve)
	case o.Flaws.EventCacheShared:
		o.cached(w, "event "+id, 30*time.Second, serve)
	default:
		serve(w)
	}
}

// written evicts what a write of the event id makes stale: the list, and
// the event (the shared cache in front of the service is not told).
func (o *otherSvc) written(id string) {
	o.evict("list ")
	o.evict("event " + id)
}
