package steps

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/cucumber/godog"
)

// contractTag marks the scenarios whose answers are checked against the
// Target's Contract: the reference server's choices, which the document
// describes.
const contractTag = "@ref"

// registerContract checks, after every step of a @ref scenario, each
// answer the step received against the target's Contract, and fails the
// step with the first difference. No feature file needs to ask for it.
func (s *scenario) registerContract(sc stepRegistry) {
	var seen *answerLog
	sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
		seen = nil
		if s.target.Contract == nil || !hasTag(p, contractTag) {
			return ctx, nil
		}
		base := s.client.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		seen = &answerLog{base: base}
		s.client.Transport = seen
		return ctx, nil
	})
	sc.StepContext().After(func(ctx context.Context, _ *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
		if seen == nil || err != nil {
			return ctx, nil
		}
		for _, a := range seen.take() {
			if cerr := s.target.Contract.CheckAnswer(a.req, a.status, a.header, a.body); cerr != nil {
				return ctx, fmt.Errorf("%s", s.redactor.String(fmt.Sprintf(
					"%s (the OpenAPI document is /docs/openapi.json)", firstLine(cerr.Error()))))
			}
		}
		return ctx, nil
	})
}

func hasTag(p *godog.Scenario, tag string) bool {
	for _, t := range p.Tags {
		if t.Name == tag {
			return true
		}
	}
	return false
}

// firstLine keeps the first line of a validator's message, which goes on
// to dump the schema and the value (where a token could be).
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// answerLog is a RoundTripper that keeps every answer it carries, with its
// body, until take. An answer it cannot read whole it does not keep, and
// its body gives what came, then the error that stopped it.
type answerLog struct {
	base http.RoundTripper

	mu      sync.Mutex
	answers []answer
}

type answer struct {
	req    *http.Request
	status int
	header http.Header
	body   []byte
}

// RoundTrip sends req with the base RoundTripper and keeps the answer.
func (l *answerLog) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		return resp, nil // the step reading it meets the same failure
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	l.mu.Lock()
	l.answers = append(l.answers, answer{req: req, status: resp.StatusCode, header: resp.Header.Clone(), body: body})
	l.mu.Unlock()
	return resp, nil
}

// errReader is a Reader that fails with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func (l *answerLog) take() []answer {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.answers
	l.answers = nil
	return a
}
