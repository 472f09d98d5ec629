package audit

import (
	"maps"
	"slices"
)

// Whom a token acts for. A password grant sent at the same moment as
// another account's may come back with a token that acts for the other
// account: a target that keeps the user it is logging in where another
// request's login overwrites it (spec ACC-1, the account is the grant's
// username). The registry tells it from both sides of what the token is
// let do: offered "update-event" on events the other account manages and
// not on its own, or let do what another token of its own account was
// refused. Both together, for a token whose grant met the other
// account's (grants.go), are the grant's fault; either alone blames
// nothing for such a token, and the links' fault (API-8) only for a
// token whose grant met none.

// actsAs is what a world learned of whom one access token acts for.
type actsAs struct {
	// offeredOf are the accounts whose events the token was offered
	// "update-event" on.
	offeredOf map[string]bool
	// deniedOwn and offeredOwn say that the token's reads of its own
	// account's events lacked "update-event", and offered it.
	deniedOwn, offeredOwn bool
}

// besideOf are the accounts that stood beside t's grant (grantsSeen),
// each with how: those whose password grants were answered while its
// own was under way, in any world of the run, and those whose username
// its grant's form sent too (a username repeated, a username beside a
// refresh token).
func (w *world) besideOf(t *token) map[string]string {
	if t == nil || t.value == "" {
		return nil
	}
	return w.a.grants.of(t.value)
}

// actsAs is what w learned of t, made on first use. w.mu is held.
func (w *world) actsAs(t *token) *actsAs {
	if w.identity == nil {
		w.identity = map[*token]*actsAs{}
	}
	a := w.identity[t]
	if a == nil {
		a = &actsAs{offeredOf: map[string]bool{}}
		w.identity[t] = a
	}
	return a
}

// noteUpdateOffer notes that a read by c, a valid token, was offered
// "update-event" on an event manager manages (offered), or was not on
// one of its own account's.
func (w *world) noteUpdateOffer(c caller, manager string, offered bool) {
	if c.class != callerValid || c.tok == nil || manager == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	a := w.actsAs(c.tok)
	switch {
	case manager != c.account && offered:
		a.offeredOf[manager] = true
	case manager == c.account && offered:
		a.offeredOwn = true
	case manager == c.account:
		a.deniedOwn = true
	}
}

// actsForAnother returns the account t acts for when its reads show it
// acts for another than its grant's, and how that account stood beside
// it (besideOf): offered the updates of that account's events, and never
// of its own account's, whose updates it was denied.
func (w *world) actsForAnother(t *token) (account, how string, ok bool) {
	if t == nil {
		return "", "", false
	}
	if w.mixed() {
		return "", "", false
	}
	beside := w.besideOf(t)
	w.mu.Lock()
	defer w.mu.Unlock()
	a := w.identity[t]
	if a == nil || !a.deniedOwn || a.offeredOwn {
		return "", "", false
	}
	for _, account := range slices.Sorted(maps.Keys(a.offeredOf)) {
		if how, named := beside[account]; named {
			return account, how, true
		}
	}
	return "", "", false
}

// offeredAnother are the findings of an event, managed by manager, that
// offers c "update-event": API-8 (offeredWithout), unless c's token acts
// for manager (actsForAnother), when it is ACC-1 instead. What stands is
// decided at the run's end.
func (w *world) offeredAnother(c caller, address, manager, msg string) []*Finding {
	f := w.offeredWithout(c, address, msg)
	w.noteUpdateOffer(c, manager, true)
	if c.class != callerValid || c.tok == nil || manager == "" {
		return []*Finding{f}
	}
	t := c.tok
	swapped := func() bool { _, _, ok := w.actsForAnother(t); return ok }
	// A token issued beside manager's grant may act for manager: its
	// offer is the links' fault only when another token of the account
	// was offered it too.
	linksFault := func() bool {
		_, beside := w.besideOf(t)[manager]
		w.mu.Lock()
		defer w.mu.Unlock()
		return !beside || slices.ContainsFunc(w.offered[c.account+" "+address], func(u use) bool { return u.tok != nil && w.plainToken(u.tok, t) })
	}
	f.stands = both(f.stands, func() bool { return !swapped() && linksFault() })
	g := w.actsForFinding(c, manager, "it is offered \"update-event\" on "+manager+"'s events and not on its own")
	g.stands = swapped
	return []*Finding{f, g}
}

// updatedAsManager are the findings of an update of an event, managed by
// manager, that c's token got taken: AUTH-6, unless the token acts for
// manager, when it is the token's grant's fault instead (ACC-1, TOK-8).
// It does when manager stood beside its grant (besideOf) and the target
// refused another token of c's account the update of an event it does
// not manage: the target checks managers, and took this token for
// manager's. What stands is decided at the
// run's end.
func (w *world) updatedAsManager(c caller, manager, msg string) []*Finding {
	f := finding("AUTH-6", "%s", msg)
	if c.class != callerValid || c.tok == nil {
		return []*Finding{f}
	}
	t := c.tok
	swapped := func() bool {
		_, beside := w.besideOf(t)[manager]
		w.mu.Lock()
		defer w.mu.Unlock()
		return beside && slices.ContainsFunc(w.refusedNotManager[c.account], func(r *token) bool { return r != t })
	}
	f.stands = func() bool { return !swapped() }
	g := w.actsForFinding(c, manager, "an update of "+manager+"'s event was taken from it, where the target refused another token of "+c.account+"'s as not the manager's")
	g.stands = swapped
	return []*Finding{f, g}
}

// refusedOwn are the findings of an update of ev, which c's account
// created, refused to c's token as not the manager's: f (API-6), unless
// the token's grant stood beside another account's (besideOf, weighed
// when the finding is). Then the token may act for that account: another
// token of c's account that updated ev, or was offered its update, shows
// the account manages it, and this token acts for another (ACC-1, TOK-8);
// without one, the refusal tells neither apart, and nothing stands of it.
func (w *world) refusedOwn(c caller, ev *event, f *Finding) []*Finding {
	t := c.tok
	met := func() bool { return len(w.besideOf(t)) > 0 }
	honoured := func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		uses := slices.Concat(w.updatedWith[c.account+" "+ev.address], w.offered[c.account+" "+ev.address])
		return slices.ContainsFunc(uses, func(u use) bool { return u.tok != nil && w.plainToken(u.tok, t) })
	}
	f.stands = func() bool { return !met() }
	g := w.actsForFinding(c, "", "the update of an event "+c.account+" created was refused to it as not the manager's, where another token of "+c.account+"'s was let update it or offered its update")
	g.stands = func() bool { return met() && honoured() }
	return []*Finding{f, g}
}

// plainToken reports whether u is a token other than t whose grant stood
// beside no other account's: what it was let do tells what its account
// may; a token the audit does not know is plain.
func (w *world) plainToken(u, t *token) bool {
	if u == t {
		return false
	}
	if u == nil {
		return true
	}
	return len(w.a.grants.of(u.value)) == 0
}

// noteSharedRead notes that a read by c showed an answer given, byte for
// byte, to another caller who must be answered otherwise, and was found
// at fault for it. From a caller whose token stood beside no other
// account's grant (decided when it is weighed: a grant that met it may be
// observed later), the target's answers do not follow their callers (a
// cache shared by every caller): what a token is offered tells nothing of
// whom it acts for, in the whole run (mixed).
func (w *world) noteSharedRead(c caller) {
	value := ""
	if c.tok != nil {
		value = c.tok.value
	}
	root := w.family()
	root.mu.Lock()
	defer root.mu.Unlock()
	if len(root.sharedReaders) < maxSharedReaders && !slices.Contains(root.sharedReaders, value) {
		root.sharedReaders = append(root.sharedReaders, value)
	}
}

// maxSharedReaders is how many callers given answers meant for others a
// run keeps (noteSharedRead).
const maxSharedReaders = 64

// mixed reports whether the run saw the target give a plain caller an
// answer meant for another (noteSharedRead).
func (w *world) mixed() bool {
	root := w.family()
	root.mu.Lock()
	readers := slices.Clone(root.sharedReaders)
	root.mu.Unlock()
	return slices.ContainsFunc(readers, func(v string) bool { return v == "" || len(w.a.grants.of(v)) == 0 })
}

// noteRefusedNotManager notes that an update by c of an event it does
// not manage was refused as not its manager's (403).
func (w *world) noteRefusedNotManager(c caller) {
	if c.class != callerValid || c.tok == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.refusedNotManager[c.account], c.tok) {
		w.refusedNotManager[c.account] = append(w.refusedNotManager[c.account], c.tok)
	}
}

// actsForFinding is the finding that c's token acts for another account,
// manager, as evidence shows: ACC-1 for a token of a password grant,
// TOK-8 for one of a refresh.
func (w *world) actsForFinding(c caller, manager, evidence string) *Finding {
	t := c.tok
	rule, grant, should := "ACC-1", "password", "the account whose email its grant sends as username, with its password"
	if t.refreshed {
		rule, grant, should = "TOK-8", "refresh", "the refresh token's own user"
	}
	how, whom := w.besideOf(t)[manager], manager
	if how != "" {
		how = ", " + how
	}
	if manager == "" {
		how, whom = ", which met another account's grant", "another account"
	}
	return finding(rule, "the token of %s's %s grant%s, acts for %s: %s; a token acts for %s", c.account, grant, how, whom, evidence, should)
}

// notSwapped is a test that holds unless c's token acts for another
// account than its grant's (actsForAnother).
func (w *world) notSwapped(c caller) func() bool {
	t := c.tok
	return func() bool { _, _, ok := w.actsForAnother(t); return !ok }
}
