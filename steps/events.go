package steps

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"eventsvc/conformance/target"
)

// The events a scenario created or sent, and the bodies it sends.

// absent is the table value that leaves a field out of an event body.
const absent = "(absent)"

// events are the events a scenario created or sent.
type events struct {
	address   string         // the address of the event the scenario created last, or found
	name      string         // its name when created
	body      map[string]any // the body it was last written with
	created   int            // bodies made by this scenario
	made      []string       // the addresses of the events it created, in order
	sentNames []string       // the names in the new-event bodies sent, in order
	madeNames []string       // those of them that created an event the scenario keeps
	sent      map[string]any // the body of the last update sent
	nonce     string         // marks the names of this scenario's events
	count     int            // the number of events counted earlier
	// managers are the holders ("user", "other") of the accounts that
	// manage the events the scenario created or found, by address.
	managers map[string]string
	// create is the "create-new-event" address each holder was offered.
	create map[string]string
	// creator is the holder that created the event last.
	creator string
}

// manager returns the holder that manages the event at address, as far as
// the scenario knows ("" when it does not).
func (e *events) manager(address string) string { return e.managers[address] }

// setManager records that holder manages the event at address.
func (e *events) setManager(address, holder string) {
	if e.managers == nil {
		e.managers = map[string]string{}
	}
	e.managers[address] = holder
}

// eventBody returns the body of a new event with a name that carries the
// run's and the scenario's marks.
func (s *scenario) eventBody(name string) (map[string]any, error) {
	raw := s.target.EventBody
	if len(raw) == 0 {
		raw = []byte(target.DefaultEventBody)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("the event body is not a JSON object: %w", err)
	}
	s.events.created++
	if name == "" {
		name = fmt.Sprintf("event %d", s.events.created)
	}
	body["name"] = s.runName(name)
	return body, nil
}

// runName marks a name with the run id, so that events a run leaves on a
// deployment can be found, and with a mark of the scenario, so that no
// other scenario's event has the same name. plainName takes the marks off.
func (s *scenario) runName(name string) string {
	if s.events.nonce == "" {
		s.events.nonce = randomWord(6) // not a secret: not masked
	}
	return name + " [conformance " + s.target.RunID + " " + s.events.nonce + "]"
}

func plainName(name string) string {
	if i := strings.Index(name, " [conformance "); i >= 0 {
		return name[:i]
	}
	return name
}

// charactersCell is a table value of n characters: "(255 characters)".
var charactersCell = regexp.MustCompile(`^\((\d+) characters\)$`)

// applyTable sets or removes fields of body from a two-column table. A
// value "(absent)" removes the field; "(N characters)" is a text of N
// characters, which for the name ends with the run's marks.
func (s *scenario) applyTable(body map[string]any, table *godog.Table) error {
	if table == nil {
		return nil
	}
	for _, row := range table.Rows {
		if len(row.Cells) != 2 {
			return fmt.Errorf("each row needs a field and a value")
		}
		field, value := row.Cells[0].Value, row.Cells[1].Value
		if value == absent {
			delete(body, field)
			continue
		}
		if m := charactersCell.FindStringSubmatch(value); m != nil {
			n, _ := strconv.Atoi(m[1])
			text := strings.Repeat("x", n)
			if mark := s.runName(""); field == "name" && n >= len(mark) {
				text = strings.Repeat("x", n-len(mark)) + mark
			}
			body[field] = text
			continue
		}
		var n json.Number
		if err := json.Unmarshal([]byte(value), &n); err == nil && value != "" {
			body[field] = n
		} else {
			body[field] = value
		}
	}
	return nil
}

// newEventToList returns the body of a new event, noted as about to be
// sent, and the address of the event list, as the API root gives it, to
// post it to.
func (s *scenario) newEventToList() (map[string]any, string, error) {
	body, err := s.eventBody("")
	if err != nil {
		return nil, "", err
	}
	s.events.sending(body)
	address, err := s.eventsAddress()
	if err != nil {
		return nil, "", err
	}
	return body, address, nil
}

// sending remembers the name of body, a new event about to be sent.
func (e *events) sending(body map[string]any) {
	if name, ok := body["name"].(string); ok && name != "" {
		e.sentNames = append(e.sentNames, name)
	}
}

// sentName is the name in the last new-event body sent, or "".
func (e *events) sentName() string {
	if len(e.sentNames) == 0 {
		return ""
	}
	return e.sentNames[len(e.sentNames)-1]
}
