package explore

// The model is the explorer's oracle: what a target that obeys the
// specification must hold after the sequence's actions, as far as the
// sequence can know it. Every answer is checked against it.

// model is what one sequence knows.
type model struct {
	events   []*event
	accounts map[string]*account // by AsUser, AsOther
}

// event is an event the sequence created.
type event struct {
	address string         // absolute: where the target says it is
	id      string         // its "id", as the target shows it, when it does
	manager string         // AsUser or AsOther: who created it (spec API-6)
	fields  map[string]any // the body last written and taken
	// shown are its "id" and "manager" as the target renders them, when
	// it does: what a variant writes into a body the service owns.
	shown map[string]any
}

// account is what the sequence holds of one account.
type account struct {
	access string // the access token it acts with
	// refresh is the sequence's own refresh token; "" until it asks for
	// tokens of its own (a grant), so that sequences never refresh the
	// run's shared tokens.
	refresh string
	// refreshed is true when access came from a refresh grant (spec
	// TOK-8: it acts for the account as the first did).
	refreshed bool
	// pooled is the run's shared access token of the account, from a
	// password grant: what a refreshed token is compared with.
	pooled string
}

func newModel(pool map[string]tokens) model {
	m := model{accounts: map[string]*account{}}
	for _, who := range []string{AsUser, AsOther} {
		m.accounts[who] = &account{access: pool[who].access, pooled: pool[who].access}
	}
	return m
}

// holdsToken reports whether who sends a valid access token.
func holdsToken(who string) bool { return who == AsUser || who == AsOther }

// manages reports whether who manages ev.
func manages(who string, ev *event) bool { return holdsToken(who) && ev.manager == who }

// oneOfEach is the first event the user manages and the first the other
// user manages, when the sequence has both: reads of both with one token
// tell whom it acts for.
func (m *model) oneOfEach() ([]*event, bool) {
	of := map[string]*event{}
	for _, ev := range m.events {
		if of[ev.manager] == nil {
			of[ev.manager] = ev
		}
	}
	return []*event{of[AsUser], of[AsOther]}, of[AsUser] != nil && of[AsOther] != nil
}
