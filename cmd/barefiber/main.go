// Command barefiber is a bare Fiber v2 application that answers recorded
// responses from memory: the yardstick of make bench, which records the
// answers of eventsvc (status, headers and body, byte for byte) and measures
// both servers with the same load.
//
//	barefiber -addr 127.0.0.1:0 -responses FILE
//
// FILE holds a JSON array of Recorded. A request is answered with the
// recorded response of its method, request target and whether it has an
// Authorization header; any other request gets 404. It prints
// "listening on http://ADDR" once it listens, and stops on SIGTERM or
// Ctrl-C.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/gofiber/fiber/v2"
)

// Recorded is one recorded response and the request it answers.
type Recorded struct {
	Method string `json:"method"`
	// Target is the request target, path and query: "/api/events?size=20".
	Target string `json:"target"`
	// Authorized says whether the request has an Authorization header.
	Authorized bool        `json:"authorized"`
	Status     int         `json:"status"`
	Header     [][2]string `json:"header"`
	Body       []byte      `json:"body"`
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, stop))
}

func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	fs := flag.NewFlagSet("barefiber", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	file := fs.String("responses", "", "JSON file of recorded responses (required)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	data, err := os.ReadFile(*file)
	if err != nil {
		fmt.Fprintf(stderr, "barefiber: %v\n", err)
		return 2
	}
	var recorded []Recorded
	if err := json.Unmarshal(data, &recorded); err != nil {
		fmt.Fprintf(stderr, "barefiber: %s: %v\n", *file, err)
		return 2
	}
	app := New(recorded)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "barefiber: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- app.Listener(ln) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "barefiber: %v\n", err)
		return 1
	case <-stop:
		_ = app.Shutdown()
		return 0
	}
}

// New returns a Fiber application, with Fiber's default configuration,
// that answers the recorded responses.
func New(recorded []Recorded) *fiber.App {
	byTarget := map[string][]Recorded{}
	for _, r := range recorded {
		byTarget[r.Target] = append(byTarget[r.Target], r)
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(func(c *fiber.Ctx) error {
		authorized := len(c.Request().Header.Peek(fiber.HeaderAuthorization)) > 0
		for _, r := range byTarget[string(c.Request().RequestURI())] {
			if r.Method != c.Method() || r.Authorized != authorized {
				continue
			}
			for _, h := range r.Header {
				c.Response().Header.Set(h[0], h[1])
			}
			return c.Status(r.Status).Send(r.Body)
		}
		return c.SendStatus(fiber.StatusNotFound)
	})
	return app
}
