package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
)

// maxPeakRSS is the most memory a run may take against a hostile answer.
const maxPeakRSS = 100_000_000

// addressSpace bounds a child run's virtual memory, so that a run that
// does read a hostile answer whole fails instead of taking the machine
// down; maxPeakRSS is the check. Go reserves far more address space than
// it uses: under 2 GiB, a bounded exploration (peak RSS under 60 MB) died
// now and then on a busy machine with "runtime: cannot allocate memory",
// so 4 GiB leaves a bounded run room, and not an unbounded one.
const addressSpace = 4 << 30

// huge is an answer of 512 MiB of JSON whitespace, with its length.
func huge(w http.ResponseWriter, r *http.Request) {
	const size = 512 << 20
	w.Header().Set("Content-Type", "application/hal+json")
	w.Header().Set("Content-Length", strconv.Itoa(size))
	chunk := bytes.Repeat([]byte(" "), 64<<10)
	for sent := 0; sent < size; sent += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// endless is an answer that never ends: chunks of JSON whitespace until
// the client goes.
func endless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/hal+json")
	chunk := bytes.Repeat([]byte(" "), 64<<10)
	for {
		if _, err := w.Write(chunk); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

// gzipBomb is 1 GiB of zeros, gzip-compressed to about 1 MiB: 1024
// members (RFC 1952 §2.2) of 1 MiB each, which a gzip reader reads as one
// stream, compressed once.
func gzipBomb(t *testing.T) []byte {
	t.Helper()
	var member bytes.Buffer
	zw, err := gzip.NewWriterLevel(&member, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(make([]byte, 1<<20))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(member.Bytes(), 1024)
}

// bomb answers with gz, a gzip stream, and Content-Encoding: gzip: Go's
// transport decompresses it.
func bomb(gz []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/hal+json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(gz)))
		w.Write(gz)
	}
}

// build builds the package at path into a folder of the test's.
func build(t *testing.T, path, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("go", "build", "-o", bin, path).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", path, err, out)
	}
	return bin
}

// bounded runs the binaries the test built.
type bounded struct{ peakrss, conformance string }

// run runs the conformance binary with args and the variables vars alone
// (and PATH), its address space bounded, and returns its exit status, its
// output and its peak resident memory in bytes.
func (b bounded) run(t *testing.T, vars []string, args ...string) (int, string, int64) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "peakrss")
	cmd := exec.Command(b.peakrss, append([]string{file, strconv.Itoa(addressSpace), b.conformance}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, vars...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", b.conformance, err)
	}
	v, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("peakrss wrote no figure: %v\n%s", err, out)
	}
	rss, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out), rss
}

// TestPeakMemoryAgainstHostileAnswers runs the binary, the scenarios and
// the explorer, against a target whose answer to an event is 512 MiB, a
// gzip bomb or an endless stream: each run stays below maxPeakRSS, and
// fails (1) with that answer cut, as a finding of its own kind. Each run's
// peak memory is measured by testdata/peakrss, which says why.
func TestPeakMemoryAgainstHostileAnswers(t *testing.T) {
	b := bounded{peakrss: build(t, "./testdata/peakrss", "peakrss"), conformance: build(t, ".", "conformance")}
	gz := gzipBomb(t)
	t.Logf("the gzip bomb: 1 GiB of zeros in %.1f MB", float64(len(gz))/1e6)
	if code, out, rss := b.run(t, nil, "-version"); code != 0 || rss <= 0 || rss >= maxPeakRSS {
		t.Fatalf("the binary does not run within %d bytes of address space, or its memory cannot be read: exit %d, %d bytes\n%s", addressSpace, code, rss, out)
	}
	for _, c := range []struct {
		name   string
		answer http.HandlerFunc
	}{{"512MiB", huge}, {"gzip bomb", bomb(gz)}, {"endless", endless}} {
		t.Run(c.name, func(t *testing.T) {
			base := hostile(t, c.answer)
			for _, r := range []struct {
				name string
				vars []string
				args []string
			}{
				{"scenarios", []string{"CONFORMANCE_TAGS=@API-7", "CONFORMANCE_EXPLORE=0"}, nil},
				{"explorer", []string{"CONFORMANCE_SEED=1", "CONFORMANCE_MAX_ACTIONS=30", "CONFORMANCE_FAILED_LOGINS=0", "CONFORMANCE_MAX_TIME=60s"}, []string{"explore"}},
			} {
				dir := t.TempDir()
				vars := append([]string{"BASE_URL=" + base, "CONFORMANCE_TIMEOUT=5s", "CONFORMANCE_REPORT_DIR=" + dir}, r.vars...)
				start := time.Now()
				code, out, rss := b.run(t, vars, r.args...)
				t.Logf("%s against %s: peak RSS %.1f MB, exit %d, %s", r.name, c.name, float64(rss)/1e6, code, time.Since(start).Round(time.Millisecond))
				if rss >= maxPeakRSS {
					t.Errorf("%s: peak RSS %d bytes, want below %d", r.name, rss, maxPeakRSS)
				}
				if code != exitFailed {
					t.Errorf("%s: exit %d, want %d\n%s", r.name, code, exitFailed, tail(out))
					continue
				}
				if !cutIn(reporttest.Read(t, dir)) {
					t.Errorf("%s: no failure is an answer cut\n%s", r.name, tail(out))
				}
			}
		})
	}
}

// tail is the end of a run's output.
func tail(out string) string {
	if len(out) > 3000 {
		return "…" + out[len(out)-3000:]
	}
	return out
}

// cutIn reports whether a scenario or sequence of doc failed with an
// answer cut, blaming no rule.
func cutIn(doc report.Document) bool {
	for _, s := range doc.Scenarios {
		if s.Failure != nil && s.Failure.AnswerCut && len(s.Blamed) == 0 && strings.Contains(s.Failure.Message, "was cut at 4 MiB") {
			return true
		}
	}
	return false
}
