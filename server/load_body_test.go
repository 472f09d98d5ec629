package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"eventsvc/server/event"
)

// loadBody is a create or update body. Every field is derived from one
// value k (loadBodyFor), so that an event showing fields of two bodies is
// detected.
type loadBody struct {
	Name                    string  `json:"name"`
	Description             string  `json:"description"`
	BeginEnrollmentDateTime string  `json:"beginEnrollmentDateTime"`
	CloseEnrollmentDateTime string  `json:"closeEnrollmentDateTime"`
	BeginEventDateTime      string  `json:"beginEventDateTime"`
	EndEventDateTime        string  `json:"endEventDateTime"`
	Location                *string `json:"location,omitempty"`
	BasePrice               int     `json:"basePrice"`
	MaxPrice                int     `json:"maxPrice"`
	LimitOfEnrollment       int     `json:"limitOfEnrollment"`
}

const loadNamePrefix = "load event k="

func loadBodyFor(k int) loadBody {
	at := time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(k) * time.Minute)
	b := loadBody{
		Name:                    loadNamePrefix + strconv.Itoa(k),
		Description:             fmt.Sprintf("written with value %d", k),
		BeginEnrollmentDateTime: at.Format(event.DateTimeLayout),
		CloseEnrollmentDateTime: at.Add(time.Hour).Format(event.DateTimeLayout),
		BeginEventDateTime:      at.Add(2 * time.Hour).Format(event.DateTimeLayout),
		EndEventDateTime:        at.Add(3 * time.Hour).Format(event.DateTimeLayout),
		BasePrice:               k % 1000,
		MaxPrice:                k%1000 + 1000,
		LimitOfEnrollment:       k,
	}
	if k%3 == 0 {
		b.BasePrice, b.MaxPrice = 0, 0
	}
	if k%2 == 0 {
		loc := fmt.Sprintf("room %d", k)
		b.Location = &loc
	}
	return b
}

// loadView is an event as the API shows it.
type loadView struct {
	ID int64 `json:"id"`
	loadBody
	Offline     bool   `json:"offline"`
	Free        bool   `json:"free"`
	EventStatus string `json:"eventStatus"`
	Manager     struct {
		ID int64 `json:"id"`
	} `json:"manager"`
	Links map[string]struct {
		Href string `json:"href"`
	} `json:"_links"`
}

type loadPage struct {
	Embedded struct {
		EventList []loadView `json:"eventList"`
	} `json:"_embedded"`
	Links map[string]struct {
		Href string `json:"href"`
	} `json:"_links"`
	Page struct {
		Size          int `json:"size"`
		TotalElements int `json:"totalElements"`
		TotalPages    int `json:"totalPages"`
		Number        int `json:"number"`
	} `json:"page"`
}

// checkContent reports how v differs from the body of value k, the one its
// name gives; "" when v is exactly that body.
func loadCheckContent(v loadView) (k int, diff string) {
	k, err := strconv.Atoi(strings.TrimPrefix(v.Name, loadNamePrefix))
	if err != nil || !strings.HasPrefix(v.Name, loadNamePrefix) {
		return 0, fmt.Sprintf("name %q is none the test sent", v.Name)
	}
	want := loadBodyFor(k)
	var d []string
	field := func(name string, got, want any) {
		if got != want {
			d = append(d, fmt.Sprintf("%s = %v, want %v", name, got, want))
		}
	}
	field("description", v.Description, want.Description)
	field("beginEnrollmentDateTime", v.BeginEnrollmentDateTime, want.BeginEnrollmentDateTime)
	field("closeEnrollmentDateTime", v.CloseEnrollmentDateTime, want.CloseEnrollmentDateTime)
	field("beginEventDateTime", v.BeginEventDateTime, want.BeginEventDateTime)
	field("endEventDateTime", v.EndEventDateTime, want.EndEventDateTime)
	loc := func(p *string) string {
		if p == nil {
			return "<null>"
		}
		return *p
	}
	field("location", loc(v.Location), loc(want.Location))
	field("basePrice", v.BasePrice, want.BasePrice)
	field("maxPrice", v.MaxPrice, want.MaxPrice)
	field("limitOfEnrollment", v.LimitOfEnrollment, want.LimitOfEnrollment)
	field("offline", v.Offline, want.Location != nil)
	field("free", v.Free, want.BasePrice == 0 && want.MaxPrice == 0)
	field("eventStatus", v.EventStatus, string(event.Draft))
	if d == nil {
		return k, ""
	}
	return k, fmt.Sprintf("a mix of bodies (name says k=%d): %s", k, strings.Join(d, "; "))
}
