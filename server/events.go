package server

import (
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/event"
	"eventsvc/server/hal"
	"eventsvc/server/oauth"
)

// Paging defaults and bounds of GET /api/events.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// managerView shows who manages an event: the account id only, never its
// email or password.
type managerView struct {
	ID int64 `json:"id"`
}

// addresses of the API, absolute (reference rule API-10).
func eventsURL(c *fiber.Ctx) string { return baseURL(c) + "/api/events" }
func eventURL(c *fiber.Ctx, id int64) string {
	return eventsURL(c) + "/" + strconv.FormatInt(id, 10)
}
func profileURL(c *fiber.Ctx, anchor string) string {
	return baseURL(c) + "/docs/index.html#" + anchor
}

// isManager reports whether the caller has a valid token and manages e.
func isManager(c *fiber.Ctx, e event.Event) bool {
	t := caller(c)
	return t != nil && t.AccountID == e.ManagerID
}

// handleListEvents is GET /api/events (spec API-2 to API-5).
func (s *Server) handleListEvents(c *fiber.Ctx) error {
	q, sortParam, verr := pageQuery(c)
	if verr != nil {
		return s.writeValidation(c, verr)
	}
	page, err := s.events.List(q)
	if err != nil {
		return fmt.Errorf("list events: %w", err)
	}
	return s.writeEventPage(c, q, sortParam, page)
}

// pageQuery reads page, size and sort=property[,asc|desc]. Each may appear
// once.
func pageQuery(c *fiber.Ctx) (event.Query, string, *event.ValidationError) {
	q := event.Query{Size: DefaultPageSize}
	var errs []event.FieldError
	fail := func(field, code, value, format string, args ...any) {
		errs = append(errs, event.FieldError{Field: field, ObjectName: "pageable", Code: code, RejectedValue: value, DefaultMessage: fmt.Sprintf(format, args...)})
	}
	args := c.Request().URI().QueryArgs()
	single := func(name string) (string, bool) {
		values := args.PeekMulti(name)
		if len(values) > 1 {
			fail(name, "repeated", string(values[1]), "%s may be given once", name)
			return "", false
		}
		if len(values) == 0 {
			return "", false
		}
		return string(values[0]), true
	}
	if v, ok := single("page"); ok {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			fail("page", event.CodeTypeMismatch, v, "page must be a whole number, counted from 0")
		case n < 0:
			fail("page", event.CodeMin, v, "page must not be negative")
		case n > math.MaxInt32:
			fail("page", event.CodeTypeMismatch, v, "page is too large")
		default:
			q.Page = n
		}
	}
	if v, ok := single("size"); ok {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			fail("size", event.CodeTypeMismatch, v, "size must be a whole number")
		case n < 1 || n > MaxPageSize:
			fail("size", "Range", v, "size must be from 1 to %d", MaxPageSize)
		default:
			q.Size = n
		}
	}
	sortParam, _ := single("sort")
	if sortParam != "" {
		prop, dir, _ := strings.Cut(sortParam, ",")
		switch {
		case !event.Sortable(prop):
			fail("sort", "unknownProperty", sortParam, "events can be sorted by %s", strings.Join(event.SortableProperties(), ", "))
		case dir == "" || strings.EqualFold(dir, "asc"):
			q.Sort = prop
		case strings.EqualFold(dir, "desc"):
			q.Sort, q.Desc = prop, true
		default:
			fail("sort", event.CodeTypeMismatch, sortParam, "the sort direction must be asc or desc")
		}
	}
	if errs != nil {
		return q, "", &event.ValidationError{Errors: errs}
	}
	return q, sortParam, nil
}

// handleCreateEvent is POST /api/events (spec API-6): the caller becomes the
// event's manager.
func (s *Server) handleCreateEvent(c *fiber.Ctx) error {
	if err := requireJSON(c); err != nil {
		return err
	}
	in, err := event.Decode(c.Body())
	if err != nil {
		return s.writeValidation(c, err)
	}
	e := event.Event{Status: event.Draft, ManagerID: caller(c).AccountID}
	in.Apply(&e)
	created, err := s.events.CreateLimited(e, s.maxEvents)
	if errors.Is(err, event.ErrLimitReached) {
		return errTooManyEvents(s.maxEvents)
	} else if err != nil {
		return fmt.Errorf("create event: %w", err)
	}
	c.Location(eventURL(c, created.ID))
	return s.writeEvent(c, fiber.StatusCreated, created, "resources-events-create")
}

// errTooManyEvents refuses a create by an account that manages limit
// events already.
func errTooManyEvents(limit int) *oauth.Error {
	return &oauth.Error{
		Code:        "too_many_events",
		Description: fmt.Sprintf("an account may manage at most %d events, and yours manages that many already; update one of them instead", limit),
		Status:      http.StatusForbidden,
	}
}

// eventID reads the {id} of the path; a malformed one is a missing event.
func eventID(c *fiber.Ctx) (int64, error) {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, fiber.ErrNotFound
	}
	return id, nil
}

// handleGetEvent is GET /api/events/{id} (spec API-7, API-8).
func (s *Server) handleGetEvent(c *fiber.Ctx) error {
	id, err := eventID(c)
	if err != nil {
		return err
	}
	e, err := s.events.Get(id)
	if errors.Is(err, event.ErrNotFound) {
		return fiber.ErrNotFound
	} else if err != nil {
		return fmt.Errorf("read event: %w", err)
	}
	return s.writeEvent(c, fiber.StatusOK, e, "resources-events-get")
}

// errNotManager refuses an update by someone other than the manager.
var errNotManager = oauth.ErrAccessDenied.WithDescription("only the manager of the event may update it")

// handleUpdateEvent is PUT /api/events/{id} (spec API-9, AUTH-6). The checks
// come in this order: token (the resource server), the event exists (404),
// the caller manages it (403), the body (400).
func (s *Server) handleUpdateEvent(c *fiber.Ctx) error {
	id, err := eventID(c)
	if err != nil {
		return err
	}
	bodyErr := requireJSON(c)
	var in event.Input
	if bodyErr == nil {
		in, bodyErr = event.Decode(c.Body())
	}
	manager := caller(c).AccountID
	updated, err := s.events.Update(id, func(e *event.Event) error {
		if e.ManagerID != manager {
			return errNotManager
		}
		if bodyErr != nil {
			return bodyErr
		}
		in.Apply(e)
		return nil
	})
	var verr *event.ValidationError
	switch {
	case errors.Is(err, event.ErrNotFound):
		return fiber.ErrNotFound
	case errors.As(err, &verr):
		return s.writeValidation(c, verr)
	case err != nil:
		return err
	}
	return s.writeEvent(c, fiber.StatusOK, updated, "resources-events-update")
}

// requireJSON refuses a body that is not declared as JSON with 415.
func requireJSON(c *fiber.Ctx) error {
	mt, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return &oauth.Error{
		Code:        "unsupported_media_type",
		Description: "the body must be JSON (Content-Type: application/json)",
		Status:      http.StatusUnsupportedMediaType,
	}
}

// writeValidation sends 400 with the errors and a link to the API root.
func (s *Server) writeValidation(c *fiber.Ctx, err error) error {
	var verr *event.ValidationError
	if !errors.As(err, &verr) {
		return err
	}
	return hal.Write(c, fiber.StatusBadRequest, map[string]any{
		"content": verr.Errors,
		"_links":  hal.Links{"index": {Href: baseURL(c) + "/api"}},
	})
}
