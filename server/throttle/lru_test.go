package throttle

import "testing"

// An lru forgets the least recently used key when a new one would make
// too many; use makes a key the most recently used, get does not.
func TestTheLRUForgetsTheLeastRecentlyUsedKey(t *testing.T) {
	c := newLRU[string, int](2)
	made := 0
	add := func(v int) func() int { return func() int { made++; return v } }
	c.use("a", add(1))
	c.use("b", add(2))
	if v := c.use("a", add(9)); v != 1 || made != 2 {
		t.Fatalf("use of a key there = %d (made %d), want its value and nothing made", v, made)
	}
	c.get("b") // not a use: b stays the least recently used
	c.use("c", add(3))
	if _, ok := c.get("b"); ok {
		t.Fatal("b, the least recently used, was kept")
	}
	if v, ok := c.get("a"); !ok || v != 1 || c.len() != 2 {
		t.Fatalf("a = %d, %v; len %d", v, ok, c.len())
	}
	if k, v, ok := c.oldest(); !ok || k != "a" || v != 1 {
		t.Fatalf("oldest = %q %d %v, want a", k, v, ok)
	}
	c.remove("a")
	if k, _, _ := c.oldest(); k != "c" || c.len() != 1 {
		t.Fatalf("after removing a: oldest %q, len %d", k, c.len())
	}
	c.clear()
	if _, _, ok := c.oldest(); ok || c.len() != 0 {
		t.Fatal("a cleared lru still holds keys")
	}
}
