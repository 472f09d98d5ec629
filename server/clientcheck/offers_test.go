package clientcheck

import (
	"net/url"
	"slices"
	"testing"
)

// TestLinksAreReadAsTheServerWritesThem: rel and href, the href's JSON
// escapes decoded, a template kept whole.
func TestLinksAreReadAsTheServerWritesThem(t *testing.T) {
	body := `{"_embedded":{"eventList":[{"id":1,"name":"{\"href\":\"x\"}","_links":{"self":{"href":"http://h/api/events/1"}}}]},` +
		`"_links":{"first":{"href":"http://h/api/events?page=0\u0026size=20"},"get-an-event":{"href":"http://h/api/events/{id}","templated":true}}}`
	want := []string{"self http://h/api/events/1", "first http://h/api/events?page=0&size=20", "get-an-event http://h/api/events/{id}"}
	var got []string
	for _, l := range readLinks([]byte(body)) {
		got = append(got, string(l.rel)+" "+string(l.href))
	}
	if !slices.Equal(got, want) {
		t.Errorf("links %q, want %q", got, want)
	}
}

// TestAnAddressIsItsPathFromAPIOnAndItsQuery: whatever host built it,
// without the public URL's path prefix; a page by its parameters but its
// number.
func TestAnAddressIsItsPathFromAPIOnAndItsQuery(t *testing.T) {
	for href, want := range map[string]string{
		"http://h/api/events?page=3&size=20":         "/api/events?page=*&size=20",
		"https://public.example/prefix/api":          "/api",
		"https://public.example/prefix/api/events/7": "/api/events/7",
		"/api/events/7?x=1":                          "/api/events/7?x=1",
		"http://h/apis":                              "",
		"http://h/other/api/events":                  "",
		"https://public.example/prefix/prefix/api/x": "",
	} {
		path, query, ok := address(href, "/prefix")
		got := ""
		if ok {
			got = shape(path, query)
		}
		if got != want {
			t.Errorf("%s: shape %q, want %q", href, got, want)
		}
	}
	o := newOffers()
	o.add(Caller{}, "", link{[]byte("next"), []byte("http://h/api/events?page=1&size=5&sort=name")})
	for q, want := range map[string]bool{"page=9&size=5&sort=name": true, "size=5&sort=name&page=0": true, "page=1&size=6&sort=name": false, "page=1&size=5": false} {
		v, _ := url.ParseQuery(q)
		if yes, _ := o.offered(eventsPath, v); yes != want {
			t.Errorf("?%s offered: %v", q, yes)
		}
	}
}
