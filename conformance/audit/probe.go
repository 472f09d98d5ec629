package audit

import (
	"encoding/json"
	"io"
	"net/http"

	"eventsvc/conformance/hal"
)

// maxAnonymousProbes is how many times a run reads one address without
// credentials for one relation (probeAnonymous).
const maxAnonymousProbes = 3

// probeAnonymous reads address without credentials, up to
// maxAnonymousProbes times a run for each relation (each time a caller
// whose credentials open nothing is offered it there), when the audit
// follows links and no anonymous caller was seen offered rel there:
// whether an action offered a caller whose credentials open nothing (the
// client's Basic ones, a refresh token) is offered to everyone is then
// known when that caller's finding is weighed, however the run's reads
// came in order, and whatever a cache of the target held when an earlier
// probe read it.
func (w *world) probeAnonymous(address, rel string) {
	f := w.a.follow
	if f == nil {
		return
	}
	w.mu.Lock()
	done := w.anonymousOffered[address] || w.anonymousProbed[rel+" "+address] >= maxAnonymousProbes
	w.anonymousProbed[rel+" "+address]++
	w.mu.Unlock()
	if done {
		return
	}
	req, err := http.NewRequest(http.MethodGet, address, nil)
	if err != nil {
		return
	}
	req.Header.Set("Accept", "application/hal+json, application/json;q=0.9, */*;q=0.1")
	resp, err := f.client(w).Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	var doc map[string]any
	if resp.StatusCode/100 != 2 || json.NewDecoder(io.LimitReader(resp.Body, MaxFollowed)).Decode(&doc) != nil {
		return
	}
	if _, ok := hal.Links(doc)[rel]; ok {
		w.mu.Lock()
		w.anonymousOffered[address] = true
		w.mu.Unlock()
	}
}
