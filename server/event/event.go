// Package event holds the events of the reference server: the record, the
// validation of a client's body, and the store.
package event

import (
	"strings"
	"time"
)

// Status is the lifecycle state of an event.
type Status string

// The states an event can be in. Every new event is a Draft.
const (
	Draft           Status = "DRAFT"
	Published       Status = "PUBLISHED"
	BeganEnrollment Status = "BEGAN_ENROLLMENT"
)

// DateTimeLayout is how date-times are written: ISO-8601 local date-time.
const DateTimeLayout = "2006-01-02T15:04:05"

// Event is one event. Date-times are local: their location is UTC and means
// nothing.
type Event struct {
	ID                      int64
	Name                    string
	Description             string
	BeginEnrollmentDateTime time.Time
	CloseEnrollmentDateTime time.Time
	BeginEventDateTime      time.Time
	EndEventDateTime        time.Time
	Location                string // empty: online
	BasePrice               int
	MaxPrice                int // 0: no upper limit
	LimitOfEnrollment       int
	Offline                 bool // computed: Location is not blank
	Free                    bool // computed: BasePrice and MaxPrice are 0
	Status                  Status
	ManagerID               int64
}

// compute sets the computed fields from the others.
func (e *Event) compute() {
	e.Offline = strings.TrimSpace(e.Location) != ""
	e.Free = e.BasePrice == 0 && e.MaxPrice == 0
}
