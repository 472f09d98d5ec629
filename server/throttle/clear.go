package throttle

// Clear forgets every failure and lifts every lockout, as if the server had
// just started (the control API's reset).
func (t *Throttle) Clear() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.entries.clear()
}

// Clear gives every address its whole budget back, as if the server had
// just started (the control API's reset).
func (b *Budget) Clear() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buckets.clear()
}
