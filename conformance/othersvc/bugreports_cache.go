package othersvc

// cacheReports are faults of a cache.
var cacheReports = []BugReport{
	{
		Name: "the list is cached per address, whoever asked",
		Report: `Visitors who were not logged in saw the "create event" button, and logged-in users sometimes did not:
the list is cached for 30 s per address, and the cache key forgets the Authorization header, so whoever asks first
for an address decides what everyone is offered there until the entry expires. Writes evict the cache.`,
		Rules:  []string{"API-3", "API-4", "SVC-3"},
		Config: Config{Flaws: Flaws{ListCacheShared: true}},
		Today:  Caught{Scenarios: "API-4", Explorer: "API-3 API-4"},
		Shows: func(c *Client) error {
			c.read("/api/events?per_page=7", bearer(c.user())...)
			a := c.read("/api/events?per_page=7")
			return c.errorIf(a.link("create-new-event") == "", "an anonymous caller is not offered create-new-event after the user read the page")
		},
	},
	{
		Name: "an update does not purge the cached event",
		Report: `After an organiser renamed an event, visitors kept seeing the old name for a minute. Anonymous reads of
an event are cached for 60 s by the shared cache in front of the service, and an update does not purge the
entry.`,
		Rules:  []string{"API-9"},
		Config: Config{Flaws: Flaws{EventCacheNotPurged: true}},
		Today:  Caught{Scenarios: "API-9", Explorer: "API-9"},
		Shows: func(c *Client) error {
			token, a := c.userCreated("Old name")
			c.read(a.link("self"))
			put := c.update(token, a.link("self"), "New name", "Room 4")
			c.failIf(put.status/100 != 2, "the update failed: it answered %d", put.status)
			got := c.read(a.link("self"))
			return c.errorIf(got.text("name") != "Old name", "after the update, the event reads named %q", got.text("name"))
		},
	},
	{
		Name: "the event is cached with its links, whoever asked",
		Report: `A visitor who opened an event right after its organiser saw an "edit" button on it. The answer to a
read of an event is cached for 30 s per address, links included, and the key forgets who asked: what the
manager was offered is served to whoever comes next. Updates evict the entry.`,
		Rules:  []string{"API-8", "SVC-3"},
		Config: Config{Flaws: Flaws{EventCacheShared: true}},
		Today:  Caught{Scenarios: "API-8", Explorer: "API-8"},
		Shows: func(c *Client) error {
			token, a := c.userCreated("Cached with its links")
			c.read(a.link("self"), bearer(token)...)
			got := c.read(a.link("self"))
			return c.errorIf(got.link("update-event") == "", "an anonymous caller is not offered update-event after the manager read the event")
		},
	},
}
