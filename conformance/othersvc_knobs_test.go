package conformance

import "sync/atomic"

// The choices and the flaws of the second implementation (othersvc_test.go).

// otherChoices are further answers the specification leaves open.
type otherChoices struct {
	selfAsAsked bool   // a list page's "self" repeats the address asked for
	listAsArray bool   // list items in a top-level "events" array, no "_embedded"
	bareHTML    bool   // the docs page leaves out the optional <html>, <head>, <body> tags
	latin1Docs  bool   // the docs page is ISO-8859-1
	seed        int    // events already there, managed by nobody the suite knows
	seedManager string // the manager of the seeded events instead
	rotate      bool   // a refresh answers a new refresh token and revokes the one it replaces (RFC 6749 §6)
	utcTimes    bool   // startsAt is kept and shown in UTC, whatever offset it was sent with

	putAnswersEvent bool // an update is answered 200 with the event as stored, not 204
	created201      bool // a creation is answered 201 with the event's Location, not 200
	foldPaths       bool // router and filter alike read /api//events/, /api/./events as /api/events
	refuseOddPaths  bool // a path with a dot segment, //, a trailing / or %-encoded letters is refused with 400
}

// otherFlaws break the specification, one at a time.
type otherFlaws struct {
	createLinkForAnonymous bool // "create-new-event" offered without a valid token (API-3)
	nonManager401          bool // a valid token that does not manage the event gets 401 on PUT (AUTH-6)
	sessionCookie          bool // token responses set a cookie that authenticates later requests (SVC-4)
	tokenTypeMAC           bool // token_type "mac" (TOK-5)
	expiresInString        bool // expires_in as a JSON string, "300" (TOK-5)
	docsNeedToken          bool // /docs/index.html refused without a valid token (SVC-6)
	updateLinkForAnyone    bool // "update-event" offered to any caller with a valid token (API-8)
	nextOnLastPage         bool // the last page links "next" to an empty page (API-5)
	basicOpensAPI          bool // client credentials in Basic authenticate /api/** (AUTH-1)
	queryToken             bool // the access token is also read from ?access_token= (SVC-4)
	accessAsRefresh        bool // an access token works as a refresh token (TOK-14)
	refreshAsAccess        bool // a refresh token works as a bearer token on /api/** (TOK-13)
	refreshWithoutClient   bool // the refresh grant issues tokens without client credentials (TOK-1)
	refreshAnyClient       bool // the refresh grant takes any Basic credentials, a wrong secret too (TOK-1, TOK-10)
	nextSamePage           bool // "next" links back to the page it is on (API-5)
	overlappingPages       bool // each page starts with the last event of the page before (API-5)
	tokensNotHonoured      bool // the resource server knows none of the tokens the token endpoint issues (SVC-1)
	linksAsArray           bool // GET /api has "_links" as an array of {rel, href} (SVC-2)
	noCreateLinkForUsers   bool // "create-new-event" offered to nobody (SVC-3, API-4)
	listNeedsToken         bool // GET /api/events needs a valid token (SVC-5)
	oneUserPerClient       bool // a client gets tokens for the first user it logs in, and no other (CLI-1)
	scopeReadOnly          bool // the password grant grants only "read" (CLI-4)
	jsonBodyAccepted       bool // the token endpoint takes a JSON body too (TOK-2)
	passwordNotChecked     bool // any password of a known user gets a token (TOK-3)
	refreshTokenParamOnly  bool // the refresh token is read from "refresh_token" only, not "token" (TOK-4)
	csrfRequired           bool // the token endpoint wants the XSRF cookie of an earlier visit (TOK-6)
	noRefreshToken         bool // the password grant issues no refresh token (TOK-7)
	refreshedTokensDead    bool // access tokens issued by the refresh grant do not work (TOK-8)
	userAsClient           bool // a user's email and password authenticate as a client (TOK-10)
	noEventsLink           bool // GET /api links the list as "event-list", not "events" (API-1)
	creatorNotManager      bool // an event's creator does not become its manager (API-6)
	readNeedsToken         bool // GET of one event needs a valid token (API-7)
	updateIgnored          bool // a manager's PUT is answered 204 and changes nothing (API-9)
	brokenEventsHref       bool // the "events" href of GET /api leads nowhere (API-10)
	openOutsideAPI         bool // requests outside /api, the docs and static files need no token (AUTH-4)
	accessNeverExpires     bool // access tokens work past the expires_in they were issued with (LIM-1)
	usernameNotEmail       bool // the password grant's username is the email's local part, not the email (ACC-1)
	clientCredentials      bool // the client_credentials grant issues tokens (TOK-9)
	unknownGETNeedToken    bool // GET on an unknown path under /api/ needs a token (AUTH-2)
	invalidTokenRefused    bool // an invalid bearer token on GET /api/** is refused (API-2)
	staticNeedToken        bool // the favicon and static locations need a valid token (AUTH-5)
	createsWithoutToken    bool // a POST without a token is refused, but creates the event (SVC-5, AUTH-3)
	anyBearerWrites        bool // on a write under /api/, any bearer token is taken for a user (AUTH-3)
	noClientAuth           bool // the token endpoint issues tokens without client credentials (TOK-1)
	tokensCacheable        bool // token answers carry no Cache-Control: no-store (TOK-15)
	badClient400           bool // failed Basic authentication is answered 400 without a challenge (TOK-16)
	bearerCaseSensitive    bool // only "Bearer" is read, "bearer" is taken for no token (SVC-7)
	basicCaseSensitive     bool // only "Basic" authenticates the client (SVC-7)
	refreshLosesUser       bool // a refreshed access token works, but for nobody the API knows as a manager (TOK-8)
	refreshAsFirstUser     bool // every refresh token yields a token of the first user who logged in (TOK-8)
	refreshSingleUse       bool // a refresh token works once, though the answer gives no new one (TOK-4)
	createLinkDefaultOnly  bool // "create-new-event" only on a page asked for without paging parameters (API-4)
	anonLinksFirstOnly     bool // "profile" and "get-an-event" only on the first page (API-3)
	nextWhenFull           bool // "next" on a last page that is full, to an empty page (API-5)
	prevOnExplicitFirst    bool // "prev" on the first page when it is asked for as p=1 (API-5)
	eventSelfOffByOne      bool // an event's "self" leads to the event after it (API-10)
	profileNowhere         bool // an event's "profile" leads to a page that is not served (API-10)
	postLinksAsArray       bool // the answer to a creation has "_links" as an array (SVC-2)
	putLinksAsArray        bool // an update is answered 200 with the event, "_links" as an array (SVC-2)
	itemsWithoutLinks      bool // the events of a list have no "_links" (SVC-2)
	itemUpdateForAnyone    bool // the events of a list offer "update-event" to every caller (API-8)
	asciiOnly              bool // texts lose what is not ASCII when stored (API-6)
	updateNameOnly         bool // an update changes the name and nothing else (API-9)
	updateDropsManager     bool // an update leaves the event without a manager (API-8)

	// Written as bug reports (bugreports_*_test.go).
	putStaleAnswer         bool          // the answer to an update shows the values it replaced (API-9)
	createSelfToList       bool          // the "self" of a creation's answer leads to the list (API-10)
	trailingSlash          bool          // the router folds /api/events/ onto /api/events, the filter does not (AUTH-3)
	sameIDRace             bool          // the id is max(id)+1, read outside the insert's transaction (API-6)
	itemSelfFrom21st       bool          // listed events from the 21st on link to the event listed after them (API-10)
	refreshSlidesExpiry    bool          // each refresh gives the refresh token another 3600 s (LIM-2)
	listCacheShared        bool          // the list is cached per address, whoever asked (API-3, API-4)
	eventCacheNotPurged    bool          // anonymous reads of an event are cached, and updates do not purge them (API-9)
	eventCacheShared       bool          // an event is cached with its links per address, whoever asked (API-8)
	doubleSlash            bool          // the router collapses repeated slashes, the filter does not (AUTH-3)
	encodedLetters         bool          // the router decodes %65 to e, the filter does not (AUTH-3)
	dotSegments            bool          // the router removes dot segments, the filter does not (AUTH-3)
	caseFolded             bool          // the router matches paths in any case, the filter does not (AUTH-3)
	formToken              bool          // the token is also read from an access_token form field (SVC-4)
	cookieToken            bool          // the token is also read from an access_token cookie (SVC-4)
	queryTokenOnUpdate     bool          // an update also reads the token from ?access_token= (SVC-4)
	nullLinks              bool          // a link the caller may not have is written as null (SVC-2)
	ampEscapedHrefs        bool          // paging links are written with &amp; for & (API-5)
	htmlEscapedTexts       bool          // texts are written HTML-escaped (API-6)
	nameVarchar100         bool          // names are cut at 100 characters, silently (API-6)
	utf8mb3                bool          // characters outside the BMP are stored as ? (API-6)
	zoneDropped            bool          // startsAt is stored without its offset and read back as UTC (API-6)
	venuePadded            bool          // the venue is padded with spaces to 40 characters (API-6)
	tokenSwapRace          bool          // two password grants at once may both give the later user's token (ACC-1)
	managerSwapRace        bool          // two creations at once may both be managed by the later creator (API-6)
	rootSelfNowhere        bool          // the API root's "self" is api/, which is not served (API-10)
	lastPageNoTemplate     bool          // the last page of a list of several has no "get-an-event" (API-3, API-4)
	lastPageSelfToPrev     bool          // the last page's "self" leads to the page before (API-10)
	lastItemNoLinks        bool          // the last event of the list has no "_links" (SVC-2)
	lastPageRepeats        bool          // a last page that is not full is filled with events of the page before (API-5)
	updateLinkToList       bool          // an event's "update-event" leads to the list (API-10)
	venueNotUpdated        bool          // an update leaves the venue as it was (API-9)
	refreshNotNoStore      bool          // the refresh grant's answer has no Cache-Control: no-store (TOK-15)
	refreshLivesAnHour     bool          // a refreshed access token lives 3600 s and says so (TOK-5, LIM-1)
	updateAnswerSelfToList bool          // the "self" of an update's answer leads to the list (API-10)
	nextNeverEnds          bool          // a page past the last is served as the last, and every page links "next" (API-5)
	updateLinkForEveryone  bool          // an event offers "update-event" to every caller, anonymous ones too (API-8)
	rootNeedsToken         bool          // GET /api answers 401 with a bearer challenge without a valid token (API-1)
	pastTheEnd             *atomic.Int64 // when set, counts the pages asked for past the last
}
