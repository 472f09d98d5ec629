package othersvc

import "sync/atomic"

// The choices and the flaws of the second implementation (othersvc.go).

// Choices are further answers the specification leaves open.
type Choices struct {
	SelfAsAsked  bool   // a list page's "self" repeats the address asked for
	OpaqueTokens bool   // tokens are 32 random bytes in base64url, not UUIDs
	ListAsArray  bool   // list items in a top-level "events" array, no "_embedded"
	BareHTML     bool   // the docs page leaves out the optional <html>, <head>, <body> tags
	Latin1Docs   bool   // the docs page is ISO-8859-1
	Seed         int    // events already there, managed by nobody the suite knows
	SeedManager  string // the manager of the seeded events instead
	Rotate       bool   // a refresh answers a new refresh token and revokes the one it replaces (RFC 6749 §6)
	UtcTimes     bool   // startsAt is kept and shown in UTC, whatever offset it was sent with

	PutAnswersEvent bool // an update is answered 200 with the event as stored, not 204
	Created201      bool // a creation is answered 201 with the event's Location, not 200
	FoldPaths       bool // router and filter alike read /api//events/, /api/./events as /api/events
	RefuseOddPaths  bool // a path with a dot segment, //, a trailing / or %-encoded letters is refused with 400
	CoerceScalars   bool // the binder reads values as Jackson does by default: a text of digits as seats, a fraction cut, a scalar as the venue's text, null as none
}

// Flaws break the specification, one at a time.
type Flaws struct {
	CreateLinkForAnonymous bool // "create-new-event" offered without a valid token (API-3)
	NonManager401          bool // a valid token that does not manage the event gets 401 on PUT (AUTH-6)
	SessionCookie          bool // token responses set a cookie that authenticates later requests (SVC-4)
	TokenTypeMAC           bool // token_type "mac" (TOK-5)
	ExpiresInString        bool // expires_in as a JSON string, "300" (TOK-5)
	DocsNeedToken          bool // /docs/index.html refused without a valid token (SVC-6)
	UpdateLinkForAnyone    bool // "update-event" offered to any caller with a valid token (API-8)
	NextOnLastPage         bool // the last page links "next" to an empty page (API-5)
	BasicOpensAPI          bool // client credentials in Basic authenticate /api/** (AUTH-1)
	QueryToken             bool // the access token is also read from ?access_token= (SVC-4)
	AccessAsRefresh        bool // an access token works as a refresh token (TOK-14)
	RefreshAsAccess        bool // a refresh token works as a bearer token on /api/** (TOK-13)
	RefreshWithoutClient   bool // the refresh grant issues tokens without client credentials (TOK-1)
	RefreshAnyClient       bool // the refresh grant takes any Basic credentials, a wrong secret too (TOK-1, TOK-10)
	NextSamePage           bool // "next" links back to the page it is on (API-5)
	OverlappingPages       bool // each page starts with the last event of the page before (API-5)
	TokensNotHonoured      bool // the resource server knows none of the tokens the token endpoint issues (SVC-1)
	LinksAsArray           bool // GET /api has "_links" as an array of {rel, href} (SVC-2)
	NoCreateLinkForUsers   bool // "create-new-event" offered to nobody (SVC-3, API-4)
	ListNeedsToken         bool // GET /api/events needs a valid token (SVC-5)
	OneUserPerClient       bool // a client gets tokens for the first user it logs in, and no other (CLI-1)
	ScopeReadOnly          bool // the password grant grants only "read" (CLI-4)
	JsonBodyAccepted       bool // the token endpoint takes a JSON body too (TOK-2)
	PasswordNotChecked     bool // any password of a known user gets a token (TOK-3)
	RefreshTokenParamOnly  bool // the refresh token is read from "refresh_token" only, not "token" (TOK-4)
	CsrfRequired           bool // the token endpoint wants the XSRF cookie of an earlier visit (TOK-6)
	NoRefreshToken         bool // the password grant issues no refresh token (TOK-7)
	RefreshedTokensDead    bool // access tokens issued by the refresh grant do not work (TOK-8)
	UserAsClient           bool // a user's email and password authenticate as a client (TOK-10)
	NoEventsLink           bool // GET /api links the list as "event-list", not "events" (API-1)
	CreatorNotManager      bool // an event's creator does not become its manager (API-6)
	ReadNeedsToken         bool // GET of one event needs a valid token (API-7)
	UpdateIgnored          bool // a manager's PUT is answered 204 and changes nothing (API-9)
	BrokenEventsHref       bool // the "events" href of GET /api leads nowhere (API-10)
	OpenOutsideAPI         bool // requests outside /api, the docs and static files need no token (AUTH-4)
	AccessNeverExpires     bool // access tokens work past the expires_in they were issued with (LIM-1)
	UsernameNotEmail       bool // the password grant's username is the email's local part, not the email (ACC-1)
	ClientCredentials      bool // the client_credentials grant issues tokens (TOK-9)
	UnknownGETNeedToken    bool // GET on an unknown path under /api/ needs a token (AUTH-2)
	InvalidTokenRefused    bool // an invalid bearer token on GET /api/** is refused (API-2)
	StaticNeedToken        bool // the favicon and static locations need a valid token (AUTH-5)
	CreatesWithoutToken    bool // a POST without a token is refused, but creates the event (SVC-5, AUTH-3)
	AnyBearerWrites        bool // on a write under /api/, any bearer token is taken for a user (AUTH-3)
	NoClientAuth           bool // the token endpoint issues tokens without client credentials (TOK-1)
	TokensCacheable        bool // token answers carry no Cache-Control: no-store (TOK-15)
	BadClient400           bool // failed Basic authentication is answered 400 without a challenge (TOK-16)
	BearerCaseSensitive    bool // only "Bearer" is read, "bearer" is taken for no token (SVC-7)
	BasicCaseSensitive     bool // only "Basic" authenticates the client (SVC-7)
	RefreshLosesUser       bool // a refreshed access token works, but for nobody the API knows as a manager (TOK-8)
	RefreshAsFirstUser     bool // every refresh token yields a token of the first user who logged in (TOK-8)
	RefreshSingleUse       bool // a refresh token works once, though the answer gives no new one (TOK-4)
	CreateLinkDefaultOnly  bool // "create-new-event" only on a page asked for without paging parameters (API-4)
	AnonLinksFirstOnly     bool // "profile" and "get-an-event" only on the first page (API-3)
	NextWhenFull           bool // "next" on a last page that is full, to an empty page (API-5)
	PrevOnExplicitFirst    bool // "prev" on the first page when it is asked for as p=1 (API-5)
	EventSelfOffByOne      bool // an event's "self" leads to the event after it (API-10)
	ProfileNowhere         bool // an event's "profile" leads to a page that is not served (API-10)
	PostLinksAsArray       bool // the answer to a creation has "_links" as an array (SVC-2)
	PutLinksAsArray        bool // an update is answered 200 with the event, "_links" as an array (SVC-2)
	ItemsWithoutLinks      bool // the events of a list have no "_links" (SVC-2)
	ItemUpdateForAnyone    bool // the events of a list offer "update-event" to every caller (API-8)
	AsciiOnly              bool // texts lose what is not ASCII when stored (API-6)
	UpdateNameOnly         bool // an update changes the name and nothing else (API-9)
	UpdateDropsManager     bool // an update leaves the event without a manager (API-8)

	// Written as bug reports (bugreports_*.go).
	PutStaleAnswer         bool          // the answer to an update shows the values it replaced (API-9)
	CreateSelfToList       bool          // the "self" of a creation's answer leads to the list (API-10)
	TrailingSlash          bool          // the router folds /api/events/ onto /api/events, the filter does not (AUTH-3)
	SameIDRace             bool          // the id is max(id)+1, read outside the insert's transaction (API-6)
	ItemSelfFrom21st       bool          // listed events from the 21st on link to the event listed after them (API-10)
	RefreshSlidesExpiry    bool          // each refresh gives the refresh token another 3600 s (LIM-2)
	ListCacheShared        bool          // the list is cached per address, whoever asked (API-3, API-4)
	EventCacheNotPurged    bool          // anonymous reads of an event are cached, and updates do not purge them (API-9)
	EventCacheShared       bool          // an event is cached with its links per address, whoever asked (API-8)
	DoubleSlash            bool          // the router collapses repeated slashes, the filter does not (AUTH-3)
	EncodedLetters         bool          // the router decodes %65 to e, the filter does not (AUTH-3)
	DotSegments            bool          // the router removes dot segments, the filter does not (AUTH-3)
	CaseFolded             bool          // the router matches paths in any case, the filter does not (AUTH-3)
	FormToken              bool          // the token is also read from an access_token form field (SVC-4)
	CookieToken            bool          // the token is also read from an access_token cookie (SVC-4)
	QueryTokenOnUpdate     bool          // an update also reads the token from ?access_token= (SVC-4)
	NullLinks              bool          // a link the caller may not have is written as null (SVC-2)
	AmpEscapedHrefs        bool          // paging links are written with &amp; for & (API-5)
	HtmlEscapedTexts       bool          // texts are written HTML-escaped (API-6)
	NameVarchar100         bool          // names are cut at 100 characters, silently (API-6)
	Utf8mb3                bool          // characters outside the BMP are stored as ? (API-6)
	ZoneDropped            bool          // startsAt is stored without its offset and read back as UTC (API-6)
	VenuePadded            bool          // the venue is padded with spaces to 40 characters (API-6)
	TokenSwapRace          bool          // two password grants at once may both give the later user's token (ACC-1)
	ManagerSwapRace        bool          // two creations at once may both be managed by the later creator (API-6)
	RootSelfNowhere        bool          // the API root's "self" is api/, which is not served (API-10)
	LastPageNoTemplate     bool          // the last page of a list of several has no "get-an-event" (API-3, API-4)
	LastPageSelfToPrev     bool          // the last page's "self" leads to the page before (API-10)
	LastItemNoLinks        bool          // the last event of the list has no "_links" (SVC-2)
	LastPageRepeats        bool          // a last page that is not full is filled with events of the page before (API-5)
	UpdateLinkToList       bool          // an event's "update-event" leads to the list (API-10)
	VenueNotUpdated        bool          // an update leaves the venue as it was (API-9)
	RefreshNotNoStore      bool          // the refresh grant's answer has no Cache-Control: no-store (TOK-15)
	RefreshLivesAnHour     bool          // a refreshed access token lives 3600 s and says so (TOK-5, LIM-1)
	UpdateAnswerSelfToList bool          // the "self" of an update's answer leads to the list (API-10)
	NextNeverEnds          bool          // a page past the last is served as the last, and every page links "next" (API-5)
	UpdateLinkForEveryone  bool          // an event offers "update-event" to every caller, anonymous ones too (API-8)
	RootNeedsToken         bool          // GET /api answers 401 with a bearer challenge without a valid token (API-1)
	PasswordPrefix         bool          // the password is compared by as many characters as the account's has (TOK-3)
	PasswordFolded         bool          // the password is compared without regard to case (TOK-3)
	TokenFolded            bool          // the access token is looked up without regard to case (AUTH-3)
	RefreshFolded          bool          // the refresh token is looked up without regard to case (TOK-4)
	ScopeAsAsked           bool          // a token's scope is whatever the grant asked for (CLI-4)
	IDFromBody             bool          // a creation takes the "id" its body sends (API-6)
	SaveByBodyID           bool          // a creation whose body names an existing event's id updates that event (API-6)
	SeatsInt32             bool          // "seats" is stored in a 32-bit column, wrapping past 2147483647 (API-6)
	NullAsText             bool          // a venue sent as null is stored as the text "null" (API-6, API-9)
	UsernameLastWins       bool          // the password is checked for the first username sent, the token issued for the last (ACC-1)
	RefreshReadsUsername   bool          // a refresh grant that sends a username gets a token of that user (TOK-8)
	PastTheEnd             *atomic.Int64 // when set, counts the pages asked for past the last
}
