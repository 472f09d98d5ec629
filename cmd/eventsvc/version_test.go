package main

import (
	"bytes"
	"strings"
	"testing"

	"eventsvc/internal/version"
)

func TestVersionPrintsTheVersionRevisionAndDate(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"version"}, nil, &out, &errs, nil); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	v := version.Get()
	if got, want := out.String(), v.Text("eventsvc"); got != want {
		t.Errorf("eventsvc version printed %q, want %q", got, want)
	}
	for _, want := range []string{"eventsvc " + v.Version + "\n", "revision " + v.Revision, "built    " + v.Date} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("eventsvc version lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"version", "extra"}, nil, &out, &errs, nil); code != exitUsage {
		t.Errorf("eventsvc version extra: exit %d, want %d", code, exitUsage)
	}
}

func TestTheBannerNamesTheVersion(t *testing.T) {
	s := startServe(t)
	line := listeningOn.FindString(s.out.String())
	for _, l := range strings.Split(s.out.String(), "\n") {
		if strings.Contains(l, line) {
			line = l
		}
	}
	if want := "version " + version.Get().String(); !strings.Contains(line, want) {
		t.Errorf("the banner's line %q does not name the version: want %q in it", line, want)
	}
}
