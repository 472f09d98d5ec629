package throttle

import "container/list"

// lru is a map whose keys are kept in the order of their last use, so that
// the least recently used is found at once and forgotten first: the
// bounded memory of Throttle and Budget. It is not safe for concurrent
// use.
type lru[K comparable, V any] struct {
	capacity int                 // at least 1
	items    map[K]*list.Element // of *lruItem[K, V]
	order    list.List           // most recently used first
}

type lruItem[K comparable, V any] struct {
	key   K
	value V
}

// newLRU returns an empty lru of at most capacity keys (at least 1).
func newLRU[K comparable, V any](capacity int) *lru[K, V] {
	return &lru[K, V]{capacity: max(capacity, 1), items: map[K]*list.Element{}}
}

// get returns the value of key, leaving the order as it is.
func (c *lru[K, V]) get(key K) (V, bool) {
	if el, ok := c.items[key]; ok {
		return el.Value.(*lruItem[K, V]).value, true
	}
	var zero V
	return zero, false
}

// use returns the value of key, made the most recently used. A key not
// there is added with the value add makes, after the least recently used
// key is forgotten when there would be too many.
func (c *lru[K, V]) use(key K, add func() V) V {
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*lruItem[K, V]).value
	}
	if len(c.items) >= c.capacity {
		c.remove(c.order.Back().Value.(*lruItem[K, V]).key)
	}
	v := add()
	c.items[key] = c.order.PushFront(&lruItem[K, V]{key, v})
	return v
}

// remove forgets key.
func (c *lru[K, V]) remove(key K) {
	if el, ok := c.items[key]; ok {
		c.order.Remove(el)
		delete(c.items, key)
	}
}

// oldest returns the least recently used key and its value.
func (c *lru[K, V]) oldest() (K, V, bool) {
	el := c.order.Back()
	if el == nil {
		var k K
		var v V
		return k, v, false
	}
	it := el.Value.(*lruItem[K, V])
	return it.key, it.value, true
}

// len is how many keys are remembered.
func (c *lru[K, V]) len() int { return len(c.items) }

// clear forgets every key.
func (c *lru[K, V]) clear() {
	clear(c.items)
	c.order.Init()
}
