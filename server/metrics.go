package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"eventsvc/server/backend"
	"eventsvc/server/event"
	"eventsvc/server/oauth"
)

// metrics are the server's Prometheus metrics, in a registry of its own
// (no global state): requests by route, method and status, their latency,
// token grants by type and outcome, lockouts, live tokens, events, and
// whether each backend answers. No label holds an address, a token, a
// username or a client id: their values are from small fixed sets.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	grants   *prometheus.CounterVec
	lockouts *prometheus.CounterVec

	// The series already met, so that a request finds its own in one
	// lookup without hashing its labels again (a sixth of the handler's
	// time otherwise). The label sets are few and fixed.
	series sync.Map // requestLabels -> *requestSeries
}

// requestLabels are the labels of a request's series.
type requestLabels struct {
	route, method string
	status        int
}

// requestSeries are the counter and the latency histogram of one set of
// requestLabels.
type requestSeries struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// count counts one answered request and its latency.
func (m *metrics) count(route, method string, status int, took time.Duration) {
	key := requestLabels{route, method, status}
	v, ok := m.series.Load(key)
	if !ok {
		v, _ = m.series.LoadOrStore(key, &requestSeries{
			requests: m.requests.WithLabelValues(route, method, strconv.Itoa(status)),
			latency:  m.latency.WithLabelValues(route, method),
		})
	}
	rs := v.(*requestSeries)
	rs.requests.Inc()
	rs.latency.Observe(took.Seconds())
}

// knownMethods are the methods a request's series names; others are
// "other".
var knownMethods = []string{fiber.MethodGet, fiber.MethodHead, fiber.MethodPost, fiber.MethodPut, fiber.MethodDelete, fiber.MethodPatch, fiber.MethodOptions}

// methodLabel is the method label of a request: one of knownMethods' own
// strings, never c.Method(), which points into a buffer fasthttp reuses
// and would corrupt the keys of metrics.series.
func methodLabel(method string) string {
	if i := slices.Index(knownMethods, method); i >= 0 {
		return knownMethods[i]
	}
	return "other"
}

// liveTokens is a token store that can count its live access tokens.
type liveTokens interface {
	LiveTokens() (int, error)
}

func newMetrics(s *Server, checkers []backend.Checker) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "eventsvc_http_requests_total",
			Help: "Requests answered, by route (the route's pattern, \"static\" for public files, \"other\" for no route), method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "eventsvc_http_request_duration_seconds",
			Help:    "Time to answer a request, by route and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method"}),
		grants: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "eventsvc_token_grants_total",
			Help: "Token requests, by grant type (password, refresh_token, other) and outcome (issued, or the OAuth error code: invalid_grant for a refused login, too_many_attempts, temporarily_unavailable…).",
		}, []string{"grant_type", "outcome"}),
		lockouts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "eventsvc_lockouts_total",
			Help: "Users or clients locked out of the token endpoint for too many failures from one address, by kind (user, client).",
		}, []string{"kind"}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.grants, m.lockouts,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if lt, ok := s.store.(liveTokens); ok {
		m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "eventsvc_tokens_live",
			Help: "Access tokens issued and not yet expired or revoked (-1 when the token store cannot be reached).",
		}, func() float64 {
			n, err := lt.LiveTokens()
			if err != nil {
				return -1
			}
			return float64(n)
		}))
	}
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "eventsvc_events",
		Help: "Events stored (-1 when the event store cannot be reached).",
	}, func() float64 {
		p, err := s.events.List(event.Query{Size: 1})
		if err != nil {
			return -1
		}
		return float64(p.Total)
	}))
	for _, c := range checkers {
		m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "eventsvc_backend_up",
			Help:        "Whether the backend answers a ping (1) or not (0).",
			ConstLabels: prometheus.Labels{"backend": c.Name()},
		}, func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
			defer cancel()
			if c.Ping(ctx) != nil {
				return 0
			}
			return 1
		}))
	}
	return m
}

// handler serves the metrics in Prometheus's text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// observe is the middleware that counts every request and its latency. It
// lets the error handler set the status of an error first, as requestLog
// does.
func (m *metrics) observe(routes map[string]bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		// fasthttp stamps the request just before it calls the handler.
		start := c.Context().Time()
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		label := "other"
		if r := c.Route(); routes[r.Path] && r.Method != "USE" {
			label = r.Path
		} else if isPublic(c.Path()) {
			label = "static"
		}
		m.count(label, methodLabel(c.Method()), c.Response().StatusCode(), time.Since(start))
		return nil
	}
}

// grant counts one token request, from its body and its outcome.
func (m *metrics) grant(body []byte, err error) {
	if m == nil {
		return
	}
	grantType := "other"
	if form, perr := url.ParseQuery(string(body)); perr == nil {
		if g := form.Get("grant_type"); g == oauth.GrantPassword || g == oauth.GrantRefreshToken {
			grantType = g
		}
	}
	outcome := "issued"
	var oe *oauth.Error
	switch {
	case err == nil:
	case errors.As(err, &oe):
		outcome = oe.Code
	case errors.Is(err, backend.ErrUnavailable):
		outcome = "temporarily_unavailable"
	default:
		outcome = "server_error"
	}
	m.grants.WithLabelValues(grantType, outcome).Inc()
}

// lockout counts one key locked out.
func (m *metrics) lockout(kind string) {
	if m != nil {
		m.lockouts.WithLabelValues(kind).Inc()
	}
}
