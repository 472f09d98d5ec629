package eventsvctest_test

import (
	"encoding/json"
	"testing"
	"time"

	"eventsvc/eventsvctest"
)

func TestAnEventIsWrittenAsASeedItem(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	b, err := json.Marshal(eventsvctest.Event{
		Name:                    "Online",
		BeginEnrollmentDateTime: time.Date(2026, 11, 1, 9, 30, 0, 0, paris),
		EndEventDateTime:        time.Date(2026, 11, 20, 21, 0, 0, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"Online","description":"","beginEnrollmentDateTime":"2026-11-01T09:30:00","endEventDateTime":"2026-11-20T21:00:00"}`
	if string(b) != want {
		t.Fatalf("the event is written\n%s\nwant its clock readings, without its zero fields\n%s", b, want)
	}
	b, err = json.Marshal(seedEvent)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]any{"location": "Room 101", "basePrice": float64(10), "maxPrice": float64(20), "limitOfEnrollment": float64(30),
		"manager": "user@email.com", "eventStatus": "PUBLISHED", "closeEnrollmentDateTime": "2026-11-10T17:00:00", "beginEventDateTime": "2026-11-20T18:00:00"} {
		if fields[name] != want {
			t.Errorf("%s is written %v, want %v", name, fields[name], want)
		}
	}
}
