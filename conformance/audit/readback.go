package audit

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"eventsvc/conformance/hal"
	"eventsvc/conformance/jsonvalue"
)

// checkReadBack checks an event read, and every event a page lists, that
// the audit saw written: each field written reads back as one of the
// bodies a serial order of the writes allows (API-6 after the creation,
// API-9 after an update; the rule of a refused write when it reads back
// as that write).
func (w *world) checkReadBack(o *observed) []*Finding {
	if o.x.Method != http.MethodGet {
		return nil
	}
	read := span{o.x.Start, o.x.End}
	switch o.kind {
	case kindEvent:
		ev, ok := w.eventAt(o)
		if !ok {
			return nil
		}
		return nilIfNone(w.readsBack(o, ev, o.doc, read, "the event"))
	case kindPage:
		for i, item := range hal.Items(o.doc) {
			u, ok := o.resolve(hal.Links(item)["self"])
			if !ok {
				continue
			}
			w.mu.Lock()
			ev, known := w.events[key(u)]
			w.mu.Unlock()
			if id, ok := idText(item["id"]); ok && known && ev.id != "" && id != ev.id {
				continue // another event under its self link: where that link leads tells the fault (API-10)
			}
			if known && !ev.gone {
				if f := w.readsBack(o, ev, item, read, fmt.Sprintf("listed event %d", i+1)); f != nil {
					return []*Finding{f}
				}
			}
		}
	}
	return nil
}

// readsBack checks doc, what a read during read showed of ev. A finding
// stands only while it holds against every write the audit learns of
// later: one under way when the read was sent is known once its answer
// comes, and while a write to ev is under way (inflight.go), none does.
func (w *world) readsBack(o *observed, ev *event, doc map[string]any, read span, what string) *Finding {
	f := w.readBack(o, ev, doc, read, what)
	if f != nil {
		f.stands = func() bool {
			if w.a.writing.under(ev.address) {
				return false // the write under way may be the one the read shows
			}
			again := w.readBack(nil, ev, doc, read, what)
			return again != nil && again.Rule == f.Rule
		}
	}
	return f
}

// readBack is readsBack without its later look; o, when given, counts
// the check.
func (w *world) readBack(o *observed, ev *event, doc map[string]any, read span, what string) *Finding {
	if w.a.writing.unsure(ev.address) {
		return nil // a write to it got no answer: it may have been taken
	}
	w.mu.Lock()
	if ev.lost {
		w.mu.Unlock()
		return nil
	}
	allowed := allowedVersions(ev.versions, read)
	versions := slices.Clone(ev.versions)
	refused := append([]version(nil), ev.refused...)
	updated := len(ev.versions) > 1
	matched := slices.Clone(ev.matched)
	w.mu.Unlock()
	rule := "API-6"
	if updated {
		rule = "API-9"
	}
	if o != nil {
		o.checked(rule)
	}
	f := shownAsWritten(doc, allowed, rule, what)
	if f == nil {
		if o != nil {
			w.mu.Lock()
			ev.matched = append(ev.matched, read)
			if len(ev.matched) > maxMatched {
				ev.matched = ev.matched[1:]
			}
			w.mu.Unlock()
		}
		return nil
	}
	for _, r := range refused {
		if r.when.start.Before(read.end) && !replacedSince(versions, r) && shownAsWritten(doc, []version{r}, r.rule, what) == nil {
			return finding(r.rule, "%s reads back as a write that was refused (%s): a refused write changes nothing", what, r.rule)
		}
	}
	for _, v := range versions {
		if !slices.ContainsFunc(allowed, func(a version) bool { return a.when == v.when }) && shownAsWritten(doc, []version{v}, rule, what) == nil {
			// An earlier version, which a later write taken replaced: a
			// stale answer (a cache, a replica behind), the later
			// write's to show, not the doing of a write refused since.
			return f
		}
	}
	for _, r := range slices.Backward(refused) {
		if r.when.start.Before(read.end) && sinceAllowed(r, allowed) && matchedBetween(matched, allowed, r) {
			return finding(r.rule, "%s changed after a write that was refused (%s), with no write taken since: a refused write changes nothing; %s", what, r.rule, strings.TrimPrefix(f.Message, what+": "))
		}
	}
	return f
}

// replacedSince reports whether a write taken after the refused write r
// ended replaced the whole event: r's body read after it, had r been
// taken, would be an answer from before that write (a stale one), not
// r's doing.
func replacedSince(versions []version, r version) bool {
	return slices.ContainsFunc(versions, func(v version) bool { return !v.create && !v.when.start.Before(r.when.end) })
}

// maxMatched is how many of the last reads that showed an event as
// written the audit keeps.
const maxMatched = 16

// matchedBetween reports whether one of the reads matched, which showed
// the event as written, began after every write a read may show ended
// and ended before the refused write r was sent: the event was right
// before r, so what changed after is r's doing, not a write of its own
// taken wrong, nor a replica behind.
func matchedBetween(matched []span, allowed []version, r version) bool {
	for _, m := range matched {
		if r.when.start.Before(m.end) {
			continue
		}
		after := true
		for _, v := range allowed {
			if m.start.Before(v.when.end) {
				after = false
			}
		}
		if after {
			return true
		}
	}
	return false
}

// sinceAllowed reports whether the refused write r was sent after every
// write a read may show began: what changed since is its doing, even
// where the event shows a value r did not send.
func sinceAllowed(r version, allowed []version) bool {
	for _, v := range allowed {
		if r.when.start.Before(v.when.end) {
			return false
		}
	}
	return true
}

// allowedVersions are the writes a read during read may show: every one
// begun before the read ended, but those that a later write, over before
// the read began, replaced.
func allowedVersions(versions []version, read span) []version {
	var out []version
	for i, v := range versions {
		if !v.when.start.Before(read.end) {
			continue
		}
		replaced := false
		for j, later := range versions {
			if j != i && later.when.start.After(v.when.end) && later.when.end.Before(read.start) {
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, v)
		}
	}
	return out
}

// shownAsWritten checks that every field of doc that one of the versions
// wrote reads back as that version wrote it, for one of them; it blames
// rule, with the last version's differences.
func shownAsWritten(doc map[string]any, versions []version, rule, what string) *Finding {
	if len(versions) == 0 {
		return nil
	}
	var diff string
	for _, v := range versions {
		diff = ""
		for _, k := range slices.Sorted(maps.Keys(v.fields)) {
			got, shown := doc[k]
			if shown && !jsonvalue.SameWritten(v.fields[k], got) {
				diff = fmt.Sprintf("%q reads back as %s; it was written as %s", k, jsonvalue.Describe(got), jsonvalue.Describe(v.fields[k]))
				break
			}
		}
		if diff == "" {
			return nil
		}
	}
	return finding(rule, "%s: %s", what, diff)
}
