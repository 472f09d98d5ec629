package target

import (
	"slices"
	"testing"
	"time"
)

func TestPoolSharesATokenByBaseAndHolderUntilHalfItsLife(t *testing.T) {
	var p Pool
	if _, ok := p.get("http://a", "user"); ok {
		t.Fatal("an empty pool has a token")
	}
	p.Put("http://a", "user", "token-a", 600, []string{"sid"})
	p.Put("http://b", "user", "token-b", 600, nil)
	if got, ok := p.get("http://a", "user"); !ok || got.access != "token-a" || !slices.Equal(got.cookies, []string{"sid"}) {
		t.Fatalf("get(a, user) = %+v, %v", got, ok)
	}
	if _, ok := p.get("http://a", "other"); ok {
		t.Fatal("the user's token is given for the other user")
	}
	p.Put("http://a", "other", "short-lived", 1, nil)
	time.Sleep(600 * time.Millisecond)
	if _, ok := p.get("http://a", "other"); ok {
		t.Fatal("a token past half its life is still given")
	}
	p.Forget()
	if _, ok := p.get("http://b", "user"); ok {
		t.Fatal("forget kept a token")
	}
	var none *Pool
	none.Put("http://a", "user", "x", 600, nil)
	if _, ok := none.get("http://a", "user"); ok {
		t.Fatal("a nil pool gives a token")
	}
}
