package othersvc

// How the second implementation (othersvc.go) takes and stores an
// event: its creation, and what a body holds.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// otherRoundTrip is how long a round trip to the database of a flaw that
// needs one takes.
const otherRoundTrip = 20 * time.Millisecond

func (o *otherSvc) create(w http.ResponseWriter, r *http.Request, user string) {
	fields, err := o.readEvent(r)
	if err != nil {
		otherError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Flaws.CreatorNotManager {
		user = "nobody@example.org"
	}
	if o.Flaws.ManagerSwapRace {
		// The current user, kept on the handler while the event is
		// stored, a round trip later.
		o.creating = user
		o.mu.Unlock()
		time.Sleep(otherRoundTrip)
		o.mu.Lock()
		user = o.creating
	}
	e := &otherEvent{id: fmt.Sprintf("ev-%04d", len(o.events)+1), manager: user, fields: fields}
	if id, ok := fields["id"].(string); ok { // IDFromBody: the entity is bound from the body, its id too
		delete(fields, "id")
		if old := o.find(id); o.Flaws.SaveByBodyID && old != nil {
			// The repository's save() of an entity whose id exists
			// updates that row, whoever manages it.
			old.fields = fields
			e = old
		} else if o.Flaws.IDFromBody {
			e.id = id
		}
	}
	if o.Flaws.SameIDRace {
		// The id is read first; the insert, a round trip later,
		// overwrites an event of the same id.
		o.mu.Unlock()
		time.Sleep(otherRoundTrip)
		o.mu.Lock()
		if old := o.find(e.id); old != nil {
			*old = *e
			e = old
		}
	}
	if o.find(e.id) == nil {
		o.events = append(o.events, e)
	}
	o.written(e.id)
	self := "events/" + e.id
	if o.Flaws.CreateSelfToList {
		self = "events" // the request's own address
	}
	doc := o.doc(e, map[string]any{"self": otherLink(self)})
	if o.Flaws.PostLinksAsArray {
		doc["_links"] = []any{map[string]any{"rel": "self", "href": "events/" + e.id}}
	}
	if o.Choices.Created201 {
		w.Header().Set("Location", "/api/events/"+e.id)
		otherJSON(w, http.StatusCreated, doc)
		return
	}
	otherJSON(w, http.StatusOK, doc)
}

// find returns the event with id; the caller holds o.mu.
func (o *otherSvc) find(id string) *otherEvent {
	for _, e := range o.events {
		if e.id == id {
			return e
		}
	}
	return nil
}

// readEvent reads {"name", "startsAt", "venue"}, ignoring other fields.
func (o *otherSvc) readEvent(r *http.Request) (map[string]any, error) {
	var in struct {
		Name, StartsAt string
		Venue          string   `json:"-"`
		RawVenue       any      `json:"venue"`
		ID             any      `json:"id"` // read for IDFromBody
		Seats          *float64 `json:"-"`  // a whole number, when sent
		RawSeats       any      `json:"seats"`
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); o.Flaws.FormToken && mt == "application/x-www-form-urlencoded" {
		_ = r.ParseForm() // the binder takes a form as it takes JSON
		in.Name, in.StartsAt, in.RawVenue = r.PostForm.Get("name"), r.PostForm.Get("startsAt"), r.PostForm.Get("venue")
	} else if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&in); err != nil {
		return nil, fmt.Errorf("the body is not an event: %v", err)
	}
	var err error
	if in.Venue, err = o.venue(in.RawVenue); err != nil {
		return nil, err
	}
	if in.Seats, err = o.seats(in.RawSeats); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, fmt.Errorf("name is required")
	}
	if _, err := time.Parse(time.RFC3339, in.StartsAt); err != nil {
		return nil, fmt.Errorf("startsAt must be an RFC 3339 time with an offset")
	}
	if o.Flaws.AsciiOnly {
		in.Name, in.Venue = asciiOnly(in.Name), asciiOnly(in.Venue)
	}
	in.Name, in.StartsAt, in.Venue = o.column(in.Name, in.StartsAt, in.Venue)
	if o.Choices.UtcTimes {
		t, _ := time.Parse(time.RFC3339, in.StartsAt)
		in.StartsAt = t.UTC().Format(time.RFC3339)
	}
	out := map[string]any{"name": in.Name, "startsAt": in.StartsAt}
	if in.Seats != nil {
		seats := *in.Seats
		if o.Choices.CoerceScalars {
			seats = math.Trunc(seats) // DeserializationFeature.ACCEPT_FLOAT_AS_INT
		}
		if seats != math.Trunc(seats) || math.Abs(seats) > 1<<53 {
			return nil, fmt.Errorf("seats must be a whole number")
		}
		if o.Flaws.SeatsInt32 {
			seats = float64(int32(int64(seats))) // the column's type
		}
		out["seats"] = seats
	}
	if o.Flaws.IDFromBody || o.Flaws.SaveByBodyID {
		switch id := in.ID.(type) {
		case string:
			out["id"] = id
		case float64:
			out["id"] = strconv.FormatFloat(id, 'f', -1, 64)
		}
	}
	if in.Venue != "" {
		out["venue"] = in.Venue
	}
	return out, nil
}

// venue is the venue a body sent, as the binder reads it: a text; null
// as none (as the text "null" with NullAsText); a number or a boolean as
// its text with CoerceScalars.
func (o *otherSvc) venue(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case nil:
		if o.Flaws.NullAsText {
			return "null", nil // String(value), whatever it holds
		}
		return "", nil
	case float64, bool:
		if o.Choices.CoerceScalars {
			b, _ := json.Marshal(v)
			return string(b), nil
		}
	}
	return "", fmt.Errorf("venue must be a text")
}

// seats are the seats a body sent, as the binder reads them: a number;
// null as none; a text of a number with CoerceScalars.
func (o *otherSvc) seats(v any) (*float64, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case float64:
		return &v, nil
	case string:
		if f, err := strconv.ParseFloat(v, 64); err == nil && o.Choices.CoerceScalars {
			return &f, nil
		}
	}
	return nil, fmt.Errorf("seats must be a number")
}

// asciiOnly is s with what is not ASCII replaced by "?", as a store in
// the wrong character set keeps it.
func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r > 127 {
			return '?'
		}
		return r
	}, s)
}

// column is what the database's columns keep of a name, a time and a
// venue.
func (o *otherSvc) column(name, startsAt, venue string) (string, string, string) {
	if r := []rune(name); o.Flaws.NameVarchar100 && len(r) > 100 {
		name = string(r[:100]) // varchar(100), not in strict mode
	}
	if o.Flaws.Utf8mb3 {
		bmp := func(r rune) rune {
			if r > 0xFFFF {
				return '?'
			}
			return r
		}
		name, venue = strings.Map(bmp, name), strings.Map(bmp, venue)
	}
	if t, err := time.Parse(time.RFC3339, startsAt); err == nil && o.Flaws.ZoneDropped {
		startsAt = t.Format("2006-01-02T15:04:05") + "Z" // TIMESTAMP WITHOUT TIME ZONE
	}
	if n := utf8.RuneCountInString(venue); o.Flaws.VenuePadded && venue != "" && n < 40 {
		venue += strings.Repeat(" ", 40-n) // CHAR(40)
	}
	return name, startsAt, venue
}
