package event

import (
	"fmt"
	"time"
)

// demoTopics name the demo events.
var demoTopics = []string{
	"Go meetup", "Spring retrospective", "API design workshop", "OAuth 2.0 deep dive",
	"Hypermedia clinic", "Testing with Gherkin", "Conference keynote", "Lightning talks",
}

// Demo returns n sample events, dated from start onwards, managed in turn by
// the given accounts, with a mix of free and paid, online and offline
// events and statuses. They are for trying the API out: `make run` stores
// them so that the list, its paging and the per-caller links show at once.
func Demo(n int, managers []int64, start time.Time) []Event {
	if len(managers) == 0 {
		return nil
	}
	day := time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
	statuses := []Status{Draft, Published, BeganEnrollment}
	events := make([]Event, 0, n)
	for i := 0; i < n; i++ {
		begin := day.AddDate(0, 0, 7+i).Add(18 * time.Hour)
		e := Event{
			Name:                    fmt.Sprintf("%s #%d", demoTopics[i%len(demoTopics)], i+1),
			Description:             "A demo event of the reference server.",
			BeginEnrollmentDateTime: day.AddDate(0, 0, i%5).Add(9 * time.Hour),
			CloseEnrollmentDateTime: day.AddDate(0, 0, 5+i).Add(17 * time.Hour),
			BeginEventDateTime:      begin,
			EndEventDateTime:        begin.Add(2 * time.Hour),
			LimitOfEnrollment:       20 + 10*(i%4),
			Status:                  statuses[i%len(statuses)],
			ManagerID:               managers[i%len(managers)],
		}
		if i%3 != 0 {
			e.Location = fmt.Sprintf("Room %d", 100+i)
		}
		if i%2 == 1 {
			e.BasePrice, e.MaxPrice = 10*(i%5+1), 50*(i%5+1)
		}
		e.compute()
		events = append(events, e)
	}
	return events
}
