package steps

import (
	"testing"
	"time"
)

func TestPoolSharesATokenByBaseAndHolderUntilHalfItsLife(t *testing.T) {
	var p Pool
	if _, ok := p.get("http://a", "user"); ok {
		t.Fatal("an empty pool has a token")
	}
	p.put("http://a", "user", "token-a", 600)
	p.put("http://b", "user", "token-b", 600)
	if got, ok := p.get("http://a", "user"); !ok || got != "token-a" {
		t.Fatalf("get(a, user) = %q, %v", got, ok)
	}
	if _, ok := p.get("http://a", "other"); ok {
		t.Fatal("the user's token is given for the other user")
	}
	p.put("http://a", "other", "short-lived", 1)
	time.Sleep(600 * time.Millisecond)
	if _, ok := p.get("http://a", "other"); ok {
		t.Fatal("a token past half its life is still given")
	}
	p.forget()
	if _, ok := p.get("http://b", "user"); ok {
		t.Fatal("forget kept a token")
	}
	var none *Pool
	none.put("http://a", "user", "x", 600)
	if _, ok := none.get("http://a", "user"); ok {
		t.Fatal("a nil pool gives a token")
	}
}
